package notifications

import (
	"context"
	"log/slog"
	"time"

	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"

	"github.com/platform/backend/eventstore"
)

var (
	emitted = promauto.NewCounterVec(prometheus.CounterOpts{
		Name: "platform_notifications_emitted_total", Help: "Notifications published to the notifications topic.",
	}, []string{"type"})
	invalid = promauto.NewCounterVec(prometheus.CounterOpts{
		Name: "platform_notifications_invalid_total", Help: "Notifications that failed their contract and were dead-lettered.",
	}, []string{"type"})
)

// Metadata keys of published notification messages.
const (
	MetaType           = "notification_type"
	MetaIdempotencyKey = "idempotency_key"
	MetaOrganization   = "organization_id"
	MetaReason         = "reason"
)

// dispatcherLockID makes the dispatcher a singleton across processes.
const dispatcherLockID = 7_310_004

// Dispatcher moves the delivery log to Kafka: pending rows to the
// notifications topic, invalid rows to the dead-letter topic. A crash between
// publish and mark publishes again with the same idempotency key.
type Dispatcher struct {
	Pool      *pgxpool.Pool
	Publisher message.Publisher
	Topics    eventstore.Topics
	Log       *slog.Logger
	Interval  time.Duration // default 200ms
}

func (d *Dispatcher) Run(ctx context.Context) {
	interval := d.Interval
	if interval == 0 {
		interval = 200 * time.Millisecond
	}
	conn, err := d.Pool.Acquire(ctx)
	if err != nil {
		d.Log.Error("dispatcher: acquire", "err", err)
		return
	}
	defer conn.Release()
	leader := false
	for {
		if !leader {
			_ = conn.QueryRow(ctx, `SELECT pg_try_advisory_lock($1)`, dispatcherLockID).Scan(&leader)
		}
		if leader {
			if n, err := d.DispatchBatch(ctx); err != nil && ctx.Err() == nil {
				d.Log.Warn("dispatcher: batch failed", "err", err)
			} else if n > 0 {
				continue
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(interval):
		}
	}
}

// DispatchBatch publishes up to 200 waiting rows and returns how many.
func (d *Dispatcher) DispatchBatch(ctx context.Context) (int, error) {
	rows, err := d.Pool.Query(ctx, `SELECT idempotency_key, type, organization_id, envelope, state, reason
		FROM notification_deliveries WHERE state IN ('pending', 'invalid') ORDER BY created_at LIMIT 200`)
	if err != nil {
		return 0, err
	}
	type row struct {
		key, typ, org, state, reason string
		envelope                     []byte
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (row, error) {
		var x row
		err := r.Scan(&x.key, &x.typ, &x.org, &x.envelope, &x.state, &x.reason)
		return x, err
	})
	if err != nil || len(list) == 0 {
		return 0, err
	}
	// One publish call and one update per destination, not per row.
	byTopic := map[string][]*message.Message{}
	keys := map[string][]string{}
	for _, x := range list {
		msg := message.NewMessage(x.key, x.envelope)
		msg.Metadata.Set(MetaType, x.typ)
		msg.Metadata.Set(MetaIdempotencyKey, x.key)
		msg.Metadata.Set(MetaOrganization, x.org)
		next := "published"
		if x.state == "invalid" {
			msg.Metadata.Set(MetaReason, x.reason)
			next = "parked"
		}
		byTopic[next] = append(byTopic[next], msg)
		keys[next] = append(keys[next], x.key)
	}
	topics := map[string]string{"published": d.Topics.Notifications(), "parked": d.Topics.DeadLetter()}
	for next, msgs := range byTopic {
		if err := d.Publisher.Publish(topics[next], msgs...); err != nil {
			return 0, err
		}
		// Only rows still waiting move: the webhook may already have marked
		// some delivered between the publish and this update.
		if _, err := d.Pool.Exec(ctx, `UPDATE notification_deliveries SET state=$2, published_at=now()
			WHERE idempotency_key = ANY($1) AND state IN ('pending', 'invalid')`, keys[next], next); err != nil {
			return 0, err
		}
		counter := emitted
		if next == "parked" {
			counter = invalid
		}
		for _, m := range msgs {
			counter.WithLabelValues(m.Metadata.Get(MetaType)).Inc()
		}
	}
	return len(list), nil
}
