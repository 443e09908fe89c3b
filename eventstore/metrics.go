package eventstore

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"
)

var relayPublished = promauto.NewCounter(prometheus.CounterOpts{
	Name: "platform_relay_published_events_total",
	Help: "Outbox events published to Kafka by the relay (re-sends after a crash included).",
})

var relaySendFailures = promauto.NewCounter(prometheus.CounterOpts{
	Name: "platform_relay_send_failures_total",
	Help: "Relay sends that the broker did not fully acknowledge; the rows after the first failed one are sent again.",
})

// relayBacklog is the relay's backlog: outbox rows not yet published,
// counted on scrape (Pending) from the database of the process's relay, so
// a relay that stopped (no leader, a broker down) shows as a growing number
// on every replica, not as a rate that merely fell to zero.
var relayBacklog struct {
	once sync.Once
	pool atomic.Pointer[pgxpool.Pool]
}

// watchBacklog makes platform_relay_backlog_events read pool.
func watchBacklog(pool *pgxpool.Pool) {
	relayBacklog.pool.Store(pool)
	relayBacklog.once.Do(func() {
		promauto.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "platform_relay_backlog_events",
			Help: "Committed outbox events the relay has not published yet (-1: the database did not answer).",
		}, func() float64 {
			p := relayBacklog.pool.Load()
			if p == nil {
				return 0
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			n, err := Pending(ctx, p)
			if err != nil {
				return -1
			}
			return float64(n)
		})
	})
}
