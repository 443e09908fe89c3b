package projections

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/IBM/sarama"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/internal/retry"
)

// group consumes the topics of one or more projection generations as one
// sarama consumer group: each claimed partition is read in batches, and a
// batch is fetched once, its envelopes decoded once and applied by every
// member that reads its topic in one PostgreSQL transaction (one BEGIN, one
// COMMIT, one WAL flush), each member with its own writes, stream versions
// and checkpoint. The live projections share one group; a generation being
// rebuilt runs alone in its own (Engine.reconcile).
//
// Why one consumer for many projections: under live load a batch is small
// (30-55 events at 20 ms of linger), and a transaction's cost is mostly
// what every batch pays whatever its size (round trips, the commit, the
// checkpoint): the status and history projections applying incident updates
// cost 38-44 µs of CPU a projection-event in batches of 40 and 21-23 in
// batches of 200 (BenchmarkDiagLiveApply). Three consumers of one topic paid
// it three times, and fetched and decoded every event three times.
//
// A batch the shared transaction cannot apply is applied again member by
// member (runner.apply: an outage or a stream hole waited out, a bad event
// isolated and parked), so one projection's defect never parks another's
// event, and each member's checkpoint stays its own truth.
type group struct {
	members []*runner
	pool    *pgxpool.Pool
	cfg     RunnerConfig
	log     *slog.Logger
	applied func() // called after each committed batch (read-your-writes wake-up)
	topics  map[string][]*runner
}

func newGroup(members []*runner, topics map[*runner][]string, pool *pgxpool.Pool, cfg RunnerConfig, log *slog.Logger, applied func()) *group {
	g := &group{members: members, pool: pool, cfg: cfg, log: log, applied: applied, topics: map[string][]*runner{}}
	for _, r := range members {
		for _, t := range topics[r] {
			if !slices.Contains(g.topics[t], r) { // two contexts on one topic: one reader
				g.topics[t] = append(g.topics[t], r)
			}
		}
	}
	return g
}

// Topics are the topics the members read, each once.
func (g *group) Topics() []string {
	out := make([]string, 0, len(g.topics))
	for t := range g.topics {
		out = append(out, t)
	}
	return out
}

var _ sarama.ConsumerGroupHandler = (*group)(nil)

// Setup seeks every claimed partition to the lowest checkpoint of the
// members reading it (the oldest offset when one has none): each member
// passes over what it applied already.
func (g *group) Setup(sess sarama.ConsumerGroupSession) error {
	for _, r := range g.members {
		eventsParked.WithLabelValues(r.p.Name()) // at 0 from the start, for alerts over a window
	}
	return eventstore.SeekClaims(sess, func(topic string, part int32) (int64, error) {
		readers := g.topics[topic]
		names := make([]string, len(readers))
		gens := make([]int32, len(readers))
		for i, r := range readers {
			names[i], gens[i] = r.p.Name(), int32(r.generation)
		}
		var next int64
		err := g.pool.QueryRow(sess.Context(), `SELECT min(c.next_offset) FROM proj_checkpoints c
			JOIN unnest($1::text[], $2::int[]) AS m(projection, generation) USING (projection, generation)
			WHERE c.topic = $3 AND c.partition = $4 HAVING count(*) = cardinality($1::text[])`,
			names, gens, topic, part).Scan(&next)
		return next, err
	})
}

func (g *group) Cleanup(sarama.ConsumerGroupSession) error { return nil }

// ConsumeClaim drains what is already fetched into one batch, so batches grow
// with load and an idle partition's lone event is applied at once.
func (g *group) ConsumeClaim(sess sarama.ConsumerGroupSession, claim sarama.ConsumerGroupClaim) error {
	ctx := sess.Context()
	readers := g.topics[claim.Topic()]
	parts := make([]*partition, len(readers))
	labels := make([][]string, len(readers))
	// open reads each reader's checkpoint of the partition, and forgets
	// what it remembered of its streams.
	open := func() error {
		for i, r := range readers {
			var err error
			if parts[i], err = r.openPartition(ctx, claim.Topic(), claim.Partition()); err != nil {
				return err
			}
		}
		return nil
	}
	for i, r := range readers {
		labels[i] = []string{r.p.Name(), fmt.Sprint(r.generation), claim.Topic(), fmt.Sprint(claim.Partition())}
	}
	if err := open(); err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return err // the session starts again
	}
	var lastApplied time.Time
	next := claim.InitialOffset()
	observe := func() {
		for i := range readers {
			observeLag(labels[i], claim.HighWaterMarkOffset(), max(next, parts[i].next()), lastApplied)
		}
	}
	reader := &eventstore.BatchReader{Claim: claim, Size: g.cfg.BatchSize, Linger: g.cfg.Linger, Idle: observe}
	for {
		batch := reader.Next(ctx)
		if batch == nil {
			return nil
		}
		for {
			err := g.apply(ctx, readers, parts, batch)
			if err == nil {
				break
			}
			if ctx.Err() != nil {
				return nil
			}
			if !checkpointMoved(err) {
				return err // the session restarts from the stored checkpoints
			}
			// Another consumer (a rebuild's that went live, another
			// process's during a rebalance) applied part of the partition:
			// what the readers remember is stale. Read their checkpoints
			// again and apply what is past them, without ending the
			// session of every other partition the group holds.
			g.log.Warn("projection: another consumer applied the partition meanwhile; reading its checkpoints again",
				"topic", claim.Topic(), "partition", claim.Partition(), "err", err)
			retry.Sleep(ctx, g.cfg.RetryBackoff)
			if err := open(); err != nil {
				if ctx.Err() != nil {
					return nil
				}
				return err
			}
		}
		last := batch[len(batch)-1]
		next, lastApplied = last.Offset+1, last.Timestamp
		sess.MarkMessage(last, "")
		observe()
		if g.applied != nil {
			g.applied()
		}
	}
}

// apply commits one batch for every reader whose checkpoint it passes: in
// one transaction (an outage waited out), and reader by reader when that
// fails otherwise.
func (g *group) apply(ctx context.Context, readers []*runner, parts []*partition, batch []*sarama.ConsumerMessage) error {
	var envs envelopes // decoded once for several readers; a lone reader decodes as it goes
	if len(readers) > 1 {
		envs = envelopes{}
	}
	var works []*work
	for i, r := range readers {
		if rest := parts[i].unapplied(batch); len(rest) > 0 {
			works = append(works, r.prepare(parts[i], rest, envs))
		}
	}
	switch len(works) {
	case 0:
		return nil
	case 1:
		return works[0].r.apply(ctx, works[0].st, works[0].batch, envs)
	}
	var err error
	for waits := 1; ; waits++ {
		if err = commit(ctx, g.pool, works); err == nil || ctx.Err() != nil || checkpointMoved(err) {
			return err
		}
		if !eventstore.IsTransient(err) {
			break
		}
		g.log.Warn("projections: a shared batch waits", "try", waits, "events", len(batch), "err", err)
		retry.Sleep(ctx, retry.Backoff(g.cfg.RetryBackoff, waits, g.cfg.MaxBackoff))
		for i, w := range works { // a try starts from the batch
			works[i] = w.r.prepare(w.st, w.batch, envs)
		}
	}
	groupFallbacks.Inc()
	g.log.Warn("projections: a shared batch failed; applying it projection by projection", "events", len(batch), "err", err)
	for _, w := range works {
		if err := w.r.apply(ctx, w.st, w.batch, envs); err != nil {
			return err
		}
	}
	return nil
}

// next is the offset the partition's checkpoint points at (0: none stored).
func (st *partition) next() int64 {
	if st.stored == nil {
		return 0
	}
	return *st.stored
}

// unapplied is the part of a claimed batch past the partition's checkpoint
// (a member that applied further than the group's lowest checkpoint passes
// over what it applied).
func (st *partition) unapplied(batch []*sarama.ConsumerMessage) []*sarama.ConsumerMessage {
	next := st.next()
	for i, msg := range batch {
		if msg.Offset >= next {
			return batch[i:]
		}
	}
	return nil
}
