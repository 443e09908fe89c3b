package notifications

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/IBM/sarama"
	"github.com/ThreeDotsLabs/watermill-kafka/v3/pkg/kafka"
	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"

	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/internal/leader"
)

var (
	emitted = promauto.NewCounterVec(prometheus.CounterOpts{
		Name: "platform_notifications_emitted_total", Help: "Notifications published to the notifications topic.",
	}, []string{"type"})
	invalid = promauto.NewCounterVec(prometheus.CounterOpts{
		Name: "platform_notifications_invalid_total", Help: "Notifications that failed their contract and were dead-lettered.",
	}, []string{"type"})
)

// ShowTypes makes the counters of every contract type exist at 0 from the
// start, so dashboards and alerts (increase over a window) see a type before
// its first notification or dead letter.
func ShowTypes(types []string) {
	for _, t := range types {
		emitted.WithLabelValues(t)
		invalid.WithLabelValues(t)
	}
}

// Metadata keys of published notification messages.
const (
	MetaType           = "notification_type"
	MetaIdempotencyKey = "idempotency_key"
	MetaOrganization   = "organization_id"
	MetaReason         = "reason"
)

// Marshaler keys each notification message by its idempotency key (sarama's
// hash partitioner), so every copy of a key lands on one partition and is
// handled in order by one consumer: a publish the broker wrote but did not
// acknowledge (a broker restart) is published again, and unkeyed, the copy
// went to another partition and was POSTed beside the first (issue 18).
// A message without a key (a projection's dead letter) stays unkeyed.
type Marshaler struct{ kafka.DefaultMarshaler }

func (m Marshaler) Marshal(topic string, msg *message.Message) (*sarama.ProducerMessage, error) {
	pm, err := m.DefaultMarshaler.Marshal(topic, msg)
	if err != nil {
		return nil, err
	}
	if key := msg.Metadata.Get(MetaIdempotencyKey); key != "" {
		pm.Key = sarama.StringEncoder(key)
	}
	return pm, nil
}

// Publisher is the one Kafka publisher of notifications, their dead letters
// and poison messages: keyed by Marshaler, and a call's messages sent in one
// SendMessages (the broker takes them in a few produce requests), where
// watermill-kafka's publisher waits for each message in turn: the
// dispatcher published ~1k notifications/s with it. A call that fails may
// have written some of its messages: the caller publishes them again
// (copies the key's claim delivers once).
type Publisher struct {
	producer  sarama.SyncProducer
	marshaler Marshaler
}

var _ message.Publisher = (*Publisher)(nil)

// NewPublisher connects the publisher (idempotent, acks=all).
func NewPublisher(kc eventstore.KafkaConfig) (*Publisher, error) {
	p, err := sarama.NewSyncProducer(kc.Brokers, kc.ProducerConfig())
	if err != nil {
		return nil, err
	}
	return &Publisher{producer: p}, nil
}

func (p *Publisher) Publish(topic string, msgs ...*message.Message) error {
	batch := make([]*sarama.ProducerMessage, len(msgs))
	for i, m := range msgs {
		pm, err := p.marshaler.Marshal(topic, m)
		if err != nil {
			return err
		}
		batch[i] = pm
	}
	return p.producer.SendMessages(batch)
}

func (p *Publisher) Close() error { return p.producer.Close() }

// Dispatcher moves the delivery log to Kafka: pending rows to the
// notifications topic, invalid rows to the dead-letter topic. A crash between
// publish and mark, or a publish the broker wrote without acknowledging,
// publishes again with the same idempotency key: onto the same partition
// (Marshaler), and the webhook's claim POSTs the key once.
type Dispatcher struct {
	Pool *pgxpool.Pool
	// Publisher must key messages by their idempotency key (Publisher).
	Publisher message.Publisher
	Topics    eventstore.Topics
	Log       *slog.Logger
	Interval  time.Duration // idle poll; default 200ms
	Leader    leader.Config // zero: the defaults
}

// dispatchBatch is the most rows one DispatchBatch publishes.
const dispatchBatch = 200

// Run dispatches until ctx ends, in the one process holding the dispatcher's
// leader lock (the others stand by): two dispatchers would publish the same
// pending rows twice.
func (d *Dispatcher) Run(ctx context.Context) {
	if err := leader.Run(ctx, d.Pool, leader.Dispatcher, d.Leader, d.Log, d.dispatch); err != nil {
		d.Log.Error("dispatcher: not started", "err", err)
	}
}

// dispatch publishes while batches come back full and polls when idle. An
// error ends the leader's term; leader.Run retries after a backoff.
func (d *Dispatcher) dispatch(ctx context.Context) error {
	interval := d.Interval
	if interval <= 0 {
		interval = 200 * time.Millisecond
	}
	for {
		n, err := d.DispatchBatch(ctx)
		if err != nil {
			return fmt.Errorf("dispatch: %w", err)
		}
		if n == dispatchBatch {
			continue // more is waiting
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(interval):
		}
	}
}

// DispatchBatch publishes up to dispatchBatch waiting rows and returns how many.
func (d *Dispatcher) DispatchBatch(ctx context.Context) (int, error) {
	rows, err := d.Pool.Query(ctx, `SELECT idempotency_key, type, organization_id, envelope, state, reason
		FROM notification_deliveries WHERE state IN ('pending', 'invalid') ORDER BY created_at LIMIT $1`, dispatchBatch)
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
