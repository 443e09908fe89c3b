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
	BatchSize    int           // rows published per round trip; default 2000
	PollInterval time.Duration // idle poll; default 20ms
	RetryBackoff time.Duration // after a broker or database error; default 1s
}

func (c RelayConfig) WithDefaults() RelayConfig {
	if c.BatchSize == 0 {
		// A batch only fills when the outbox has a backlog; then 2,000 rows
		// (one record batch per partition, each cut at MaxBatchBytes) cost
		// ~1-2 µs of Go less an event than 500 (BenchmarkRelay, bench/README.md).
		c.BatchSize = 2000
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

// runAsLeader drains the outbox and polls when it is caught up. The cursor
// is read once a term: the leader is its only writer.
func (r *Relay) runAsLeader(ctx context.Context) error {
	cur, err := r.cursor(ctx)
	if err != nil {
		return err
	}
	for {
		if _, err := r.publish(ctx, &cur, true); err != nil {
			return err
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
	cur, err := r.cursor(ctx)
	if err != nil {
		return 0, err
	}
	return r.publish(ctx, &cur, false)
}

// Drain is PublishBatch repeated until a read comes back short of BatchSize
// (caught up) or a send fails, as the leader runs it: each batch is read
// while the one before it is on its way to the broker, and the cursor over
// an acknowledged batch is saved in the round trip of that read. It returns
// how many rows the cursor passed.
func (r *Relay) Drain(ctx context.Context) (int, error) {
	cur, err := r.cursor(ctx)
	if err != nil {
		return 0, err
	}
	return r.publish(ctx, &cur, true)
}

// relayCursor is a position in commit order: the last row on the log.
type relayCursor struct {
	txID string
	seq  int64
}

func (r *Relay) cursor(ctx context.Context) (relayCursor, error) {
	var c relayCursor
	err := r.pool.QueryRow(ctx, `SELECT tx_id::text, global_seq FROM es_relay_cursor`).Scan(&c.txID, &c.seq)
	return c, err
}

// readResult is a batch read ahead, and the cursor that read saved.
type readResult struct {
	rows  []outboxRow
	saved relayCursor
	err   error
}

// publish sends batches past *cur (one, or until caught up when drain) and
// moves *cur and the stored cursor over what is on the log. A batch is sent
// only after the one before it was acknowledged whole: the read-ahead of the
// next batch never changes what is sent, only when it is read. The stored
// cursor may trail the log (it is saved with synchronous_commit off, and
// with the next read): after a crash the rows past it are sent again, which
// readers drop by event id, as they do after a crash between a send and
// the cursor's update.
func (r *Relay) publish(ctx context.Context, cur *relayCursor, drain bool) (int, error) {
	saved := *cur
	total := 0
	batch, err := r.read(ctx, *cur, nil)
	for err == nil && len(batch) > 0 {
		var sent []outboxRow
		var groups map[TopicPartition][]*sarama.ProducerMessage
		if sent, groups, err = r.group(batch); err != nil {
			break
		}
		// More is waiting when the read was full or the batch was cut.
		var ahead chan readResult
		if drain && (len(batch) == r.cfg.BatchSize || len(sent) < len(batch)) {
			ahead = make(chan readResult, 1)
			go func(from relayCursor, save *relayCursor) {
				res := readResult{}
				if res.rows, res.err = r.read(ctx, from, save); res.err == nil && save != nil {
					res.saved = *save
				}
				ahead <- res
			}(sent[len(sent)-1].cursor(), r.unsaved(*cur, saved))
		}
		published, sendErr := r.send(sent, groups)
		if published > 0 {
			*cur = sent[published-1].cursor()
			total += published
			relayPublished.Add(float64(published))
		}
		if ahead == nil {
			err = sendErr
			break
		}
		res := <-ahead
		if res.saved != (relayCursor{}) {
			saved = res.saved
		}
		if sendErr != nil {
			// What was read ahead follows rows that are not on the log.
			err = sendErr
			break
		}
		batch, err = res.rows, res.err
	}
	return total, errors.Join(err, r.save(ctx, *cur, &saved))
}

// unsaved is the cursor to save with the next read: cur when it moved past
// what is stored, else nil.
func (r *Relay) unsaved(cur, saved relayCursor) *relayCursor {
	if cur == saved {
		return nil
	}
	return &cur
}

// group cuts a batch into one record batch per partition, in commit order
// (Batches): it ends before the first row whose partition's batch is full.
// It returns the rows it kept, grouped.
func (r *Relay) group(batch []outboxRow) ([]outboxRow, map[TopicPartition][]*sarama.ProducerMessage, error) {
	batches := NewBatches()
	for i := range batch {
		row := &batch[i]
		key, err := row.msg.Key.Encode() // the stream id, without a copy (ToMessage)
		if err != nil {
			return nil, nil, err
		}
		tp, ok, err := batches.Add(r.writer, row.msg, key)
		if err != nil {
			return nil, nil, err
		}
		if !ok {
			return batch[:i], batches.Groups, nil // the rest goes in the next call, behind this one
		}
		row.tp = tp
	}
	return batch, batches.Groups, nil
}

// send writes the groups and returns how many leading rows, in commit
// order, are on the log.
func (r *Relay) send(rows []outboxRow, groups map[TopicPartition][]*sarama.ProducerMessage) (int, error) {
	result := r.writer.Write(groups)
	published := 0
	for published < len(rows) && result[rows[published].tp] == nil {
		published++
	}
	if failed := failedPartitions(result); len(failed) > 0 {
		relaySendFailures.Inc()
		return published, fmt.Errorf("publish %d events: %d of %d partitions failed: %w", len(rows), len(failed), len(groups), errors.Join(failed...))
	}
	return published, nil
}

// save stores the cursor when it moved past what is stored.
func (r *Relay) save(ctx context.Context, cur relayCursor, saved *relayCursor) error {
	if cur == *saved {
		return nil
	}
	b := &pgx.Batch{}
	queueSaveCursor(b, cur)
	if err := r.pool.SendBatch(ctx, b).Close(); err != nil {
		return err
	}
	*saved = cur
	return nil
}

// queueSaveCursor writes the cursor in a transaction of its own that does
// not wait for its WAL flush: a cursor lost in a crash only sends rows again.
func queueSaveCursor(b *pgx.Batch, cur relayCursor) {
	b.Queue(`BEGIN`)
	b.Queue(`SET LOCAL synchronous_commit TO off`)
	b.Queue(`UPDATE es_relay_cursor SET tx_id = $1::xid8, global_seq = $2`, cur.txID, cur.seq)
	b.Queue(`COMMIT`)
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
	txID string
	seq  int64
	msg  *sarama.ProducerMessage
	tp   TopicPartition // set by group
}

func (o *outboxRow) cursor() relayCursor { return relayCursor{txID: o.txID, seq: o.seq} }

// pendingSQL reads up to $3 committed rows past the cursor ($1, $2), in
// commit order. The cursor is a constant of the query, so the row
// comparison is the commit-order index's start key: joining the cursor row
// instead made it a join filter, and each batch scanned the index from the
// first event ever written.
var pendingSQL = `SELECT e.tx_id::text, e.global_seq, e.topic, ` + prefixed("e.", eventColumns) + `
	FROM es_events e
	WHERE (e.tx_id, e.global_seq) > ($1::xid8, $2::bigint)
	  AND e.tx_id < pg_snapshot_xmin(pg_current_snapshot())
	ORDER BY e.tx_id, e.global_seq LIMIT $3`

// read reads up to BatchSize committed rows past from, in commit order,
// saving the cursor save first in the same round trip when it is not nil.
func (r *Relay) read(ctx context.Context, from relayCursor, save *relayCursor) ([]outboxRow, error) {
	b := &pgx.Batch{}
	if save != nil {
		queueSaveCursor(b, *save)
	}
	b.Queue(pendingSQL, from.txID, from.seq, r.cfg.BatchSize)
	br := r.pool.SendBatch(ctx, b)
	defer br.Close()
	if save != nil {
		for range 4 {
			if _, err := br.Exec(); err != nil {
				return nil, err
			}
		}
	}
	rows, err := br.Query()
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	// Grown as rows come, not sized for a full batch: under a trickle a
	// read returns a row or two, and a slice of BatchSize rows (2,000: 128
	// KiB, zeroed) a read was the process's largest allocation (6% of the
	// bytes of the gateway benchmark), so more garbage collections.
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
		out = append(out, row)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows.Close()
	return out, br.Close()
}

// Pending counts rows the relay has not published yet (for readiness and tests).
func Pending(ctx context.Context, q interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}) (int64, error) {
	var n int64
	err := q.QueryRow(ctx, `SELECT count(*) FROM es_events e
		WHERE (e.tx_id, e.global_seq) > ((SELECT tx_id FROM es_relay_cursor), (SELECT global_seq FROM es_relay_cursor))`).Scan(&n)
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
