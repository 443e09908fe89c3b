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

// The group commit of Store.Execute: its flushes (one transaction each, or
// one per round when a batch holds a stream twice), the commands in them,
// the time the flushes took, and the time commands spent in Execute
// (queued behind the flush before theirs, then in theirs). Their ratios
// tell where a command waits: a batch's size and a flush's duration
// against how long a command is kept.
var (
	commandFlushes = promauto.NewCounter(prometheus.CounterOpts{
		Name: "platform_command_flushes_total",
		Help: "Group-commit flushes of Store.Execute (a batch of commands, one transaction unless a stream appears twice).",
	})
	commandsFlushed = promauto.NewCounter(prometheus.CounterOpts{
		Name: "platform_command_flushed_commands_total",
		Help: "Commands in the group-commit flushes of Store.Execute.",
	})
	commandFlushSeconds = promauto.NewCounter(prometheus.CounterOpts{
		Name: "platform_command_flush_seconds_total",
		Help: "Time the group-commit flushes of Store.Execute took, from BEGIN to COMMIT's answer.",
	})
	commandWaitSeconds = promauto.NewCounter(prometheus.CounterOpts{
		Name: "platform_command_execute_seconds_total",
		Help: "Time group-committed commands spent in Store.Execute: queued behind a transaction, then in their own.",
	})
)

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
