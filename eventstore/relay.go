package eventstore

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/IBM/sarama"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/platform/backend/internal/leader"

	"github.com/platform/backend/internal/retry"
)

// RelayConfig tunes the outbox relay.
type RelayConfig struct {
	BatchSize    int           // rows published per round trip; default 500
	PollInterval time.Duration // idle poll; default 20ms
	RetryBackoff time.Duration // after a broker or database error; default 1s
}

func (c RelayConfig) WithDefaults() RelayConfig {
	if c.BatchSize == 0 {
		c.BatchSize = 500
	}
	if c.PollInterval == 0 {
		// Polling an index past the cursor costs ~50 tiny queries/s when
		// idle; a NOTIFY per command instead serializes every commit on the
		// notification queue lock (measured: 9.2k -> 3.6k commits/s).
		c.PollInterval = 20 * time.Millisecond
	}
	if c.RetryBackoff == 0 {
		c.RetryBackoff = time.Second
	}
	return c
}

func (c RelayConfig) Validate() error {
	if c.BatchSize < 1 || c.PollInterval <= 0 || c.RetryBackoff <= 0 {
		return errors.New("relay: batch size, poll interval and retry backoff must be positive")
	}
	return nil
}

// Relay publishes committed outbox rows to Kafka in commit order. Each row
// carries its transaction id; the relay reads past its cursor (tx_id,
// global_seq) only rows whose transaction is older than every transaction
// still running, so a row that commits late (a lower global_seq becoming
// visible after a higher one) is waited for, never skipped. A stream's next
// command can only write after the previous one committed (the stream lock),
// so its transaction id is higher: every stream keeps its order.
// A crash between the send and the cursor update re-sends the rows:
// duplicates carry the same event id and stream version, and readers drop them.
type Relay struct {
	pool   *pgxpool.Pool
	writer LogWriter
	cfg    RelayConfig
	log    *slog.Logger
}

func NewRelay(pool *pgxpool.Pool, writer LogWriter, cfg RelayConfig, log *slog.Logger) (*Relay, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	watchBacklog(pool)
	return &Relay{pool: pool, writer: writer, cfg: cfg, log: log}, nil
}

// Run publishes until ctx ends, in the one process holding the relay's
// leader lock (the others stand by): a stream's order on the log needs one
// sender. An error (broker or database) ends the term and leader.Run takes
// the lock again after RetryBackoff, doubling while errors repeat.
func (r *Relay) Run(ctx context.Context) error {
	return leader.Run(ctx, r.pool, leader.Relay, leader.Config{
		Retry:   r.cfg.PollInterval * 4, // a standby takes over within a few idle polls
		Backoff: r.cfg.RetryBackoff,
	}, r.log, r.runAsLeader)
}

// runAsLeader publishes while batches come back full and polls when idle.
func (r *Relay) runAsLeader(ctx context.Context) error {
	for {
		n, err := r.PublishBatch(ctx)
		if err != nil {
			return err
		}
		if n == r.cfg.BatchSize {
			continue // more is waiting
		}
		if !retry.Sleep(ctx, r.cfg.PollInterval) {
			return nil
		}
	}
}

// PublishBatch sends up to BatchSize committed rows past the cursor and
// advances the cursor over the rows that are on the log; it returns how many
// rows the cursor passed.
//
// A stream's order on the log must survive a broker failure. The rows of one
// call go to each partition as one record batch, which the broker appends
// whole or not at all, so a stream's later version never lands without its
// earlier ones (sarama's producer, asked for 500 messages, split them over
// requests and could fail the first while a retried later one landed: v4 and
// v5 of a stream after v6 and v7). When some partitions fail, the cursor
// moves only over the leading rows, in commit order, whose partitions took
// their batch; what follows is sent again next time, and readers drop the
// duplicates by event id.
func (r *Relay) PublishBatch(ctx context.Context) (int, error) {
	batch, err := r.pending(ctx)
	if err != nil || len(batch) == 0 {
		return 0, err
	}
	parts := make([]TopicPartition, 0, len(batch))
	groups := map[TopicPartition][]*sarama.ProducerMessage{}
	bytes := map[TopicPartition]int{}
	for _, row := range batch {
		p, err := r.writer.Partition(row.msg.Topic, []byte(row.stream))
		if err != nil {
			return 0, err
		}
		tp := TopicPartition{Topic: row.msg.Topic, Partition: p}
		size := recordSize(row.msg)
		if len(groups[tp]) > 0 && bytes[tp]+size > MaxBatchBytes {
			break // the rest goes in the next call, behind this one
		}
		bytes[tp] += size
		groups[tp] = append(groups[tp], row.msg)
		parts = append(parts, tp)
	}
	result := r.writer.Write(groups)
	published := 0
	for published < len(parts) && result[parts[published]] == nil {
		published++
	}
	var sendErr error
	if failed := failedPartitions(result); len(failed) > 0 {
		relaySendFailures.Inc()
		sendErr = fmt.Errorf("publish %d events: %d of %d partitions failed: %w", len(parts), len(failed), len(groups), errors.Join(failed...))
	}
	if published > 0 {
		last := batch[published-1]
		if _, err := r.pool.Exec(ctx, `UPDATE es_relay_cursor SET tx_id = $1::xid8, global_seq = $2`, last.txID, last.seq); err != nil {
			return 0, errors.Join(sendErr, err)
		}
		relayPublished.Add(float64(published))
	}
	return published, sendErr
}

func failedPartitions(result map[TopicPartition]error) []error {
	var out []error
	for tp, err := range result {
		if err != nil {
			out = append(out, fmt.Errorf("%s/%d: %w", tp.Topic, tp.Partition, err))
		}
	}
	return out
}

// outboxRow is one row read past the cursor, ready to send.
type outboxRow struct {
	txID   string
	seq    int64
	stream string
	msg    *sarama.ProducerMessage
}

// pending reads up to BatchSize committed rows past the cursor, in commit order.
func (r *Relay) pending(ctx context.Context) ([]outboxRow, error) {
	rows, err := r.pool.Query(ctx, `SELECT e.tx_id::text, e.global_seq, e.topic, `+prefixed("e.", eventColumns)+`
		FROM es_events e, es_relay_cursor c
		WHERE (e.tx_id, e.global_seq) > (c.tx_id, c.global_seq)
		  AND e.tx_id < pg_snapshot_xmin(pg_current_snapshot())
		ORDER BY e.tx_id, e.global_seq LIMIT $1`, r.cfg.BatchSize)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []outboxRow
	for rows.Next() {
		var row outboxRow
		var topic string
		var e Event
		err := rows.Scan(&row.txID, &row.seq, &topic, &e.ID, &e.Type, &e.SchemaVersion, &e.StreamType, &e.StreamID, &e.StreamVersion,
			&e.OrganizationID, &e.Actor.ID, &e.Actor.Type, &e.OccurredAt, &e.RecordedAt, &e.IdempotencyKey,
			&e.CorrelationID, &e.CausationID, &e.Payload)
		if err != nil {
			return nil, err
		}
		if row.msg, err = e.ToMessage(topic); err != nil {
			return nil, err
		}
		row.stream = e.StreamID
		out = append(out, row)
	}
	return out, rows.Err()
}

// Pending counts rows the relay has not published yet (for readiness and tests).
func Pending(ctx context.Context, q interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}) (int64, error) {
	var n int64
	err := q.QueryRow(ctx, `SELECT count(*) FROM es_events e, es_relay_cursor c
		WHERE (e.tx_id, e.global_seq) > (c.tx_id, c.global_seq)`).Scan(&n)
	return n, err
}

// prefixed qualifies a column list with a table alias.
func prefixed(alias, columns string) string {
	parts := strings.Split(columns, ",")
	for i, p := range parts {
		parts[i] = alias + strings.TrimSpace(p)
	}
	return strings.Join(parts, ", ")
}
