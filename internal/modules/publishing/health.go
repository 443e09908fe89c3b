package publishing

import (
	"context"
	"net/http"
	"sync"
	"time"

	"github.com/IBM/sarama"
	"github.com/jackc/pgx/v5/pgxpool"

	pubcmd "github.com/platform/backend/commands/publishing"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/internal/objectstore"
)

// Check is one dependency's state.
type Check struct {
	Status    string `json:"status"` // ok or failing
	LatencyMS int64  `json:"latency_ms"`
	Error     string `json:"error,omitempty"` // a few words, never a driver's text
}

// Health is GET /health's body.
type Health struct {
	Status   string            `json:"status"` // ok or failing
	Service  string            `json:"service"`
	Checks   map[string]Check  `json:"checks"`
	Networks map[string]string `json:"networks"` // readiness per network
}

// checker runs the dependency checks, at most once a second (probes are
// frequent and a Kafka metadata call is not free).
type checker struct {
	pool  *pgxpool.Pool
	kafka eventstore.KafkaConfig
	store objectstore.Store
	nets  *pubcmd.Networks

	mu   sync.Mutex
	at   time.Time
	last Health
}

func (c *checker) run(ctx context.Context) Health {
	c.mu.Lock()
	defer c.mu.Unlock()
	if time.Since(c.at) < time.Second {
		return c.last
	}
	h := Health{Status: "ok", Service: "publishing", Checks: map[string]Check{}, Networks: map[string]string{}}
	h.Checks["postgresql"] = timed(func() error {
		cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		return c.pool.Ping(cctx)
	})
	h.Checks["kafka"] = timed(func() error {
		cfg := c.kafka.SaramaConfig()
		cfg.Net.DialTimeout, cfg.Metadata.Retry.Max = 2*time.Second, 0
		client, err := sarama.NewClient(c.kafka.Brokers, cfg)
		if err != nil {
			return err
		}
		return client.Close()
	})
	if c.store != nil {
		h.Checks["object_store"] = timed(func() error {
			cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
			defer cancel()
			return c.store.Health(cctx)
		})
	} else {
		h.Checks["object_store"] = Check{Status: "failing", Error: "not configured"}
	}
	// Every adapter was built and validated at start; a network without
	// one is setup-required or planned, which is a state, not a failure.
	for _, n := range c.nets.All() {
		h.Networks[n.Name] = n.Readiness
	}
	h.Checks["network_adapters"] = Check{Status: "ok"}
	for _, ch := range h.Checks {
		if ch.Status != "ok" {
			h.Status = "failing"
		}
	}
	c.at, c.last = time.Now(), h
	return h
}

func timed(f func() error) Check {
	start := time.Now()
	err := f()
	c := Check{Status: "ok", LatencyMS: time.Since(start).Milliseconds()}
	if err != nil {
		c.Status, c.Error = "failing", "unreachable"
	}
	return c
}

// health answers GET /health: 503 when a dependency fails.
func (c *checker) health(ctx context.Context) (int, any) {
	h := c.run(ctx)
	if h.Status != "ok" {
		return http.StatusServiceUnavailable, h
	}
	return http.StatusOK, h
}

// ready answers GET /readyz: the database and the broker answer.
func (c *checker) ready(ctx context.Context) (int, any) {
	h := c.run(ctx)
	status := "ready"
	code := http.StatusOK
	for _, dep := range []string{"postgresql", "kafka"} {
		if h.Checks[dep].Status != "ok" {
			status, code = "not_ready", http.StatusServiceUnavailable
		}
	}
	return code, map[string]string{"status": status, "service": "publishing"}
}
