package projections

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

	"github.com/platform/backend/eventstore"
)

// RunnerConfig tunes one projection runner.
type RunnerConfig struct {
	BatchSize    int           // events per transaction; default 500
	Attempts     int           // tries of a failing batch before isolating the bad event; default 3
	RetryBackoff time.Duration // between tries; default 200ms
	// Linger is how long a batch that shows load (more than one event
	// fetched) waits to fill up: fewer, larger transactions under live
	// load; a lone event is still applied at once. Default 20ms.
	Linger time.Duration
}

func (c RunnerConfig) WithDefaults() RunnerConfig {
	if c.BatchSize == 0 {
		c.BatchSize = 500
	}
	if c.Attempts == 0 {
		c.Attempts = 3
	}
	if c.RetryBackoff == 0 {
		c.RetryBackoff = 200 * time.Millisecond
	}
	if c.Linger == 0 {
		c.Linger = 20 * time.Millisecond
	}
	return c
}

func (c RunnerConfig) Validate() error {
	if c.BatchSize < 1 || c.Attempts < 1 || c.RetryBackoff < 0 {
		return errors.New("projection runner: batch size and attempts must be at least 1")
	}
	return nil
}

// DeadLetters parks an event the projection could not apply.
type DeadLetters interface {
	Park(ctx context.Context, projection string, msg *sarama.ConsumerMessage, reason string) error
}

// runner applies one generation of one projection. It is a sarama consumer
// group handler: each claimed partition is consumed in batches, and each
// batch is one PostgreSQL transaction holding the writes, the per-stream
// versions and the partition checkpoint.
type runner struct {
	p          Projection
	generation int
	pool       *pgxpool.Pool
	cfg        RunnerConfig
	dead       DeadLetters
	log        *slog.Logger
	names      *strings.Replacer
	applied    func() // called after each committed batch (read-your-writes wake-up)
}

var _ sarama.ConsumerGroupHandler = (*runner)(nil)

// Setup seeks every claimed partition to the checkpoint stored in PostgreSQL.
func (r *runner) Setup(sess sarama.ConsumerGroupSession) error {
	for topic, parts := range sess.Claims() {
		for _, part := range parts {
			var next int64
			err := r.pool.QueryRow(sess.Context(), `SELECT next_offset FROM proj_checkpoints
				WHERE projection=$1 AND generation=$2 AND topic=$3 AND partition=$4`,
				r.p.Name(), r.generation, topic, part).Scan(&next)
			switch {
			case errors.Is(err, pgx.ErrNoRows):
				next = sarama.OffsetOldest
			case err != nil:
				return fmt.Errorf("read checkpoint %s/%d: %w", topic, part, err)
			}
			sess.MarkOffset(topic, part, next, "")
			sess.ResetOffset(topic, part, next, "")
		}
	}
	return nil
}

func (r *runner) Cleanup(sarama.ConsumerGroupSession) error { return nil }

// ConsumeClaim drains what is already fetched into one batch, so batches grow
// with load and an idle stream is applied at once.
func (r *runner) ConsumeClaim(sess sarama.ConsumerGroupSession, claim sarama.ConsumerGroupClaim) error {
	ctx := sess.Context()
	labels := []string{r.p.Name(), fmt.Sprint(r.generation), claim.Topic(), fmt.Sprint(claim.Partition())}
	ticker := time.NewTicker(time.Second)
	defer ticker.Stop()
	var lastApplied time.Time
	next := claim.InitialOffset()
	batch := make([]*sarama.ConsumerMessage, 0, r.cfg.BatchSize)
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-ticker.C:
			observeLag(labels, claim.HighWaterMarkOffset(), next, lastApplied)
			continue
		case msg, ok := <-claim.Messages():
			if !ok {
				return nil
			}
			batch = append(batch[:0], msg)
		}
	drain:
		for len(batch) < r.cfg.BatchSize {
			select {
			case msg, ok := <-claim.Messages():
				if !ok {
					break drain
				}
				batch = append(batch, msg)
			default:
				break drain
			}
		}
		if len(batch) > 1 && len(batch) < r.cfg.BatchSize && r.cfg.Linger > 0 {
			batch = r.linger(ctx, claim, batch)
		}
		if err := r.apply(ctx, batch); err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err // the session restarts from the stored checkpoint
		}
		last := batch[len(batch)-1]
		next, lastApplied = last.Offset+1, last.Timestamp
		sess.MarkMessage(last, "")
		observeLag(labels, claim.HighWaterMarkOffset(), next, lastApplied)
		if r.applied != nil {
			r.applied()
		}
	}
}

func (r *runner) linger(ctx context.Context, claim sarama.ConsumerGroupClaim, batch []*sarama.ConsumerMessage) []*sarama.ConsumerMessage {
	timer := time.NewTimer(r.cfg.Linger)
	defer timer.Stop()
	for len(batch) < r.cfg.BatchSize {
		select {
		case msg, ok := <-claim.Messages():
			if !ok {
				return batch
			}
			batch = append(batch, msg)
		case <-timer.C:
			return batch
		case <-ctx.Done():
			return batch
		}
	}
	return batch
}

// apply commits one batch; a batch that keeps failing is split so that only
// the event that cannot be applied is parked.
func (r *runner) apply(ctx context.Context, batch []*sarama.ConsumerMessage) error {
	var err error
	for attempt := 1; attempt <= r.cfg.Attempts; attempt++ {
		if err = r.applyOnce(ctx, batch); err == nil {
			batchesApplied.WithLabelValues(r.p.Name()).Inc()
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		r.log.Warn("projection batch failed", "projection", r.p.Name(), "attempt", attempt, "events", len(batch), "err", err)
		time.Sleep(r.cfg.RetryBackoff * time.Duration(attempt))
	}
	if len(batch) == 1 {
		return r.park(ctx, batch[0], r.cfg.Attempts, err.Error())
	}
	for _, msg := range batch {
		if err := r.apply(ctx, []*sarama.ConsumerMessage{msg}); err != nil {
			return err
		}
	}
	return nil
}

type decoded struct {
	msg *sarama.ConsumerMessage
	ev  eventstore.Event
}

// applyOnce is one transaction: read the stream versions of the batch, drop
// what was applied already, run the reducers, write, checkpoint.
func (r *runner) applyOnce(ctx context.Context, batch []*sarama.ConsumerMessage) error {
	events := make([]decoded, 0, len(batch))
	var poisoned []*sarama.ConsumerMessage
	var reasons []string
	streamIDs := make([]string, 0, len(batch))
	for _, msg := range batch {
		ev, err := eventstore.DecodeEvent(msg.Value)
		if err != nil {
			poisoned, reasons = append(poisoned, msg), append(reasons, err.Error())
			continue
		}
		events = append(events, decoded{msg, ev})
		streamIDs = append(streamIDs, ev.StreamID)
	}
	name := r.p.Name()
	return pgx.BeginFunc(ctx, r.pool, func(tx pgx.Tx) error {
		versions := make(map[string]int64, len(streamIDs))
		rows, err := tx.Query(ctx, `SELECT stream_id, version FROM proj_stream_versions
			WHERE projection=$1 AND generation=$2 AND stream_id = ANY($3)`, name, r.generation, streamIDs)
		if err != nil {
			return err
		}
		for rows.Next() {
			var id string
			var v int64
			if err := rows.Scan(&id, &v); err != nil {
				rows.Close()
				return err
			}
			versions[id] = v
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		b := &pgx.Batch{}
		var inserts rowGroups
		touched := map[string]int64{}
		for _, d := range events {
			if d.ev.StreamVersion <= versions[d.ev.StreamID] {
				duplicatesDropped.WithLabelValues(name).Inc()
				continue
			}
			stmts, err := r.p.Reduce(d.ev)
			if err != nil {
				poisoned, reasons = append(poisoned, d.msg), append(reasons, err.Error())
				continue
			}
			for _, s := range stmts {
				if s.row != nil {
					if err := inserts.add(s.row); err != nil {
						return err
					}
					continue
				}
				b.Queue(r.names.Replace(s.SQL), s.Args...)
			}
			versions[d.ev.StreamID] = d.ev.StreamVersion
			touched[d.ev.StreamID] = d.ev.StreamVersion
		}
		if err := inserts.queue(b, r.names); err != nil {
			return err
		}
		for i, msg := range poisoned {
			if err := r.dead.Park(ctx, name, msg, reasons[i]); err != nil {
				return fmt.Errorf("park event: %w", err)
			}
			queueFailure(b, name, r.generation, msg, 1, reasons[i])
		}
		if len(touched) > 0 {
			ids := make([]string, 0, len(touched))
			vs := make([]int64, 0, len(touched))
			for id, v := range touched {
				ids, vs = append(ids, id), append(vs, v)
			}
			b.Queue(`INSERT INTO proj_stream_versions (projection, generation, stream_id, version)
				SELECT $1, $2, s, v FROM unnest($3::text[], $4::bigint[]) AS t(s, v)
				ON CONFLICT (projection, generation, stream_id) DO UPDATE SET version = EXCLUDED.version
				WHERE proj_stream_versions.version < EXCLUDED.version`, name, r.generation, ids, vs)
		}
		last := batch[len(batch)-1]
		b.Queue(`INSERT INTO proj_checkpoints (projection, generation, topic, partition, next_offset, updated_at)
			VALUES ($1,$2,$3,$4,$5, now())
			ON CONFLICT (projection, generation, topic, partition) DO UPDATE SET next_offset = EXCLUDED.next_offset, updated_at = now()`,
			name, r.generation, last.Topic, last.Partition, last.Offset+1)
		if err := tx.SendBatch(ctx, b).Close(); err != nil {
			return err
		}
		eventsApplied.WithLabelValues(name).Add(float64(len(touched)))
		return nil
	})
}

func queueFailure(b *pgx.Batch, name string, generation int, msg *sarama.ConsumerMessage, attempts int, reason string) {
	id, typ := headerValue(msg, eventstore.HeaderEventID), headerValue(msg, eventstore.HeaderEventType)
	b.Queue(`INSERT INTO proj_failures (projection, generation, topic, partition, "offset", event_id, event_type, attempts, reason)
		VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9) ON CONFLICT DO NOTHING`,
		name, generation, msg.Topic, msg.Partition, msg.Offset, id, typ, attempts, reason)
	eventsParked.WithLabelValues(name).Inc()
}

// park records an event that failed every attempt on its own and moves the
// checkpoint past it, so one bad event does not stop the projection.
func (r *runner) park(ctx context.Context, msg *sarama.ConsumerMessage, attempts int, reason string) error {
	if err := r.dead.Park(ctx, r.p.Name(), msg, reason); err != nil {
		return err
	}
	b := &pgx.Batch{}
	queueFailure(b, r.p.Name(), r.generation, msg, attempts, reason)
	b.Queue(`INSERT INTO proj_checkpoints (projection, generation, topic, partition, next_offset, updated_at)
		VALUES ($1,$2,$3,$4,$5, now())
		ON CONFLICT (projection, generation, topic, partition) DO UPDATE SET next_offset = EXCLUDED.next_offset, updated_at = now()`,
		r.p.Name(), r.generation, msg.Topic, msg.Partition, msg.Offset+1)
	return pgx.BeginFunc(ctx, r.pool, func(tx pgx.Tx) error { return tx.SendBatch(ctx, b).Close() })
}

func headerValue(msg *sarama.ConsumerMessage, key string) string {
	for _, h := range msg.Headers {
		if string(h.Key) == key {
			return string(h.Value)
		}
	}
	return ""
}
