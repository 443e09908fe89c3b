package reactor_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/IBM/sarama"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/commands/reactor"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/internal/apptest"
)

const (
	typeTicked  = "rtest.clock.ticked"
	typeReacted = "rtest.echo.reacted"
)

// echo reacts to every ticked event with one command on an echo stream of
// the source's stream, under reactor.Meta's key. fail decides, per event
// and call, whether React fails first.
type echo struct {
	store *eventstore.Store
	calls atomic.Int32
	fail  func(e eventstore.Event, call int) error
	mu    sync.Mutex
	seen  map[uuid.UUID]int
}

func (*echo) Name() string       { return "rtest.echo" }
func (*echo) Contexts() []string { return []string{"rtest"} }
func (*echo) Types() []string    { return []string{typeTicked} }

func (r *echo) React(ctx context.Context, e eventstore.Event) error {
	r.calls.Add(1)
	r.mu.Lock()
	r.seen[e.ID]++
	call := r.seen[e.ID]
	r.mu.Unlock()
	if r.fail != nil {
		if err := r.fail(e, call); err != nil {
			return err
		}
	}
	_, err := commands.Run(ctx, r.store, reactor.Meta(r.Name(), e, "echo"), "rtest.echo", "echo:"+e.StreamID,
		func(history []event.Recorded) ([]event.Change, int, error) {
			return []event.Change{event.New(typeReacted, map[string]string{"source": e.ID.String()})}, len(history) + 1, nil
		})
	return err
}

type deadLetters struct{ n atomic.Int32 }

func (d *deadLetters) Park(context.Context, string, *sarama.ConsumerMessage, string) error {
	d.n.Add(1)
	return nil
}

type rig struct {
	t        *testing.T
	pool     *pgxpool.Pool
	kc       eventstore.KafkaConfig
	topic    string
	producer sarama.SyncProducer
	store    *eventstore.Store
	dead     *deadLetters
}

func newRig(t *testing.T) *rig {
	t.Helper()
	pool, kc := apptest.Infra(t, "reactor", []func(context.Context, *pgxpool.Pool) error{eventstore.Migrate, reactor.Migrate},
		func(kc eventstore.KafkaConfig) []string { return []string{kc.Topics.ForContext("rtest")} })
	producer, err := sarama.NewSyncProducer(kc.Brokers, kc.ProducerConfig())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { producer.Close() })
	return &rig{t: t, pool: pool, kc: kc, topic: kc.Topics.ForContext("rtest"), producer: producer,
		store: eventstore.NewStore(pool, kc.Topics), dead: &deadLetters{}}
}

// run starts a runner with the reactor; the returned func stops it.
func (r *rig) run(re reactor.Reactor) func() {
	r.t.Helper()
	return r.runOn(r.pool, re)
}

// runOn starts a runner with the reactor on pool (its checkpoints' pool).
func (r *rig) runOn(pool *pgxpool.Pool, re reactor.Reactor) func() {
	r.t.Helper()
	runner, err := reactor.NewRunner(pool, reactor.Config{Kafka: r.kc, Attempts: 2, RetryBackoff: 10 * time.Millisecond,
		MaxBackoff: 50 * time.Millisecond}, r.dead, slog.New(slog.NewTextHandler(io.Discard, nil)), re)
	if err != nil {
		r.t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = runner.Run(ctx) }()
	return func() { cancel(); <-done }
}

func tick(stream string, version int64) eventstore.Event {
	return eventstore.Event{ID: uuid.Must(uuid.NewV7()), Type: typeTicked, SchemaVersion: 1, StreamType: "rtest.clock",
		StreamID: stream, StreamVersion: version, OrganizationID: "org-rtest", Payload: []byte(`{}`),
		Actor: eventstore.Actor{ID: "tester", Type: "system"}, OccurredAt: time.Now().UTC(), RecordedAt: time.Now().UTC()}
}

// publish puts the events on the log (all keyed by one stream: one
// partition, in order) and returns the offset after the last.
func (r *rig) publish(events ...eventstore.Event) (int32, int64) {
	r.t.Helper()
	var part int32
	var off int64
	for _, e := range events {
		m, err := e.ToMessage(r.topic)
		if err != nil {
			r.t.Fatal(err)
		}
		if part, off, err = r.producer.SendMessage(m); err != nil {
			r.t.Fatal(err)
		}
	}
	return part, off + 1
}

func (r *rig) publishRaw(key string, value []byte) {
	r.t.Helper()
	if _, _, err := r.producer.SendMessage(&sarama.ProducerMessage{Topic: r.topic, Key: sarama.StringEncoder(key),
		Value: sarama.ByteEncoder(value)}); err != nil {
		r.t.Fatal(err)
	}
}

func (r *rig) checkpoint(part int32) int64 {
	var next int64
	_ = r.pool.QueryRow(context.Background(), `SELECT next_offset FROM reactor_checkpoints WHERE reactor='rtest.echo'
		AND topic=$1 AND partition=$2`, r.topic, part).Scan(&next)
	return next
}

func (r *rig) effects() int {
	r.t.Helper()
	var n int
	if err := r.pool.QueryRow(context.Background(), `SELECT count(*) FROM es_events WHERE event_type=$1`, typeReacted).Scan(&n); err != nil {
		r.t.Fatal(err)
	}
	return n
}

func (r *rig) waitCheckpoint(part int32, next int64) {
	r.t.Helper()
	apptest.Eventually(r.t, 60*time.Second, "the reactor's checkpoint to reach the end of the log", func() bool {
		return r.checkpoint(part) >= next
	})
}

// Every event has its effect once: a relay duplicate (the same event at a
// later offset), a restart, and a replay of the reactor's consumer group
// from the start (checkpoints deleted) each deliver events again, and the
// commands' idempotency keys make every repeat a replay.
func TestReactorEffectsOnceAcrossRedeliveryAndReplay(t *testing.T) {
	r := newRig(t)
	re := &echo{store: r.store, seen: map[uuid.UUID]int{}}
	var events []eventstore.Event
	for v := int64(1); v <= 5; v++ {
		events = append(events, tick("clock-1", v))
	}
	events = append(events, events[2]) // the relay sent v3 twice
	part, end := r.publish(events...)

	stop := r.run(re)
	r.waitCheckpoint(part, end)
	stop()
	if re.calls.Load() != 6 || r.effects() != 5 {
		t.Fatalf("first run: %d calls, %d effects; want 6 and 5", re.calls.Load(), r.effects())
	}

	// A replay of the consumer group: every event comes again.
	if _, err := r.pool.Exec(context.Background(), `DELETE FROM reactor_checkpoints`); err != nil {
		t.Fatal(err)
	}
	stop = r.run(re)
	r.waitCheckpoint(part, end)
	stop()
	if re.calls.Load() != 12 || r.effects() != 5 {
		t.Fatalf("after the replay: %d calls, %d effects; want 12 and 5", re.calls.Load(), r.effects())
	}
	// The commands name their cause.
	var withCause int
	if err := r.pool.QueryRow(context.Background(), `SELECT count(*) FROM es_events WHERE event_type=$1 AND causation_id = ANY($2)`,
		typeReacted, []string{events[0].ID.String(), events[1].ID.String(), events[2].ID.String(), events[3].ID.String(),
			events[4].ID.String()}).Scan(&withCause); err != nil {
		t.Fatal(err)
	}
	if withCause != 5 {
		t.Fatalf("%d effects carry their source as causation id, want 5", withCause)
	}

	// A restart resumes after the checkpoint: nothing is handled again.
	calls := re.calls.Load()
	part, end = r.publish(tick("clock-1", 6))
	stop = r.run(re)
	r.waitCheckpoint(part, end)
	stop()
	if re.calls.Load() != calls+1 || r.effects() != 6 {
		t.Fatalf("after a restart: %d new calls, %d effects; want 1 and 6", re.calls.Load()-calls, r.effects())
	}
}

// A poisoned event is parked with its reason after Attempts and the reactor
// moves on; an undecodable record is parked at once; an outage is waited
// out, however many tries it takes, and never parks.
func TestReactorParksPoisonAndWaitsOutOutages(t *testing.T) {
	r := newRig(t)
	poison, outage := tick("clock-2", 2), tick("clock-2", 3)
	re := &echo{store: r.store, seen: map[uuid.UUID]int{}, fail: func(e eventstore.Event, call int) error {
		switch {
		case e.ID == poison.ID:
			return errors.New("cannot react to this one")
		case e.ID == outage.ID && call <= 4:
			return errs.Unavailable("database down", nil)
		}
		return nil
	}}
	r.publish(tick("clock-2", 1), poison)
	r.publishRaw("clock-2", []byte("not an envelope"))
	part, end := r.publish(outage, tick("clock-2", 4))
	stop := r.run(re)
	r.waitCheckpoint(part, end)
	stop()
	if r.effects() != 3 {
		t.Fatalf("%d effects, want 3 (all but the poisoned and the garbage)", r.effects())
	}
	rows, err := r.pool.Query(context.Background(), `SELECT event_id, attempts, reason FROM reactor_failures
		WHERE reactor='rtest.echo' ORDER BY "offset"`)
	if err != nil {
		t.Fatal(err)
	}
	type parked struct {
		id       string
		attempts int
		reason   string
	}
	var got []parked
	for rows.Next() {
		var p parked
		if err := rows.Scan(&p.id, &p.attempts, &p.reason); err != nil {
			t.Fatal(err)
		}
		got = append(got, p)
	}
	if len(got) != 2 || got[0].id != poison.ID.String() || got[0].attempts != 2 || got[0].reason != "cannot react to this one" ||
		got[1].id != "" || got[1].reason == "" {
		t.Fatalf("parked: %+v", got)
	}
	if r.dead.n.Load() != 2 {
		t.Fatalf("%d dead letters, want 2", r.dead.n.Load())
	}
	if re.seen[outage.ID] != 5 {
		t.Fatalf("the outage event was tried %d times, want 5 (4 outages, then handled)", re.seen[outage.ID])
	}
}

// A rejection by the domain would not change on a retry: parked at once.
func TestReactorParksRejectionAtOnce(t *testing.T) {
	r := newRig(t)
	bad := tick("clock-3", 1)
	re := &echo{store: r.store, seen: map[uuid.UUID]int{}, fail: func(e eventstore.Event, call int) error {
		if e.ID == bad.ID {
			return errs.Conflict("invalid_transition", "no")
		}
		return nil
	}}
	part, end := r.publish(bad, tick("clock-3", 2))
	stop := r.run(re)
	r.waitCheckpoint(part, end)
	stop()
	var attempts int
	if err := r.pool.QueryRow(context.Background(), `SELECT attempts FROM reactor_failures WHERE event_id=$1`, bad.ID.String()).Scan(&attempts); err != nil {
		t.Fatal(err)
	}
	if attempts != 1 || re.seen[bad.ID] != 1 || r.effects() != 1 {
		t.Fatalf("attempts %d, tries %d, effects %d; want 1, 1, 1", attempts, re.seen[bad.ID], r.effects())
	}
}

// A trickle of events of other types, each fetched alone, writes no
// checkpoint a batch (a durable commit each was most of what the gateway's
// reactors cost per completion at a moderate load); the checkpoint still
// reaches the end of the log once the partition is quiet.
func TestReactorPassesOverOtherTypesWithoutACheckpointEach(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	countCheckpointWrites(t, r)
	re := &echo{store: r.store, seen: map[uuid.UUID]int{}}
	stop := r.run(re)
	defer stop()
	part, end := r.publish(tick("clock-4", 1))
	r.waitCheckpoint(part, end)
	const others = 20
	for v := int64(1); v <= others; v++ {
		e := tick("other-4", v)
		e.Type, e.StreamType = "rtest.other.happened", "rtest.other"
		part, end = r.publish(e)
		// A trickle: each event comes in a fetch of its own. The pace is the
		// condition under test, not a wait for a result.
		time.Sleep(40 * time.Millisecond)
	}
	r.waitCheckpoint(part, end) // written once the partition is quiet
	var writes int
	if err := r.pool.QueryRow(ctx, `SELECT count(*) FROM checkpoint_writes`).Scan(&writes); err != nil {
		t.Fatal(err)
	}
	// The first event's checkpoint, one a second (PassOverFor) of the
	// trickle and the quiet partition's: a few, where each batch wrote one.
	if writes > 6 {
		t.Fatalf("%d checkpoint writes for 1 event handled and %d passed over one at a time, want at most 6", writes, others)
	}
	// An event of the reactor's types is still handled and checkpointed.
	part, end = r.publish(tick("clock-4", 2))
	apptest.Eventually(t, 60*time.Second, "the handled event's checkpoint", func() bool { return r.checkpoint(part) >= end })
	if r.effects() != 2 {
		t.Fatalf("%d effects, want 2", r.effects())
	}
}

// choosy is the echo reactor taking a second type, which it selects for
// no batch (as the agent's triggers do the types no flow names), and
// counting its reactions by type.
type choosy struct {
	*echo
	reacted sync.Map // type -> *atomic.Int32
}

const typeOther = "rtest.other.happened"

func (*choosy) Types() []string { return []string{typeTicked, typeOther} }

func (c *choosy) Select(_ context.Context, types []string) (map[string]bool, error) {
	return map[string]bool{typeTicked: slices.Contains(types, typeTicked)}, nil
}

func (c *choosy) React(ctx context.Context, e eventstore.Event) error {
	n, _ := c.reacted.LoadOrStore(e.Type, &atomic.Int32{})
	n.(*atomic.Int32).Add(1)
	if e.Type != typeTicked {
		return nil
	}
	return c.echo.React(ctx, e)
}

// A Selector's events of types it does not select for a batch pass as
// other types' do: not handed to React, not decoded (a record of such a
// type that does not decode is not parked), and a trickle of them writes
// no checkpoint a batch; the types it selects are handled as before.
func TestReactorSelectorPassesOverTypesItDoesNotSelect(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	countCheckpointWrites(t, r)
	re := &choosy{echo: &echo{store: r.store, seen: map[uuid.UUID]int{}}}
	stop := r.run(re)
	defer stop()
	part, end := r.publish(tick("clock-5", 1))
	r.waitCheckpoint(part, end)
	const others = 20
	for v := int64(1); v <= others; v++ {
		e := tick("other-5", v)
		e.Type, e.StreamType = typeOther, "rtest.other"
		m, err := e.ToMessage(r.topic)
		if err != nil {
			t.Fatal(err)
		}
		if v == others/2 {
			m.Value = sarama.ByteEncoder("not an envelope") // its type header says typeOther
		}
		if part, _, err = r.producer.SendMessage(m); err != nil {
			t.Fatal(err)
		}
		// A trickle: each event comes in a fetch of its own. The pace is the
		// condition under test, not a wait for a result.
		time.Sleep(40 * time.Millisecond)
	}
	part, end = r.publish(tick("clock-5", 2))
	apptest.Eventually(t, 60*time.Second, "the selected event's checkpoint", func() bool { return r.checkpoint(part) >= end })
	if n, ok := re.reacted.Load(typeOther); ok {
		t.Fatalf("React was handed %d events of a type the reactor did not select", n.(*atomic.Int32).Load())
	}
	if parked := r.dead.n.Load(); parked != 0 {
		t.Fatalf("%d records parked: the unselected type's undecodable record was decoded", parked)
	}
	var writes int
	if err := r.pool.QueryRow(ctx, `SELECT count(*) FROM checkpoint_writes`).Scan(&writes); err != nil {
		t.Fatal(err)
	}
	// The two handled events' checkpoints and one a second of the trickle:
	// a few, where each of its batches wrote one.
	if writes > 6 {
		t.Fatalf("%d checkpoint writes for 2 events handled and %d passed over one at a time, want at most 6", writes, others)
	}
	if r.effects() != 2 {
		t.Fatalf("%d effects, want 2", r.effects())
	}
}

func TestReactorConfigValidate(t *testing.T) {
	kafka := eventstore.KafkaConfig{Brokers: []string{"127.0.0.1:9092"}}
	tests := []struct {
		name string
		cfg  reactor.Config
		ok   bool
	}{
		{"defaults", reactor.Config{Kafka: kafka}, true},
		{"no broker", reactor.Config{}, false},
		{"negative batch", reactor.Config{Kafka: kafka, BatchSize: -1}, false},
		{"max backoff below retry backoff", reactor.Config{Kafka: kafka, RetryBackoff: time.Minute, MaxBackoff: time.Second}, false},
		{"negative pass-over time", reactor.Config{Kafka: kafka, PassOverFor: -time.Second}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.cfg.WithDefaults().Validate(); (err == nil) != tt.ok {
				t.Fatalf("Validate() = %v, want ok=%v", err, tt.ok)
			}
		})
	}
}

func TestKeyIsDeterministic(t *testing.T) {
	e := tick("s", 1)
	if reactor.Key("r", e, "open") != reactor.Key("r", e, "open") || reactor.Key("r", e, "open") == reactor.Key("r", e, "close") {
		t.Fatal("keys must be a function of reactor, event and step")
	}
	m := reactor.Meta("r", e, "open")
	if m.IdempotencyKey != "reactor:r:"+e.ID.String()+":open" || m.CausationID != e.ID.String() || m.OrganizationID != "org-rtest" {
		t.Fatalf("meta: %+v", m)
	}
}

// countCheckpointWrites makes every write of a reactor checkpoint add a row
// to checkpoint_writes, so a test counts the durable commits a reactor made.
func countCheckpointWrites(t *testing.T, r *rig) {
	t.Helper()
	for _, sql := range []string{`CREATE TABLE checkpoint_writes (at timestamptz NOT NULL DEFAULT now())`,
		`CREATE FUNCTION count_checkpoint_write() RETURNS trigger LANGUAGE plpgsql AS $$
			BEGIN INSERT INTO checkpoint_writes DEFAULT VALUES; RETURN NEW; END $$`,
		`CREATE TRIGGER checkpoint_written AFTER INSERT OR UPDATE ON reactor_checkpoints FOR EACH ROW EXECUTE FUNCTION count_checkpoint_write()`,
	} {
		if _, err := r.pool.Exec(context.Background(), sql); err != nil {
			t.Fatal(err)
		}
	}
}
