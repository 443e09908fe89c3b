// Package reactor runs reactors (process managers): consumers of the log
// that issue commands instead of writing read models. Each reactor has a
// consumer group of its own and checkpoints in PostgreSQL
// (reactor_checkpoints), apart from the projections and their generations,
// so rebuilding a read model never re-fires a reactor.
//
// A reactor's commands are their own transactions, so an event is handled
// at least once: after a crash, a redelivery or a reset of the group's
// checkpoints, the event comes again. Effects happen once because every
// command a reactor issues carries an idempotency key derived from the
// source event id and the step (Key): the event store answers a repeat with
// the first result and appends nothing.
package reactor

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/IBM/sarama"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/internal/migrate"

	"github.com/platform/backend/internal/retry"
)

//go:embed migrations/*.sql
var migrations embed.FS

// Migrate creates the reactors' checkpoint and failure tables.
func Migrate(ctx context.Context, pool *pgxpool.Pool) error {
	return migrate.Apply(ctx, pool, "reactors", migrations, "migrations")
}

// Reactor reacts to events by issuing commands.
type Reactor interface {
	// Name is stable: it names the consumer group and the checkpoint rows.
	Name() string
	// Contexts are the bounded contexts whose topics it reads.
	Contexts() []string
	// Types are the event types it reacts to; others pass without a call.
	Types() []string
	// React issues the event's commands, each with an idempotency key from
	// Key. It returns nil when done (an outcome the reactor expects, such as
	// "already resolved", included), an outage (commands.IsOutage) to be
	// waited out, or another error: tried again a few times, then the event
	// is parked.
	React(ctx context.Context, e eventstore.Event) error
}

// A Preparer is a Reactor told of each batch's events (those of its types,
// in order) before it reacts to them one by one: it reads in one query what
// each reaction would read alone, and hands it to React in the context it
// returns. Everything it reads is read after every event of the batch was
// committed (the relay publishes committed events only), as a reaction's own
// read would be. A failed read returns ctx as it was: React reads alone.
type Preparer interface {
	Prepare(ctx context.Context, events []eventstore.Event) context.Context
}

// A Selector is a Reactor whose types it reacts to only when something it
// reads names them (the agent's event triggers take every platform event
// type, and the flows name a few). It is told each batch's event types of
// its own, from the records' type headers before any record is decoded, and
// answers those it reacts to in this batch: the events of the others pass
// as other types' do (not decoded, not handed to React, and a batch of
// them alone writes no checkpoint: Config.PassOverFor). It reads after every
// event of the batch was committed, as Prepare does, so its answer is what
// React would have found. A failed read answers an error: every type is
// taken, as without a Selector.
type Selector interface {
	Select(ctx context.Context, types []string) (map[string]bool, error)
}

// Key is the idempotency key of one step of a reactor for one event:
// "reactor:<reactor>:<event id>:<step>". Deterministic, so every delivery
// of the event issues the same commands under the same keys.
func Key(reactor string, e eventstore.Event, step string) string {
	return "reactor:" + reactor + ":" + e.ID.String() + ":" + step
}

// Meta is the Meta of a reactor's command for one step: the event's
// organization, a system actor named after the reactor, the step's key, and
// the event as the cause (the audit view shows why the command happened).
func Meta(reactor string, e eventstore.Event, step string) commands.Meta {
	key := Key(reactor, e, step)
	correlation := e.CorrelationID
	if correlation == "" {
		correlation = e.ID.String()
	}
	return commands.Meta{OrganizationID: e.OrganizationID, Actor: eventstore.Actor{ID: "reactor:" + reactor, Type: "system"},
		IdempotencyKey: key, RequestHash: eventstore.HashRequest([]byte(key)), CorrelationID: correlation, CausationID: e.ID.String()}
}

// Config tunes the reactors; zero values take the defaults.
type Config struct {
	Kafka     eventstore.KafkaConfig
	BatchSize int // events per checkpoint; default 100
	// Attempts is how many times an event whose handling fails (not an
	// outage) is tried before it is parked; default 3. A rejection by the
	// domain (commands.IsRejection) parks at once: it would not change.
	Attempts int
	// RetryBackoff is the pause after a failure (times the try), and the
	// first pause of an outage, which doubles up to MaxBackoff. Defaults
	// 200ms and 5s.
	RetryBackoff time.Duration
	MaxBackoff   time.Duration
	// PassOverFor is how long the checkpoint may stay behind batches holding
	// no event of the reactor's types (nothing handled, nothing parked):
	// such a batch writes no checkpoint until then, or until the partition
	// has been quiet for a second. Re-reading them after a crash costs a
	// pass over them again, nothing more. Default 1s.
	PassOverFor time.Duration
}

func (c Config) WithDefaults() Config {
	c.Kafka = c.Kafka.WithDefaults()
	if c.BatchSize == 0 {
		c.BatchSize = 100
	}
	if c.Attempts == 0 {
		c.Attempts = 3
	}
	if c.RetryBackoff == 0 {
		c.RetryBackoff = 200 * time.Millisecond
	}
	if c.MaxBackoff == 0 {
		c.MaxBackoff = max(5*time.Second, c.RetryBackoff)
	}
	if c.PassOverFor == 0 {
		c.PassOverFor = time.Second
	}
	return c
}

func (c Config) Validate() error {
	var problems []error
	if c.BatchSize < 1 || c.Attempts < 1 {
		problems = append(problems, errors.New("reactors: batch size and attempts must be at least 1"))
	}
	if c.RetryBackoff <= 0 || c.MaxBackoff < c.RetryBackoff {
		problems = append(problems, errors.New("reactors: retry backoff must be positive and at most the maximum backoff"))
	}
	if c.PassOverFor < 0 {
		problems = append(problems, errors.New("reactors: the pass-over time must not be negative"))
	}
	return errors.Join(append(problems, c.Kafka.Validate())...)
}

// DeadLetters copies a parked event to the dead-letter topic
// (projections.DeadLetterTopic does).
type DeadLetters interface {
	Park(ctx context.Context, consumer string, msg *sarama.ConsumerMessage, reason string) error
}

// Runner runs every registered reactor, each in its own consumer group.
type Runner struct {
	pool     *pgxpool.Pool
	cfg      Config
	dead     DeadLetters
	log      *slog.Logger
	reactors []Reactor
}

func NewRunner(pool *pgxpool.Pool, cfg Config, dead DeadLetters, log *slog.Logger, rs ...Reactor) (*Runner, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if pool == nil || dead == nil || log == nil {
		return nil, errors.New("reactors: a pool, dead letters and a logger are required")
	}
	seen := map[string]bool{}
	for _, r := range rs {
		if r.Name() == "" || seen[r.Name()] {
			return nil, fmt.Errorf("reactors: reactor %q has no name or is registered twice", r.Name())
		}
		seen[r.Name()] = true
		// At 0 from the start: alerts on parked events see every reactor.
		handled.WithLabelValues(r.Name())
		parked.WithLabelValues(r.Name())
	}
	return &Runner{pool: pool, cfg: cfg, dead: dead, log: log, reactors: rs}, nil
}

// GroupID is the consumer group of a reactor.
func (r *Runner) GroupID(name string) string {
	return r.cfg.Kafka.Topics.Group("reactor." + name)
}

// Run consumes until ctx ends.
func (r *Runner) Run(ctx context.Context) error {
	var wg sync.WaitGroup
	for _, re := range r.reactors {
		wg.Go(func() { r.run(ctx, re) })
	}
	wg.Wait()
	return nil
}

func (r *Runner) run(ctx context.Context, re Reactor) {
	log := r.log.With("reactor", re.Name())
	group, err := sarama.NewConsumerGroup(r.cfg.Kafka.Brokers, r.GroupID(re.Name()), r.cfg.Kafka.ConsumerGroupConfig())
	for err != nil {
		// The broker may be down at start: try again rather than give up.
		log.Warn("reactor: consumer group", "err", err)
		if !retry.Sleep(ctx, r.cfg.MaxBackoff) {
			return
		}
		group, err = sarama.NewConsumerGroup(r.cfg.Kafka.Brokers, r.GroupID(re.Name()), r.cfg.Kafka.ConsumerGroupConfig())
	}
	defer group.Close()
	var topics []string
	for _, c := range re.Contexts() {
		topics = append(topics, r.cfg.Kafka.Topics.ForContext(c))
	}
	types := map[string]string{}
	for _, t := range re.Types() {
		types[t] = t
	}
	h := &handler{re: re, types: types, pool: r.pool, cfg: r.cfg, dead: r.dead, log: log}
	log.Info("reactor: running", "topics", topics)
	for ctx.Err() == nil {
		if err := group.Consume(ctx, topics, h); err != nil && ctx.Err() == nil {
			log.Warn("reactor: consume", "err", err)
			retry.Sleep(ctx, time.Second)
		}
	}
}

// handler is one reactor's sarama consumer group handler: each claimed
// partition is read in order, each event handled before the next, and the
// checkpoint written after each batch that handled or parked an event (a
// batch of other types' events only: see Config.PassOverFor).
type handler struct {
	re    Reactor
	types map[string]string // each of the reactor's types, by itself
	pool  *pgxpool.Pool
	cfg   Config
	dead  DeadLetters
	log   *slog.Logger
}

// Setup seeks every claimed partition to the checkpoint stored in
// PostgreSQL (the oldest offset for a reactor that has none: a new reactor
// sees the whole log, so its reactions must depend on what events say, as
// opt-in flags carried by them do).
func (h *handler) Setup(sess sarama.ConsumerGroupSession) error {
	return eventstore.SeekToCheckpoints(sess, h.pool, `SELECT next_offset FROM reactor_checkpoints
		WHERE reactor=$1 AND topic=$2 AND partition=$3`, h.re.Name())
}

func (h *handler) Cleanup(sarama.ConsumerGroupSession) error { return nil }

type failure struct {
	msg      *sarama.ConsumerMessage
	attempts int
	reason   string
}

func (h *handler) ConsumeClaim(sess sarama.ConsumerGroupSession, claim sarama.ConsumerGroupClaim) error {
	ctx := sess.Context()
	lag := lagOf(h.re.Name(), claim.Topic(), claim.Partition())
	batchCount, recordCount := batches.WithLabelValues(h.re.Name()), records.WithLabelValues(h.re.Name())
	var lastHandled, recorded time.Time
	var passed *sarama.ConsumerMessage // the last record passed over without a checkpoint
	record := func(last *sarama.ConsumerMessage, failed []failure) error {
		if err := h.checkpoint(ctx, last, failed); err != nil {
			return err
		}
		recorded, passed = time.Now(), nil
		sess.MarkMessage(last, "")
		return nil
	}
	next := claim.InitialOffset()
	reader := &eventstore.BatchReader{Claim: claim, Size: h.cfg.BatchSize,
		Idle: func() {
			if passed != nil {
				_ = record(passed, nil) // fails only when ctx ended
			}
			lag.observe(claim.HighWaterMarkOffset(), next, lastHandled)
		}}
	var sorted sorted
	for {
		batch := reader.Next(ctx)
		if batch == nil {
			return nil
		}
		batchCount.Inc()
		recordCount.Add(float64(len(batch)))
		var failed []failure
		sorted.sort(ctx, h, batch)
		bctx := ctx
		if p, ok := h.re.(Preparer); ok && len(sorted.mine) > 0 {
			bctx = p.Prepare(ctx, sorted.mine)
		}
		for _, d := range sorted.records {
			f, ok := h.handle(bctx, d)
			if ctx.Err() != nil {
				return nil // not checkpointed: the next owner handles the batch again (idempotent)
			}
			if !ok {
				failed = append(failed, f)
			}
		}
		mine := len(sorted.mine)
		sorted.release()
		last := batch[len(batch)-1]
		// Every reactor reads whole topics, most of whose events are of
		// other types: a checkpoint transaction (a durable commit) a batch of
		// those was most of what a reactor cost under a steady trickle.
		if mine == 0 && len(failed) == 0 && time.Since(recorded) < h.cfg.PassOverFor {
			passed = last
		} else {
			if err := record(last, failed); err != nil {
				return nil // only when ctx ended
			}
			h.deadLetter(ctx, failed)
		}
		next, lastHandled = last.Offset+1, last.Timestamp
		lag.observe(claim.HighWaterMarkOffset(), next, lastHandled)
	}
}

// decoded is a batch's record to handle: its event when it is of the
// reactor's types (mine), or why it could not be read.
type decoded struct {
	msg  *sarama.ConsumerMessage
	ev   eventstore.Event
	mine bool
	err  error
}

// sorted is a claimed partition's batch sorted for its reactor: the records
// to handle (those of its types, selected for the batch, and those without
// a type header, decoded to tell) and the events among them of its types.
// Its slices are kept from batch to batch: most batches hold no record of
// the reactor's types, and a reactor's cost a record is what it spends to
// tell so (every reactor reads every record of its topics).
type sorted struct {
	records []decoded
	mine    []eventstore.Event
	types   []string // the reactor's types the batch's headers name
	named   []string // each record's type of the reactor's ("" for another type), or untyped
}

// untyped marks, in sorted.named, a record without a type header.
const untyped = "\x00"

// sort reads the batch's records of the reactor's types (and, for a
// Selector, of those it selected for the batch); an event of another type
// passes without decoding (the relay writes the type in a header, and an
// upcast never changes it); a record without the header is decoded to
// tell, and taken when it is of the reactor's types.
func (s *sorted) sort(ctx context.Context, h *handler, batch []*sarama.ConsumerMessage) {
	s.named, s.types = s.named[:0], s.types[:0]
	for _, msg := range batch {
		t, ok := h.typeOf(msg)
		if !ok {
			t = untyped
		} else if t != "" && !slices.Contains(s.types, t) {
			s.types = append(s.types, t)
		}
		s.named = append(s.named, t)
	}
	selected := h.selected(ctx, s.types)
	for i, msg := range batch {
		t := s.named[i]
		if t == "" || t != untyped && selected != nil && !selected[t] {
			continue
		}
		ev, err := eventstore.DecodeEvent(msg.Value)
		if err != nil {
			s.records = append(s.records, decoded{msg: msg, err: err})
			continue
		}
		_, mine := h.types[ev.Type]
		s.records = append(s.records, decoded{msg: msg, ev: ev, mine: mine})
		if mine {
			s.mine = append(s.mine, ev)
		}
	}
}

// release drops the batch's records and events (their buffers stay).
func (s *sorted) release() {
	clear(s.records)
	clear(s.mine)
	s.records, s.mine = s.records[:0], s.mine[:0]
}

// typeOf is the record's event type when it is one of the reactor's, ""
// when it is another; ok is false without a type header. It allocates
// nothing: the name is the reactor's own string.
func (h *handler) typeOf(msg *sarama.ConsumerMessage) (t string, ok bool) {
	for _, hd := range msg.Headers {
		if string(hd.Key) == eventstore.HeaderEventType {
			return h.types[string(hd.Value)], len(hd.Value) > 0
		}
	}
	return "", false
}

// selected is what a Selector reactor reacts to in the batch, of the
// types its records' headers name; nil (every one of its types) for other
// reactors, a batch none of whose records has a type of the reactor's, or a
// failed read.
func (h *handler) selected(ctx context.Context, types []string) map[string]bool {
	s, ok := h.re.(Selector)
	if !ok || len(types) == 0 {
		return nil
	}
	sel, err := s.Select(ctx, types)
	if err != nil {
		return nil
	}
	if sel == nil {
		sel = map[string]bool{} // none of them
	}
	return sel
}

// handle reacts to one event: outages are waited out without end, other
// failures tried Attempts times; ok is false when the event is to be parked.
func (h *handler) handle(ctx context.Context, d decoded) (failure, bool) {
	name := h.re.Name()
	msg, ev := d.msg, d.ev
	if d.err != nil {
		return failure{msg, 1, d.err.Error()}, false
	}
	if !d.mine {
		return failure{}, true
	}
	failures, waits := 0, 0
	for {
		err := h.re.React(ctx, ev)
		switch {
		case err == nil:
			handled.WithLabelValues(name).Inc()
			if waits > 0 {
				h.log.Info("reactor resumed", "event_id", ev.ID, "waited_tries", waits)
			}
			return failure{}, true
		case ctx.Err() != nil:
			return failure{}, true // the caller sees ctx and stops
		case commands.IsOutage(err):
			waits++
			waitsTotal.WithLabelValues(name).Inc()
			h.log.Warn("reactor waits out an outage", "event_id", ev.ID, "event_type", ev.Type, "try", waits, "err", err)
			retry.Sleep(ctx, retry.Backoff(h.cfg.RetryBackoff, waits, h.cfg.MaxBackoff))
			continue
		case commands.IsRejection(err):
			return failure{msg, failures + 1, err.Error()}, false
		}
		failures++
		if failures >= h.cfg.Attempts {
			return failure{msg, failures, err.Error()}, false
		}
		h.log.Warn("reactor: event failed", "event_id", ev.ID, "event_type", ev.Type, "attempt", failures, "err", err)
		retry.Sleep(ctx, h.cfg.RetryBackoff*time.Duration(failures))
	}
}

// checkpoint records the batch's failures and moves the partition's
// checkpoint past the batch in one transaction; an outage is waited out.
// The transaction is the batch's implicit one (pgx sends the statements and
// one Sync: all or none of them take effect), so it costs one round trip,
// not three with a BEGIN and a COMMIT of their own: a reactor that handles
// every event of a busy topic (the meters of each usage event) writes one a
// batch.
func (h *handler) checkpoint(ctx context.Context, last *sarama.ConsumerMessage, failed []failure) error {
	name := h.re.Name()
	for try := 1; ; try++ {
		b := &pgx.Batch{}
		for _, f := range failed {
			b.Queue(`INSERT INTO reactor_failures (reactor, topic, partition, "offset", event_id, event_type, attempts, reason)
				VALUES ($1,$2,$3,$4,$5,$6,$7,$8) ON CONFLICT DO NOTHING`,
				name, f.msg.Topic, f.msg.Partition, f.msg.Offset, header(f.msg, eventstore.HeaderEventID),
				header(f.msg, eventstore.HeaderEventType), f.attempts, f.reason)
		}
		b.Queue(`INSERT INTO reactor_checkpoints (reactor, topic, partition, next_offset, updated_at) VALUES ($1,$2,$3,$4, now())
			ON CONFLICT (reactor, topic, partition) DO UPDATE SET next_offset = EXCLUDED.next_offset, updated_at = now()`,
			name, last.Topic, last.Partition, last.Offset+1)
		err := h.pool.SendBatch(ctx, b).Close()
		if err == nil {
			parked.WithLabelValues(name).Add(float64(len(failed)))
			for _, f := range failed {
				h.log.Error("reactor: event parked", "topic", f.msg.Topic, "partition", f.msg.Partition, "offset", f.msg.Offset,
					"event_id", header(f.msg, eventstore.HeaderEventID), "reason", f.reason)
			}
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		// Failures and checkpoints are plain inserts: only an outage makes
		// them fail, so wait it out rather than move on unrecorded.
		waitsTotal.WithLabelValues(name).Inc()
		h.log.Warn("reactor: checkpoint waits", "try", try, "err", err)
		retry.Sleep(ctx, retry.Backoff(h.cfg.RetryBackoff, try, h.cfg.MaxBackoff))
	}
}

// deadLetter copies recorded failures to the dead-letter topic for tooling;
// reactor_failures is the record.
func (h *handler) deadLetter(ctx context.Context, failed []failure) {
	for _, f := range failed {
		if err := h.dead.Park(ctx, "reactor."+h.re.Name(), f.msg, f.reason); err != nil {
			h.log.Warn("reactor: dead letter not published (the failure is recorded in reactor_failures)", "err", err)
		}
	}
}

func header(msg *sarama.ConsumerMessage, key string) string {
	for _, hd := range msg.Headers {
		if string(hd.Key) == key {
			return string(hd.Value)
		}
	}
	return ""
}
