package notifications

import (
	"context"
	"errors"
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

// Publisher is the Kafka publisher of the messages watermill's middleware
// and the projections hand over (a poisoned notification, a projection's
// dead letter): keyed by Marshaler, and a call's messages sent in one
// SendMessages (the broker takes them in a few produce requests), where
// watermill-kafka's publisher waits for each message in turn. A call that
// fails may have written some of its messages: the caller publishes them
// again. The dispatcher writes notifications through a LogWriter instead.
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
// notifications topic, invalid rows to the dead-letter topic. It reads the
// log in commit order past a cursor (notification_dispatch_cursor), as the
// relay reads the outbox, and saves the cursor once a batch, instead of an
// UPDATE of every row. A crash between publish and cursor save, or a publish
// the broker wrote without acknowledging, publishes again with the same
// idempotency key: onto the same partition (the key is the record key), and
// the webhook's claim POSTs the key once.
//
// The messages are watermill's (Marshaler: the delivery reads them with
// watermill-kafka's DefaultMarshaler), written as the relay writes events:
// one record batch per partition a call (Writer). Through sarama's
// producer (a SyncProducer's SendMessages), each notification crossed its
// pipeline of goroutines and channels: the dispatcher cost the command path
// as much Go as the three live projections together (bench/README.md).
type Dispatcher struct {
	Pool *pgxpool.Pool
	// Writer writes the notifications; the dispatcher's own
	// (eventstore.NewKafkaLogWriter), so a batch of notifications never
	// queues the relay's events behind it on a shared connection.
	Writer   eventstore.LogWriter
	Topics   eventstore.Topics
	Log      *slog.Logger
	Interval time.Duration // idle poll; default 200ms
	Leader   leader.Config // zero: the defaults
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

// pendingSQL reads up to $1 committed rows past the cursor, in commit
// order: only rows of transactions older than every one still running, so a
// row that commits after a later one was read (two projection batches
// committing out of order) is waited for, never skipped. The cursor's
// columns are scalar subqueries, computed once before the scan: the row
// comparison stays the commit-order index's start key. The columns are
// qualified: ORDER BY tx_id would sort by the output column tx_id::text.
const pendingSQL = `SELECT d.tx_id::text, d.seq, d.idempotency_key, d.type, d.organization_id, d.envelope, d.state, d.reason
	FROM notification_deliveries d
	WHERE (d.tx_id, d.seq) > ((SELECT tx_id FROM notification_dispatch_cursor), (SELECT seq FROM notification_dispatch_cursor))
	  AND d.tx_id < pg_snapshot_xmin(pg_current_snapshot())
	ORDER BY d.tx_id, d.seq LIMIT $1`

// DispatchBatch publishes up to dispatchBatch waiting rows and returns how
// many: none while the rows waiting are all younger than a transaction still
// running (on any database of the server), which ends soon or holds them.
// A batch may be cut short where a partition's record batch is full
// (eventstore.Batches); the rest is the next call's.
func (d *Dispatcher) DispatchBatch(ctx context.Context) (int, error) {
	rows, err := d.Pool.Query(ctx, pendingSQL, dispatchBatch)
	if err != nil {
		return 0, err
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (pendingRow, error) {
		var x pendingRow
		err := r.Scan(&x.txID, &x.seq, &x.key, &x.typ, &x.org, &x.envelope, &x.state, &x.reason)
		return x, err
	})
	if err != nil || len(list) == 0 {
		return 0, err
	}
	batches := eventstore.NewBatches()
	notifications, deadLetters := d.Topics.Notifications(), d.Topics.DeadLetter()
	for i, x := range list {
		topic := notifications
		if x.state == stateInvalid {
			topic = deadLetters
		}
		pm := dispatchMessage(topic, x)
		_, ok, err := batches.Add(d.Writer, pm, pm.Headers[headerIdempotencyKey].Value)
		if err != nil {
			return 0, err
		}
		if !ok {
			list = list[:i]
			break
		}
	}
	// Any partition failing fails the call: the cursor stays, and the rows
	// already written are written again, as copies the webhook delivers once.
	var failed []error
	for tp, err := range d.Writer.Write(batches.Groups) {
		if err != nil {
			failed = append(failed, fmt.Errorf("%s/%d: %w", tp.Topic, tp.Partition, err))
		}
	}
	if len(failed) > 0 {
		return 0, fmt.Errorf("publish %d notifications: %w", len(list), errors.Join(failed...))
	}
	last := list[len(list)-1]
	if err := saveDispatchCursor(ctx, d.Pool, last.txID, last.seq); err != nil {
		return 0, err
	}
	for _, x := range list {
		if x.state == stateInvalid {
			invalid.WithLabelValues(x.typ).Inc()
		} else {
			emitted.WithLabelValues(x.typ).Inc()
		}
	}
	return len(list), nil
}

// pendingRow is a delivery log row read past the cursor.
type pendingRow struct {
	txID, key, typ, org, state, reason string
	seq                                int64
	envelope                           []byte
}

// stateInvalid is the state of a row whose notification failed its
// contract: it goes to the dead-letter topic, with the reason.
const stateInvalid = "invalid"

// message is the row's watermill message, keyed by its idempotency key
// (Marshaler), for the notifications topic or, invalid, the dead letters.
// Header keys of a notification record, shared by every record (sarama
// only reads them).
var (
	keyWatermillUUID  = []byte(kafka.UUIDHeaderKey)
	keyType           = []byte(MetaType)
	keyIdempotencyKey = []byte(MetaIdempotencyKey)
	keyOrganization   = []byte(MetaOrganization)
	keyReason         = []byte(MetaReason)
)

// dispatchMessage is the record Marshaler makes of the row's watermill
// message (the row's key as message id, its type, key, organization and,
// for a dead letter, reason as metadata; keyed by the idempotency key), which
// the delivery reads with watermill's DefaultMarshaler, made without the
// message, its metadata map and a copy of every header: their values share
// one buffer, the record's key is the key header's bytes.
func dispatchMessage(topic string, x pendingRow) *sarama.ProducerMessage {
	buf := make([]byte, 0, 2*len(x.key)+len(x.typ)+len(x.org)+len(x.reason))
	value := func(s string) []byte {
		start := len(buf)
		buf = append(buf, s...)
		return buf[start:len(buf):len(buf)]
	}
	n := 4
	if x.state == stateInvalid {
		n = 5
	}
	headers := make([]sarama.RecordHeader, 4, n)
	headers[0] = sarama.RecordHeader{Key: keyWatermillUUID, Value: value(x.key)}
	headers[1] = sarama.RecordHeader{Key: keyType, Value: value(x.typ)}
	headers[headerIdempotencyKey] = sarama.RecordHeader{Key: keyIdempotencyKey, Value: value(x.key)}
	headers[3] = sarama.RecordHeader{Key: keyOrganization, Value: value(x.org)}
	if x.state == stateInvalid {
		headers = append(headers, sarama.RecordHeader{Key: keyReason, Value: value(x.reason)})
	}
	pm := &sarama.ProducerMessage{Topic: topic, Value: sarama.ByteEncoder(x.envelope), Headers: headers}
	if x.key != "" { // Marshaler leaves a message without a key unkeyed
		pm.Key = sarama.ByteEncoder(headers[headerIdempotencyKey].Value)
	}
	return pm
}

// headerIdempotencyKey is the idempotency key's place in a notification
// record's headers (dispatchMessage); the dispatcher partitions by it.
const headerIdempotencyKey = 2

// saveDispatchCursor moves the cursor forward (never back: a term that
// outlived its lock cannot undo its successor's progress) in a transaction
// that does not wait for its WAL flush: a cursor lost in a crash only
// publishes rows again, which the webhook's claim delivers once.
func saveDispatchCursor(ctx context.Context, pool *pgxpool.Pool, txID string, seq int64) error {
	b := &pgx.Batch{}
	b.Queue(`BEGIN`)
	b.Queue(`SET LOCAL synchronous_commit TO off`)
	b.Queue(`UPDATE notification_dispatch_cursor SET tx_id = $1::xid8, seq = $2
		WHERE (tx_id, seq) < ($1::xid8, $2::bigint)`, txID, seq)
	b.Queue(`COMMIT`)
	return pool.SendBatch(ctx, b).Close()
}
