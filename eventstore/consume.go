package eventstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/IBM/sarama"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
)

// BatchReader reads one claimed partition in batches, for every consumer of
// the log that works a batch at a time (projection runners, reactors):
// batches grow with load, and an idle partition's lone record goes at once.
type BatchReader struct {
	Claim sarama.ConsumerGroupClaim
	Size  int // records per batch at most
	// Linger is how long a batch that shows load (more than one record
	// already fetched) waits to fill up; 0: never.
	Linger time.Duration
	// Idle runs every second while no record comes (lag metrics).
	Idle func()

	buf  []*sarama.ConsumerMessage
	idle *time.Ticker
}

// Next waits for the next record, adds what is already fetched (up to Size)
// and lingers when Linger says so. It returns nil when ctx or the claim
// ends. The batch is reused by the following call.
func (b *BatchReader) Next(ctx context.Context) []*sarama.ConsumerMessage {
	// One ticker a reader, reset at each call: a second from now, with no
	// tick of before (Go 1.23's timers); an unreferenced ticker is collected
	// unstopped.
	if b.idle == nil {
		b.idle = time.NewTicker(time.Second)
	} else {
		b.idle.Reset(time.Second)
	}
	idle := b.idle
	for b.buf = b.buf[:0]; len(b.buf) == 0; {
		select {
		case <-ctx.Done():
			return nil
		case <-idle.C:
			if b.Idle != nil {
				b.Idle()
			}
		case msg, ok := <-b.Claim.Messages():
			if !ok {
				return nil
			}
			b.buf = append(b.buf, msg)
		}
	}
drain:
	for len(b.buf) < b.Size {
		select {
		case msg, ok := <-b.Claim.Messages():
			if !ok {
				break drain
			}
			b.buf = append(b.buf, msg)
		default:
			break drain
		}
	}
	if len(b.buf) > 1 && len(b.buf) < b.Size && b.Linger > 0 {
		b.linger(ctx)
	}
	return b.buf
}

func (b *BatchReader) linger(ctx context.Context) {
	timer := time.NewTimer(b.Linger)
	defer timer.Stop()
	for len(b.buf) < b.Size {
		select {
		case msg, ok := <-b.Claim.Messages():
			if !ok {
				return
			}
			b.buf = append(b.buf, msg)
		case <-timer.C:
			return
		case <-ctx.Done():
			return
		}
	}
}

// SeekToCheckpoints moves every partition the session claimed to the offset
// stored in PostgreSQL with the consumer's last committed work (the
// database, not the group's commits, is the checkpoint's truth); a
// partition without a row starts at the oldest offset. query selects
// next_offset for its arguments followed by the topic and the partition.
func SeekToCheckpoints(sess sarama.ConsumerGroupSession, q interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}, query string, args ...any) error {
	return SeekClaims(sess, func(topic string, part int32) (int64, error) {
		var next int64
		err := q.QueryRow(sess.Context(), query, append(append([]any(nil), args...), topic, part)...).Scan(&next)
		return next, err
	})
}

// SeekClaims moves every partition the session claimed to the offset
// checkpoint reads for it; pgx.ErrNoRows (no checkpoint) starts it at the
// oldest offset.
func SeekClaims(sess sarama.ConsumerGroupSession, checkpoint func(topic string, part int32) (int64, error)) error {
	for topic, parts := range sess.Claims() {
		for _, part := range parts {
			next, err := checkpoint(topic, part)
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

// QueueEventIDs queues, in a reader's pipeline, the read of the event id the
// event store holds at each position, one index lookup each; read gives the
// ids of the positions that exist. A reader that meets an event at a
// position it has applied already asks whether it is the same event again,
// and one that keeps no position (one-event streams) whether the event is
// the one the store holds.
func QueueEventIDs(b *pgx.Batch, positions []Position) (read func(pgx.BatchResults) (map[Position]uuid.UUID, error)) {
	ids := make([]string, len(positions))
	versions := make([]int64, len(positions))
	for i, p := range positions {
		ids[i], versions[i] = p.StreamID, p.Version
	}
	b.Queue(`SELECT p.s, p.v, (SELECT e.event_id FROM es_events e WHERE e.stream_id = p.s AND e.stream_version = p.v)
		FROM unnest($1::text[], $2::bigint[]) AS p(s, v)`, ids, versions)
	return func(br pgx.BatchResults) (map[Position]uuid.UUID, error) {
		rows, err := br.Query()
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		out := make(map[Position]uuid.UUID, len(positions))
		for rows.Next() {
			var p Position
			var id *uuid.UUID
			if err := rows.Scan(&p.StreamID, &p.Version, &id); err != nil {
				return nil, err
			}
			if id != nil {
				out[p] = *id
			}
		}
		return out, rows.Err()
	}
}
