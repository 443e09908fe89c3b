package projections

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/IBM/sarama"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/internal/retry"
)

// RunnerConfig tunes one projection runner.
type RunnerConfig struct {
	BatchSize    int           // events per transaction; default 2000
	Attempts     int           // tries of a failing batch before isolating the bad event; default 3
	RetryBackoff time.Duration // between tries; default 200ms
	// MaxBackoff bounds the wait between tries of a batch held up by an
	// outage or a stream hole (tried again without end); default 5s.
	MaxBackoff time.Duration
	// Linger is how long a batch that shows load (more than one event
	// fetched) waits to fill up: fewer, larger transactions under live
	// load; a lone event is still applied at once. Default 20ms.
	Linger time.Duration
	// RebuildBatchSize is BatchSize for a generation being rebuilt (a
	// backlog from offset zero; queries do not wait on it): the stream
	// versions read and written and the checkpoint are shared by more
	// events (history rebuild: PostgreSQL's backends 9-10.5 against 11-14 µs
	// an event with 8,000; bench/README.md). Default 8000.
	RebuildBatchSize int
}

func (c RunnerConfig) WithDefaults() RunnerConfig {
	if c.BatchSize == 0 {
		// A batch only fills with a backlog (a rebuild, a burst); then 2,000
		// events cost less a piece than 500: the COPY, the versions read and
		// the checkpoint are shared by more (history replay: the database's
		// backends 14-17 against 21-25 µs, Go 9-12 against 13-16 µs an
		// event; bench/README.md).
		c.BatchSize = 2000
	}
	if c.RebuildBatchSize == 0 {
		c.RebuildBatchSize = max(c.BatchSize, 8000)
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
	if c.MaxBackoff == 0 {
		c.MaxBackoff = 5 * time.Second
	}
	return c
}

func (c RunnerConfig) Validate() error {
	if c.BatchSize < 1 || c.RebuildBatchSize < 1 || c.Attempts < 1 || c.RetryBackoff < 0 || c.MaxBackoff <= 0 {
		return errors.New("projection runner: batch size and attempts must be at least 1")
	}
	return nil
}

// DeadLetters parks an event the projection could not apply.
type DeadLetters interface {
	Park(ctx context.Context, projection string, msg *sarama.ConsumerMessage, reason string) error
}

// runner applies one generation of one projection, for the group that
// consumes it (group.go): each batch of a claimed partition it applies is
// in one PostgreSQL transaction holding the writes, the per-stream versions
// and the partition checkpoint (shared with the group's other members).
type runner struct {
	p          Projection
	generation int
	pool       *pgxpool.Pool
	cfg        RunnerConfig
	dead       DeadLetters
	log        *slog.Logger
	names      *strings.Replacer
	skips      []string // stream types passed over (StreamSkipper)
	// singles are the one-event stream types (OneEventStreams), each with
	// its table (resolved) keyed by event id.
	singles map[string]string
	// deferred are the deferred indexes (resolved) of a generation being
	// rebuilt, until a batch that needed them built them.
	deferredMu sync.Mutex
	deferred   []string
}

// pendingIndexes are the deferred indexes not built yet by a batch.
func (r *runner) pendingIndexes() []string {
	r.deferredMu.Lock()
	defer r.deferredMu.Unlock()
	return r.deferred
}

// indexesBuilt records that a committed batch built the deferred indexes.
func (r *runner) indexesBuilt() {
	r.deferredMu.Lock()
	r.deferred = nil
	r.deferredMu.Unlock()
}

// skipped reports a record of a stream type the projection passes over.
func (r *runner) skipped(msg *sarama.ConsumerMessage) bool {
	if len(r.skips) == 0 {
		return false
	}
	for _, h := range msg.Headers {
		if string(h.Key) == eventstore.HeaderStreamType {
			return slices.Contains(r.skips, string(h.Value))
		}
	}
	return false
}

// partition is what a runner knows of a partition while it holds it: the
// checkpoint it stored there last (the next batch commits only if it is
// still there: queueCheckpoint), and the applied version of each
// stream it applied or read, so that a batch reads only the versions of
// streams new to it. The fence makes the memory safe: another consumer that
// applied the partition meanwhile moved the checkpoint, and the batch rolls
// back (checkpointMoved) and the session starts again from what is stored.
type partition struct {
	topic    string
	id       int32
	stored   *int64           // the checkpoint; nil: none stored yet
	versions map[string]int64 // applied versions (0: none) as committed
}

// maxRemembered bounds a partition's remembered stream versions: past it
// they are forgotten, and read again as the streams come back.
const maxRemembered = 50_000

// openPartition reads the partition's stored checkpoint.
func (r *runner) openPartition(ctx context.Context, topic string, id int32) (*partition, error) {
	st := &partition{topic: topic, id: id, versions: map[string]int64{}}
	var next int64
	err := r.pool.QueryRow(ctx, `SELECT next_offset FROM proj_checkpoints WHERE projection=$1 AND generation=$2 AND topic=$3 AND partition=$4`,
		r.p.Name(), r.generation, topic, id).Scan(&next)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
	case err != nil:
		return nil, err
	default:
		st.stored = &next
	}
	return st, nil
}

// committed records a committed batch: the checkpoint it stored and the
// stream versions it read (known) and wrote (touched).
func (st *partition) committed(next int64, known, touched map[string]int64) {
	st.stored = &next
	if len(st.versions)+len(known) > maxRemembered {
		clear(st.versions)
	}
	for id, v := range known {
		st.versions[id] = v
	}
	for id, v := range touched {
		st.versions[id] = v
	}
}

// checkpointMovedCode is proj_checkpoint_moved's SQLSTATE.
const checkpointMovedCode = "PJ409"

// checkpointMoved reports a batch that did not commit because another
// consumer moved the partition's checkpoint.
func checkpointMoved(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == checkpointMovedCode
}

// apply commits one batch. An outage (database or broker down, a dropped
// connection) and a hole in a stream are waited out, however long they last:
// nothing is parked for them. A batch that keeps failing otherwise is split,
// so that only the event that cannot be applied is parked.
func (r *runner) apply(ctx context.Context, st *partition, batch []*sarama.ConsumerMessage, envs envelopes) error {
	var err error
	failures, waits := 0, 0
	for {
		if err = commit(ctx, r.pool, []*work{r.prepare(st, batch, envs)}); err == nil {
			if waits > 0 {
				r.log.Info("projection resumed", "projection", r.p.Name(), "waited_tries", waits)
			}
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if checkpointMoved(err) {
			return err // not this batch's fault: what the runner remembers is stale
		}
		if gap := (*streamGapError)(nil); errors.As(err, &gap) || eventstore.IsTransient(err) {
			waits++
			batchWaits.WithLabelValues(r.p.Name()).Inc()
			level := slog.LevelWarn
			if gap != nil {
				level = slog.LevelError
			}
			r.log.Log(ctx, level, "projection batch waits", "projection", r.p.Name(), "try", waits, "events", len(batch), "err", err)
			retry.Sleep(ctx, retry.Backoff(r.cfg.RetryBackoff, waits, r.cfg.MaxBackoff))
			continue
		}
		failures++
		if failures >= r.cfg.Attempts {
			break
		}
		r.log.Warn("projection batch failed", "projection", r.p.Name(), "attempt", failures, "events", len(batch), "err", err)
		retry.Sleep(ctx, r.cfg.RetryBackoff*time.Duration(failures))
	}
	if len(batch) == 1 {
		return r.park(ctx, st, batch[0], r.cfg.Attempts, err.Error())
	}
	for _, msg := range batch {
		if err := r.apply(ctx, st, []*sarama.ConsumerMessage{msg}, envs); err != nil {
			return err
		}
	}
	return nil
}

type decoded struct {
	msg    *sarama.ConsumerMessage
	ev     eventstore.Event
	single bool // of a one-event stream: no stream version tracked
}

// streamGapError is a hole in a stream that the event store cannot fill: the
// runner stops there (loudly) rather than apply a later version past it.
type streamGapError struct {
	stream       string
	applied, got int64
}

func (e *streamGapError) Error() string {
	return fmt.Sprintf("stream %s: version %d arrived after %d and the event store does not hold the versions between", e.stream, e.got, e.applied)
}

// failure is an event of the batch that is recorded instead of applied.
type failure struct {
	msg    *sarama.ConsumerMessage
	reason string
}

// sequence puts a batch's events in each stream's order against the applied
// versions. The log keeps a stream's order, but one written by an older relay
// may hold a later version before an earlier one: a version above the next
// one is a hole, filled from the event store (every event is there) before
// the version itself is applied; a version at or below the applied one is
// dropped when it is the same event again, and reported when it is not.
//
// An event of a one-event stream has no version to check: it is dropped
// when its row is in the projection already (applied) or earlier in the
// batch, and reported when the event store holds another event at its
// position (held).
func (r *runner) sequence(ctx context.Context, conn *pgx.Conn, events []decoded, versions map[string]int64,
	applied map[uuid.UUID]bool, held map[eventstore.Position]uuid.UUID) ([]decoded, []failure, error) {
	out := make([]decoded, 0, len(events))
	var seen []decoded
	var defects []failure
	for _, d := range events {
		if d.single {
			pos := eventstore.Position{StreamID: d.ev.StreamID, Version: d.ev.StreamVersion}
			if id, ok := held[pos]; ok && id != d.ev.ID {
				defects = append(defects, r.impostor(d, pos, "of a one-event stream and not the event the store holds there"))
				continue
			}
			if applied[d.ev.ID] {
				duplicatesDropped.WithLabelValues(r.p.Name()).Inc()
				continue
			}
			applied[d.ev.ID] = true
			out = append(out, d)
			continue
		}
		s, v := d.ev.StreamID, d.ev.StreamVersion
		known := versions[s]
		switch {
		case v <= known:
			seen = append(seen, d)
			continue
		case v > known+1:
			missing, err := eventstore.LoadRange(ctx, conn, s, known+1, v-1)
			if err != nil {
				return nil, nil, err
			}
			if int64(len(missing)) != v-1-known {
				streamGaps.WithLabelValues(r.p.Name()).Inc()
				return nil, nil, &streamGapError{stream: s, applied: known, got: v}
			}
			gapsFilled.WithLabelValues(r.p.Name()).Add(float64(len(missing)))
			for _, e := range missing {
				out = append(out, decoded{msg: d.msg, ev: e})
			}
		}
		out = append(out, d)
		versions[s] = v
	}
	if len(seen) == 0 {
		return out, defects, nil
	}
	positions := make([]eventstore.Position, len(seen))
	for i, d := range seen {
		positions[i] = eventstore.Position{StreamID: d.ev.StreamID, Version: d.ev.StreamVersion}
	}
	b := &pgx.Batch{}
	read := eventstore.QueueEventIDs(b, positions)
	br := conn.SendBatch(ctx, b)
	ids, err := read(br)
	if err = errors.Join(err, br.Close()); err != nil {
		return nil, nil, err
	}
	for i, d := range seen {
		if id, ok := ids[positions[i]]; ok && id == d.ev.ID {
			duplicatesDropped.WithLabelValues(r.p.Name()).Inc()
			continue
		}
		defects = append(defects, r.impostor(d, positions[i],
			fmt.Sprintf("at or below the applied version %d and is not the event the store holds there", versions[d.ev.StreamID])))
	}
	return out, defects, nil
}

// impostor reports an event that is not the event the store holds at its
// position (what says why it was checked).
func (r *runner) impostor(d decoded, pos eventstore.Position, what string) failure {
	reason := fmt.Sprintf("out of order: %s is %s", pos, what)
	r.log.Error("projection: event out of stream order", "projection", r.p.Name(), "event_id", d.ev.ID, "position", pos.String(), "topic", d.msg.Topic, "partition", d.msg.Partition, "offset", d.msg.Offset)
	outOfOrder.WithLabelValues(r.p.Name()).Inc()
	return failure{d.msg, reason}
}

// streamVersionsSQL reads the applied version of each stream of $3 (0 for
// a stream not applied yet), one index lookup each. It was
// `stream_id = ANY($3)`, which the planner, without statistics on the table
// (a fresh database, a table just filled), ran as a filter over the index's
// whole (projection, generation) range: every batch read the version of
// every stream the generation had applied (measured: 24 µs of PostgreSQL
// an event in a 2,000-stream replay, 2.5 µs now).
const streamVersionsSQL = `SELECT s.id, COALESCE((SELECT v.version FROM proj_stream_versions v
	WHERE v.projection = $1 AND v.generation = $2 AND v.stream_id = s.id), 0) FROM unnest($3::text[]) AS s(id)`

// work is one runner's part of a transaction: its batch (the records of a
// claimed batch past its checkpoint), what decode made of it, and what the
// transaction's first round trip read for it.
type work struct {
	r         *runner
	st        *partition
	batch     []*sarama.ConsumerMessage
	events    []decoded
	failed    []failure
	streamIDs []string

	versions map[string]int64 // applied versions of the batch's streams (absent: 0)
	unknown  []string         // streams new to the partition's memory: read
	read     map[string]int64 // what the read found (absent: 0)
	applied  map[uuid.UUID]bool
	held     map[eventstore.Position]uuid.UUID
	singles  func(pgx.BatchResults, map[uuid.UUID]bool) (map[eventstore.Position]uuid.UUID, error)
}

// prepare decodes the runner's batch.
func (r *runner) prepare(st *partition, batch []*sarama.ConsumerMessage, envs envelopes) *work {
	w := &work{r: r, st: st, batch: batch}
	w.events, w.failed, w.streamIDs = r.decode(batch, envs)
	return w
}

// commit applies the works in one transaction of two or three round trips,
// however many works there are: BEGIN with the reads of the versions of the
// works' streams new to their runners (and of their one-event streams' rows
// and event ids), when there are any; then (after each work's events are
// put in stream order and reduced) every work's writes, failures, versions
// and checkpoint, and COMMIT. A COPY of many Append rows of a table adds
// its round trip before the writes; a hole or an event at or below its
// stream's version adds the event store's reads. Dead letters are published
// after the commit: the failure is recorded in PostgreSQL first.
func commit(ctx context.Context, pool *pgxpool.Pool, works []*work) error {
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return err
	}
	// A connection left inside a transaction is destroyed on release, never reused.
	defer conn.Release()
	results, err := transact(ctx, conn.Conn(), works)
	if err != nil {
		if conn.Conn().PgConn().TxStatus() != 'I' {
			if _, rbErr := conn.Conn().Exec(context.WithoutCancel(ctx), `ROLLBACK`); rbErr != nil {
				conn.Conn().Close(context.WithoutCancel(ctx)) //nolint:errcheck
			}
		}
		return err
	}
	for i, w := range works {
		w.committed(ctx, results[i])
	}
	return nil
}

// committed records what a committed work did, in memory and in the metrics,
// and publishes its dead letters.
func (w *work) committed(ctx context.Context, res transacted) {
	r := w.r
	w.st.committed(w.batch[len(w.batch)-1].Offset+1, res.known, res.touched)
	if res.indexed {
		r.indexesBuilt()
	}
	batchesApplied.WithLabelValues(r.p.Name()).Inc()
	eventsApplied.WithLabelValues(r.p.Name()).Add(float64(res.applied))
	eventsParked.WithLabelValues(r.p.Name()).Add(float64(len(res.parked))) // counted once committed: a rolled-back try is tried again
	r.deadLetter(ctx, res.parked)
}

// envelopes are a claimed batch's records decoded once, for every runner
// that applies them (nil: each decodes its own).
type envelopes map[*sarama.ConsumerMessage]decodedEnvelope

type decodedEnvelope struct {
	ev  eventstore.Event
	err error
}

func (envs envelopes) decode(msg *sarama.ConsumerMessage) (eventstore.Event, error) {
	if envs == nil {
		return eventstore.DecodeEvent(msg.Value)
	}
	if d, ok := envs[msg]; ok {
		return d.ev, d.err
	}
	ev, err := eventstore.DecodeEvent(msg.Value)
	if err == nil {
		// Every runner's reducers read the same payload: each payload
		// type decoded once for all of them.
		ev = ev.SharingDecodes()
	}
	envs[msg] = decodedEnvelope{ev, err}
	return ev, err
}

// decode reads the batch's envelopes, passing over skipped stream types; a
// record that does not decode is a failure. streamIDs are the streams of
// the decoded events whose versions are tracked, each once.
func (r *runner) decode(batch []*sarama.ConsumerMessage, envs envelopes) (events []decoded, failed []failure, streamIDs []string) {
	events = make([]decoded, 0, len(batch))
	seen := make(map[string]bool, len(batch))
	for _, msg := range batch {
		if r.skipped(msg) {
			continue
		}
		ev, err := envs.decode(msg)
		if err != nil {
			failed = append(failed, failure{msg, err.Error()})
			continue
		}
		if len(r.skips) > 0 && slices.Contains(r.skips, ev.StreamType) {
			continue
		}
		if _, ok := r.singles[ev.StreamType]; ok {
			if ev.StreamVersion != 1 {
				failed = append(failed, failure{msg, fmt.Sprintf("stream type %s is declared to hold one event a stream (OneEventStreams), and %s@%d came",
					ev.StreamType, ev.StreamID, ev.StreamVersion)})
				continue
			}
			events = append(events, decoded{msg: msg, ev: ev, single: true})
			continue
		}
		events = append(events, decoded{msg: msg, ev: ev})
		if !seen[ev.StreamID] {
			seen[ev.StreamID] = true
			streamIDs = append(streamIDs, ev.StreamID)
		}
	}
	return events, failed, streamIDs
}

// transacted is what a committed batch did.
type transacted struct {
	applied int
	parked  []failure
	indexed bool // it built the generation's deferred indexes
	// known are the versions it read (0: a stream not applied yet),
	// touched those it wrote.
	known, touched map[string]int64
}

// pipeline is a transaction's statements queued on its connection, sent
// together.
type pipeline struct {
	conn *pgx.Conn
	b    *pgx.Batch
}

// flush sends what is queued (BEGIN, while not sent yet): a COPY and the
// deferred indexes' build run inside the transaction, after it.
func (p *pipeline) flush(ctx context.Context) error {
	if len(p.b.QueuedQueries) == 0 {
		return nil
	}
	err := p.conn.SendBatch(ctx, p.b).Close()
	p.b = &pgx.Batch{}
	return err
}

// transact runs the works' transaction on conn; on an error the caller
// rolls back what is left open.
func transact(ctx context.Context, conn *pgx.Conn, works []*work) ([]transacted, error) {
	p := &pipeline{conn: conn, b: &pgx.Batch{}}
	p.b.Queue(`BEGIN`)
	reads := false
	for _, w := range works {
		reads = w.queueReads(p.b) || reads
	}
	if reads {
		br := conn.SendBatch(ctx, p.b)
		_, err := br.Exec() // BEGIN
		for _, w := range works {
			if err == nil {
				err = w.readResults(br)
			}
		}
		if err = errors.Join(err, br.Close()); err != nil {
			return nil, err
		}
		p.b = &pgx.Batch{}
	}
	results := make([]transacted, len(works))
	for i, w := range works {
		var err error
		if results[i], err = w.write(ctx, p); err != nil {
			return nil, fmt.Errorf("%s: %w", w.r.p.Name(), err)
		}
	}
	queueStreamVersions(p.b, works, results)
	// COMMIT rides in the same round trip: a statement the server refuses
	// skips the rest of the pipeline, COMMIT included.
	p.b.Queue(`COMMIT`)
	return results, p.flush(ctx)
}

// queueReads queues the read of the versions of the work's streams the
// partition's memory does not hold, and of its one-event streams' rows and
// event ids; it reports whether it queued any.
func (w *work) queueReads(b *pgx.Batch) bool {
	w.versions = make(map[string]int64, len(w.streamIDs))
	w.applied = map[uuid.UUID]bool{}
	for _, id := range w.streamIDs {
		if v, ok := w.st.versions[id]; !ok {
			w.unknown = append(w.unknown, id)
		} else if v > 0 {
			w.versions[id] = v
		}
	}
	hasSingles := slices.ContainsFunc(w.events, func(d decoded) bool { return d.single })
	if len(w.unknown) == 0 && !hasSingles {
		return false
	}
	if len(w.unknown) > 0 {
		b.Queue(streamVersionsSQL, w.r.p.Name(), w.r.generation, w.unknown)
	}
	w.singles = w.r.queueSingles(b, w.events)
	return true
}

// readResults reads what queueReads queued, in its order.
func (w *work) readResults(br pgx.BatchResults) error {
	if w.singles == nil {
		return nil
	}
	w.read = make(map[string]int64, len(w.unknown))
	if len(w.unknown) > 0 {
		if err := readVersions(br, w.read); err != nil {
			return err
		}
	}
	var err error
	w.held, err = w.singles(br, w.applied)
	for _, id := range w.unknown {
		if v := w.read[id]; v > 0 {
			w.versions[id] = v
		}
	}
	return err
}

// write puts the work's events in stream order, reduces them and queues
// their writes, failures and checkpoint on p; the versions it applied
// (transacted.touched) are stored with the other works' by transact.
func (w *work) write(ctx context.Context, p *pipeline) (transacted, error) {
	r := w.r
	name := r.p.Name()
	var known map[string]int64
	if w.singles != nil {
		known = make(map[string]int64, len(w.unknown))
		for _, id := range w.unknown {
			known[id] = w.read[id]
		}
	}
	ordered, defects, err := r.sequence(ctx, p.conn, w.events, w.versions, w.applied, w.held)
	if err != nil {
		return transacted{}, err
	}
	failed := append(w.failed, defects...)
	var inserts rowGroups
	var counters counterGroups
	var updates updateGroups
	touched := map[string]int64{}
	count := 0
	pending := r.pendingIndexes()
	indexed := false
	for _, d := range ordered {
		stmts, err := r.p.Reduce(d.ev)
		if err != nil {
			failed = append(failed, failure{d.msg, err.Error()})
			continue
		}
		count++
		for _, s := range stmts {
			if s.indexed && len(pending) > 0 && !indexed {
				// Built before the batch's writes (its COPY included): the
				// statement finds its rows through them.
				if err := p.flush(ctx); err != nil {
					return transacted{}, err
				}
				if err := buildIndexes(ctx, p.conn, name, r.generation, pending); err != nil {
					return transacted{}, err
				}
				indexed = true
			}
			if s.row != nil {
				if err := inserts.add(s.row); err != nil {
					return transacted{}, err
				}
				continue
			}
			if s.counter != nil {
				if err := counters.add(s.counter); err != nil {
					return transacted{}, err
				}
				continue
			}
			if s.update != nil {
				if err := updates.add(s.update); err != nil {
					return transacted{}, err
				}
				continue
			}
			p.b.Queue(r.names.Replace(s.SQL), s.Args...)
		}
		if !d.single {
			touched[d.ev.StreamID] = d.ev.StreamVersion
		}
	}
	copies, err := inserts.queue(p.b, r.names)
	if err != nil {
		return transacted{}, err
	}
	if len(copies) > 0 {
		if err := p.flush(ctx); err != nil {
			return transacted{}, err
		}
	}
	for _, c := range copies {
		if _, err := p.conn.CopyFrom(ctx, pgx.Identifier{c.table}, c.columns, pgx.CopyFromRows(c.rows)); err != nil {
			return transacted{}, fmt.Errorf("copy %d rows into %s: %w", len(c.rows), c.table, err)
		}
	}
	if err := updates.queue(p.b, r.names); err != nil {
		return transacted{}, err
	}
	if err := counters.queue(p.b, r.names); err != nil {
		return transacted{}, err
	}
	for _, f := range failed {
		queueFailure(p.b, name, r.generation, f.msg, 1, f.reason)
	}
	queueCheckpoint(p.b, name, r.generation, w.st, w.batch[len(w.batch)-1])
	return transacted{applied: count, parked: failed, indexed: indexed, known: known, touched: touched}, nil
}

// streamVersionsUpsert stores the versions a transaction applied, of every
// work's streams: rows of (projection, generation, stream, version).
const streamVersionsUpsert = `INSERT INTO proj_stream_versions (projection, generation, stream_id, version)
	SELECT * FROM unnest($1::text[], $2::int[], $3::text[], $4::bigint[])
	ON CONFLICT (projection, generation, stream_id) DO UPDATE SET version = EXCLUDED.version
	WHERE proj_stream_versions.version < EXCLUDED.version`

// queueStreamVersions queues one statement for the stream versions every
// work of the transaction applied (its results' touched), after every
// work's checkpoint: a statement a projection a batch cost the live group's
// transaction the same rows plus a statement's start-up each.
func queueStreamVersions(b *pgx.Batch, works []*work, results []transacted) {
	n := 0
	for _, res := range results {
		n += len(res.touched)
	}
	if n == 0 {
		return
	}
	names, gens := make([]string, 0, n), make([]int32, 0, n)
	ids, vs := make([]string, 0, n), make([]int64, 0, n)
	for i, w := range works {
		for id, v := range results[i].touched {
			names, gens = append(names, w.r.p.Name()), append(gens, int32(w.r.generation))
			ids, vs = append(ids, id), append(vs, v)
		}
	}
	b.Queue(streamVersionsUpsert, names, gens, ids, vs)
}

// queueSingles queues, for the batch's events of one-event streams, the
// read of those whose rows are in the projection (one query per table) and
// of the event ids the event store holds at their positions. read fills
// applied and returns the held ids.
func (r *runner) queueSingles(b *pgx.Batch, events []decoded) func(pgx.BatchResults, map[uuid.UUID]bool) (map[eventstore.Position]uuid.UUID, error) {
	byTable := map[string][]uuid.UUID{}
	var tables []string
	var positions []eventstore.Position
	for _, d := range events {
		if !d.single {
			continue
		}
		t := r.singles[d.ev.StreamType]
		if _, ok := byTable[t]; !ok {
			tables = append(tables, t)
		}
		byTable[t] = append(byTable[t], d.ev.ID)
		positions = append(positions, eventstore.Position{StreamID: d.ev.StreamID, Version: d.ev.StreamVersion})
	}
	if len(positions) == 0 {
		return func(pgx.BatchResults, map[uuid.UUID]bool) (map[eventstore.Position]uuid.UUID, error) { return nil, nil }
	}
	for _, t := range tables {
		b.Queue(`SELECT e.id FROM unnest($1::uuid[]) AS e(id) WHERE EXISTS (SELECT 1 FROM `+t+` t WHERE t.event_id = e.id)`, byTable[t])
	}
	readHeld := eventstore.QueueEventIDs(b, positions)
	return func(br pgx.BatchResults, applied map[uuid.UUID]bool) (map[eventstore.Position]uuid.UUID, error) {
		for range tables {
			rows, err := br.Query()
			if err != nil {
				return nil, err
			}
			for rows.Next() {
				var id uuid.UUID
				if err := rows.Scan(&id); err != nil {
					rows.Close()
					return nil, err
				}
				applied[id] = true
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				return nil, err
			}
		}
		return readHeld(br)
	}
}

// readVersions reads the stream versions.
func readVersions(br pgx.BatchResults, versions map[string]int64) error {
	rows, err := br.Query()
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var v int64
		if err := rows.Scan(&id, &v); err != nil {
			return err
		}
		if v > 0 {
			versions[id] = v
		}
	}
	return rows.Err()
}

// queueCheckpoint moves the partition's checkpoint past last, from where
// the runner stored it (an insert when it stored none): when that moved no
// row, another consumer moved it, and proj_checkpoint_moved raises PJ409,
// which rolls the transaction back.
func queueCheckpoint(b *pgx.Batch, name string, generation int, st *partition, last *sarama.ConsumerMessage) {
	const moved = ` SELECT proj_checkpoint_moved(format('of %s g%s %s/%s', $1::text, $2::int, $3::text, $4::int))
		FROM (SELECT count(*) AS n FROM moved) c WHERE c.n = 0`
	if st.stored == nil {
		b.Queue(`WITH moved AS (INSERT INTO proj_checkpoints (projection, generation, topic, partition, next_offset, updated_at)
			VALUES ($1, $2, $3, $4, $5, now()) ON CONFLICT DO NOTHING RETURNING 1)`+moved,
			name, generation, st.topic, st.id, last.Offset+1)
		return
	}
	b.Queue(`WITH moved AS (UPDATE proj_checkpoints SET next_offset = $5, updated_at = now()
		WHERE projection = $1 AND generation = $2 AND topic = $3 AND partition = $4 AND next_offset = $6 RETURNING 1)`+moved,
		name, generation, st.topic, st.id, last.Offset+1, *st.stored)
}

func queueFailure(b *pgx.Batch, name string, generation int, msg *sarama.ConsumerMessage, attempts int, reason string) {
	id, typ := headerValue(msg, eventstore.HeaderEventID), headerValue(msg, eventstore.HeaderEventType)
	b.Queue(`INSERT INTO proj_failures (projection, generation, topic, partition, "offset", event_id, event_type, attempts, reason)
		VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9) ON CONFLICT DO NOTHING`,
		name, generation, msg.Topic, msg.Partition, msg.Offset, id, typ, attempts, reason)
}

// park records an event that failed every attempt on its own and moves the
// checkpoint past it, so one bad event does not stop the projection; the
// record is committed before the dead letter is sent.
func (r *runner) park(ctx context.Context, st *partition, msg *sarama.ConsumerMessage, attempts int, reason string) error {
	b := &pgx.Batch{}
	queueFailure(b, r.p.Name(), r.generation, msg, attempts, reason)
	queueCheckpoint(b, r.p.Name(), r.generation, st, msg)
	for {
		err := pgx.BeginFunc(ctx, r.pool, func(tx pgx.Tx) error { return tx.SendBatch(ctx, b).Close() })
		if err == nil || !eventstore.IsTransient(err) || ctx.Err() != nil {
			if err == nil {
				st.committed(msg.Offset+1, nil, nil)
				eventsParked.WithLabelValues(r.p.Name()).Inc()
				r.deadLetter(ctx, []failure{{msg, reason}})
			}
			return err
		}
		retry.Sleep(ctx, r.cfg.MaxBackoff)
	}
}

// deadLetter copies recorded failures to the dead-letter topic for tooling.
// proj_failures is the record; a broker that does not take the copy is
// retried a few times and then logged, never a reason to apply the batch again.
func (r *runner) deadLetter(ctx context.Context, failed []failure) {
	for _, f := range failed {
		var err error
		for try := 1; try <= 3; try++ {
			if err = r.dead.Park(ctx, r.p.Name(), f.msg, f.reason); err == nil || ctx.Err() != nil {
				break
			}
			retry.Sleep(ctx, r.cfg.RetryBackoff*time.Duration(try))
		}
		if err != nil {
			r.log.Error("projection: dead letter not published (the failure is recorded in proj_failures)",
				"projection", r.p.Name(), "topic", f.msg.Topic, "partition", f.msg.Partition, "offset", f.msg.Offset, "err", err)
		}
	}
}

func headerValue(msg *sarama.ConsumerMessage, key string) string {
	for _, h := range msg.Headers {
		if string(h.Key) == key {
			return string(h.Value)
		}
	}
	return ""
}
