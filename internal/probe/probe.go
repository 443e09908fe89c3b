// Package probe answers a service's readiness: its dependencies (the
// database, the broker, the object store) checked at most once a second,
// each failure in a few words, never a driver's text.
package probe

import (
	"context"
	"net/http"
	"sync"
	"time"

	"github.com/IBM/sarama"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/internal/objectstore"
)

// Check is one dependency's state.
type Check struct {
	Status    string `json:"status"` // ok or failing
	LatencyMS int64  `json:"latency_ms"`
	Error     string `json:"error,omitempty"`
}

// Readiness is the answer of a readiness route.
type Readiness struct {
	Status  string           `json:"status"` // ready or not_ready
	Service string           `json:"service"`
	Checks  map[string]Check `json:"checks"`
}

// Checker checks a service's dependencies; nil ones are not checked.
type Checker struct {
	Service string
	Pool    *pgxpool.Pool
	Kafka   *eventstore.KafkaConfig
	Objects objectstore.Store
	// Timeout bounds each check (default 2s).
	Timeout time.Duration

	mu   sync.Mutex
	at   time.Time
	last Readiness
}

// Ready answers a readiness route: 200 when every dependency answers, 503
// otherwise. Probes are frequent and a broker metadata call is not free, so
// an answer is reused for a second.
func (c *Checker) Ready(ctx context.Context) (int, any) {
	r := c.run(ctx)
	if r.Status != "ready" {
		return http.StatusServiceUnavailable, r
	}
	return http.StatusOK, r
}

func (c *Checker) run(ctx context.Context) Readiness {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.at.IsZero() && time.Since(c.at) < time.Second {
		return c.last
	}
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = 2 * time.Second
	}
	r := Readiness{Status: "ready", Service: c.Service, Checks: map[string]Check{}}
	if c.Pool != nil {
		r.Checks["postgresql"] = timed(func() error {
			cctx, cancel := context.WithTimeout(ctx, timeout)
			defer cancel()
			return c.Pool.Ping(cctx)
		})
	}
	if c.Kafka != nil {
		r.Checks["kafka"] = timed(func() error {
			cfg := c.Kafka.SaramaConfig()
			cfg.Net.DialTimeout, cfg.Metadata.Retry.Max = timeout, 0
			client, err := sarama.NewClient(c.Kafka.Brokers, cfg)
			if err != nil {
				return err
			}
			return client.Close()
		})
	}
	if c.Objects != nil {
		r.Checks["object_store"] = timed(func() error {
			cctx, cancel := context.WithTimeout(ctx, timeout)
			defer cancel()
			return c.Objects.Health(cctx)
		})
	}
	for _, ch := range r.Checks {
		if ch.Status != "ok" {
			r.Status = "not_ready"
		}
	}
	c.at, c.last = time.Now(), r
	return r
}

func timed(f func() error) Check {
	start := time.Now()
	err := f()
	ch := Check{Status: "ok", LatencyMS: time.Since(start).Milliseconds()}
	if err != nil {
		ch.Status, ch.Error = "failing", "unreachable"
	}
	return ch
}
