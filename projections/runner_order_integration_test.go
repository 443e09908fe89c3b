package projections_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/IBM/sarama"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/internal/apptest"
	"github.com/platform/backend/projections"
)

// ledger is a projection that records every event it applies, in the order
// it applies them. Reduce calls dropConnection (when set) first: it may ask
// for a statement that kills the transaction's connection, as a database
// restart does.
type ledger struct {
	dropConnection func(e eventstore.Event) bool
	refuse         func(e eventstore.Event) bool // a reducer error: the event is parked
	// schemaCalls counts Schema calls; the call numbered failSchemaCall
	// kills its connection, as a database restart does.
	schemaCalls    *atomic.Int32
	failSchemaCall int32
}

func (ledger) Name() string       { return "ledger" }
func (ledger) Contexts() []string { return []string{"ledger"} }
func (ledger) Tables() []string   { return []string{"ledger"} }
func (l ledger) Schema() []string {
	ddl := []string{`CREATE TABLE IF NOT EXISTS {{ledger}} (seq bigserial PRIMARY KEY, stream_id text, version bigint, event_id uuid)`}
	if l.schemaCalls != nil && l.schemaCalls.Add(1) == l.failSchemaCall {
		return append([]string{`SELECT pg_terminate_backend(pg_backend_pid())`}, ddl...)
	}
	return ddl
}
func (l ledger) Reduce(e eventstore.Event) ([]projections.Statement, error) {
	if l.refuse != nil && l.refuse(e) {
		return nil, fmt.Errorf("ledger refuses %s", e.ID)
	}
	var out []projections.Statement
	if l.dropConnection != nil && l.dropConnection(e) {
		out = append(out, projections.Exec(`SELECT pg_terminate_backend(pg_backend_pid())`))
	}
	return append(out, projections.Exec(`INSERT INTO {{ledger}} (stream_id, version, event_id) VALUES ($1, $2, $3)`,
		e.StreamID, e.StreamVersion, e.ID)), nil
}

type countingDeadLetters struct{ n atomic.Int32 }

func (d *countingDeadLetters) Park(context.Context, string, *sarama.ConsumerMessage, string) error {
	d.n.Add(1)
	return nil
}

// ledgerRig is a fresh database with the event store, a topic and a
// running engine with the ledger projection.
type ledgerRig struct {
	t        *testing.T
	pool     *pgxpool.Pool
	kc       eventstore.KafkaConfig
	topic    string
	producer sarama.SyncProducer
	dead     *countingDeadLetters
}

func startLedger(t *testing.T, p ledger) *ledgerRig {
	t.Helper()
	return startRig(t, p)
}

// startRig runs projections of the ledger context's topic.
func startRig(t *testing.T, ps ...projections.Projection) *ledgerRig {
	t.Helper()
	rig := newRig(t)
	t.Cleanup(rig.run(ps...))
	return rig
}

// newRig makes the database, the topic and the producer, with no engine.
func newRig(t *testing.T) *ledgerRig {
	t.Helper()
	pool, kc := apptest.Infra(t, "ledger", []func(context.Context, *pgxpool.Pool) error{eventstore.Migrate, projections.Migrate},
		func(kc eventstore.KafkaConfig) []string { return []string{kc.Topics.ForContext("ledger")} })
	rig := &ledgerRig{t: t, pool: pool, kc: kc, topic: kc.Topics.ForContext("ledger"), dead: &countingDeadLetters{}}
	producer, err := sarama.NewSyncProducer(kc.Brokers, kc.ProducerConfig())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { producer.Close() })
	rig.producer = producer
	return rig
}

// run starts an engine with the projections; stop ends it.
func (r *ledgerRig) run(ps ...projections.Projection) (stop func()) {
	r.t.Helper()
	engine, err := projections.NewEngine(r.pool, projections.EngineConfig{Kafka: r.kc,
		Runner: projections.RunnerConfig{RetryBackoff: 10 * time.Millisecond, MaxBackoff: 100 * time.Millisecond}},
		r.dead, slog.New(slog.NewTextHandler(io.Discard, nil)), ps...)
	if err != nil {
		r.t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); _ = engine.Run(ctx) }()
	return func() { cancel(); wg.Wait() }
}

// record writes an event to the event store (as a command would) and
// returns it.
func (r *ledgerRig) record(stream string, version int64) eventstore.Event {
	r.t.Helper()
	e := eventstore.Event{ID: uuid.Must(uuid.NewV7()), Type: "ledger.entry.added", SchemaVersion: 1, StreamType: "ledger.entry",
		StreamID: stream, StreamVersion: version, OrganizationID: "org-ledger", Payload: []byte(`{}`)}
	e.Actor.ID, e.Actor.Type = "tester", "system"
	e.OccurredAt, e.RecordedAt = time.Now().UTC(), time.Now().UTC()
	_, err := r.pool.Exec(context.Background(), `INSERT INTO es_events (event_id, stream_type, stream_id, stream_version, event_type, schema_version,
		organization_id, actor_id, actor_type, occurred_at, recorded_at, idempotency_key, correlation_id, causation_id, payload, topic)
		VALUES ($1,$2,$3,$4,$5,1,$6,'tester','system',$7,$7,'','','','{}',$8)`,
		e.ID, e.StreamType, e.StreamID, e.StreamVersion, e.Type, e.OrganizationID, e.OccurredAt, r.topic)
	if err != nil {
		r.t.Fatal(err)
	}
	return e
}

// publish puts events on the log in the given order and returns the last
// record's offset.
func (r *ledgerRig) publish(events ...eventstore.Event) *sarama.ProducerMessage {
	r.t.Helper()
	var last *sarama.ProducerMessage
	for _, e := range events {
		m, err := e.ToMessage(r.topic)
		if err != nil {
			r.t.Fatal(err)
		}
		if _, _, err := r.producer.SendMessage(m); err != nil {
			r.t.Fatal(err)
		}
		last = m
	}
	return last
}

func (r *ledgerRig) applied(stream string) []string {
	r.t.Helper()
	rows, err := r.pool.Query(context.Background(), `SELECT version, event_id FROM ledger_g1 WHERE stream_id=$1 ORDER BY seq`, stream)
	if err != nil {
		return nil // the table appears with the projection's first run
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var v int64
		var id uuid.UUID
		if err := rows.Scan(&v, &id); err != nil {
			r.t.Fatal(err)
		}
		out = append(out, fmt.Sprintf("v%d:%s", v, id.String()[:8]))
	}
	return out
}

func want(events ...eventstore.Event) []string {
	out := make([]string, len(events))
	for i, e := range events {
		out[i] = fmt.Sprintf("v%d:%s", e.StreamVersion, e.ID.String()[:8])
	}
	return out
}

func (r *ledgerRig) failures() []string {
	r.t.Helper()
	rows, err := r.pool.Query(context.Background(), `SELECT event_id, reason FROM proj_failures ORDER BY "offset"`)
	if err != nil {
		r.t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id, reason string
		if err := rows.Scan(&id, &reason); err != nil {
			r.t.Fatal(err)
		}
		out = append(out, id+": "+reason)
	}
	return out
}

func (r *ledgerRig) passed(msg *sarama.ProducerMessage) bool {
	var next int64
	err := r.pool.QueryRow(context.Background(), `SELECT next_offset FROM proj_checkpoints WHERE projection='ledger' AND generation=1 AND topic=$1 AND partition=$2`,
		msg.Topic, msg.Partition).Scan(&next)
	return err == nil && next > msg.Offset
}

func equal(a, b []string) bool { return fmt.Sprint(a) == fmt.Sprint(b) }

// TestRunnerFillsHolesFromTheEventStore: a log that an older relay reordered
// (v1 v2 v4 v5 v3, then v1 again, then an impostor v3) is applied in stream
// order: the hole before v4 is filled from the event store, the late v3 and
// the second v1 are dropped as the same events again, and the impostor is
// reported in proj_failures, not dropped in silence.
func TestRunnerFillsHolesFromTheEventStore(t *testing.T) {
	rig := startLedger(t, ledger{})
	stream := "entry-" + uuid.NewString()
	var ev []eventstore.Event
	for v := int64(1); v <= 5; v++ {
		ev = append(ev, rig.record(stream, v))
	}
	impostor := ev[2]
	impostor.ID = uuid.Must(uuid.NewV7())
	last := rig.publish(ev[0], ev[1], ev[3], ev[4], ev[2], ev[0], impostor)
	apptest.Eventually(t, 30*time.Second, "the ledger to pass the last record", func() bool { return rig.passed(last) })

	if got := rig.applied(stream); !equal(got, want(ev...)) {
		t.Fatalf("applied %v, want every version once in stream order %v", got, want(ev...))
	}
	fails := rig.failures()
	if len(fails) != 1 || fails[0][:36] != impostor.ID.String() {
		t.Fatalf("failures %v, want the impostor %s reported", fails, impostor.ID)
	}
}

// TestRunnerWaitsAtAHoleItCannotFill: a version whose predecessor is on
// neither the log nor the event store is not applied; the projection waits
// there and goes on once the event store holds it.
func TestRunnerWaitsAtAHoleItCannotFill(t *testing.T) {
	rig := startLedger(t, ledger{})
	stream := "entry-" + uuid.NewString()
	v1 := rig.record(stream, 1)
	v2 := eventstore.Event{ID: uuid.Must(uuid.NewV7())}
	v3 := rig.record(stream, 3)
	first := rig.publish(v1)
	apptest.Eventually(t, 30*time.Second, "v1 to be applied", func() bool { return rig.passed(first) })
	last := rig.publish(v3)
	time.Sleep(1500 * time.Millisecond)
	if rig.passed(last) {
		t.Fatalf("the checkpoint passed v3 although v2 is missing; applied %v", rig.applied(stream))
	}
	if got := rig.applied(stream); !equal(got, want(v1)) {
		t.Fatalf("applied %v while v2 is missing, want only v1", got)
	}
	v2 = rig.record(stream, 2)
	apptest.Eventually(t, 30*time.Second, "the ledger to go on once v2 is in the event store", func() bool { return rig.passed(last) })
	if got := rig.applied(stream); !equal(got, want(v1, v2, v3)) {
		t.Fatalf("applied %v, want %v", got, want(v1, v2, v3))
	}
	if f := rig.failures(); len(f) != 0 {
		t.Fatalf("failures %v: a hole is waited out, not parked", f)
	}
}

// TestRunnerWaitsOutADatabaseOutage: the connection of the batch's
// transaction dies (SQLSTATE 57P01, as when PostgreSQL restarts) more often
// than the attempts a bad event gets. The event is applied once the
// database answers again; nothing is parked, nothing dead-lettered.
func TestRunnerWaitsOutADatabaseOutage(t *testing.T) {
	var drops atomic.Int32
	rig := startLedger(t, ledger{dropConnection: func(e eventstore.Event) bool { return drops.Add(1) <= 6 }})
	stream := "entry-" + uuid.NewString()
	v1 := rig.record(stream, 1)
	last := rig.publish(v1)
	apptest.Eventually(t, 30*time.Second, "v1 to be applied after the outage", func() bool { return rig.passed(last) })
	if got := rig.applied(stream); !equal(got, want(v1)) {
		t.Fatalf("applied %v, want %v", got, want(v1))
	}
	if f := rig.failures(); len(f) != 0 || rig.dead.n.Load() != 0 {
		t.Fatalf("failures %v, %d dead letters: an outage parked a healthy event", f, rig.dead.n.Load())
	}
	if drops.Load() < 7 {
		t.Fatalf("the connection was dropped only %d times", drops.Load())
	}
}

// TestRebuildMissingAnEventStaysBuilding: generation 1 applied every event;
// a rebuild that had to park one of them catches up but never goes live.
func TestRebuildMissingAnEventStaysBuilding(t *testing.T) {
	var refused atomic.Value
	refused.Store(uuid.Nil)
	rig := startLedger(t, ledger{refuse: func(e eventstore.Event) bool { return e.ID == refused.Load().(uuid.UUID) }})
	stream := "entry-" + uuid.NewString()
	v1, v2 := rig.record(stream, 1), rig.record(stream, 2)
	last := rig.publish(v1, v2)
	apptest.Eventually(t, 30*time.Second, "generation 1 to apply both", func() bool { return rig.passed(last) })
	refused.Store(v2.ID)
	gen, err := projections.RequestRebuild(context.Background(), rig.pool, "ledger")
	if err != nil {
		t.Fatal(err)
	}
	apptest.Eventually(t, 30*time.Second, "the rebuild to park v2", func() bool { return len(rig.failures()) == 1 })
	time.Sleep(3 * time.Second) // several reconciliations of the engine (every second)
	gens, err := projections.Generations(context.Background(), rig.pool)
	if err != nil {
		t.Fatal(err)
	}
	states := map[int]string{}
	for _, g := range gens {
		states[g.Generation] = g.State
	}
	if states[1] != "active" || states[gen] != "building" {
		t.Fatalf("generations %v: a rebuild that lacks v2 went live (or generation 1 stopped serving)", states)
	}
}

// TestGenerationStartsAgainAfterADatabaseBlip: the database drops the
// connection while a generation creates its tables (a restart during a
// rebuild); the engine starts the generation again, and it applies the log.
func TestGenerationStartsAgainAfterADatabaseBlip(t *testing.T) {
	var calls atomic.Int32
	// Call 1 is Init; call 2 is generation 1 starting to consume.
	rig := startLedger(t, ledger{schemaCalls: &calls, failSchemaCall: 2})
	stream := "entry-" + uuid.NewString()
	v1 := rig.record(stream, 1)
	last := rig.publish(v1)
	apptest.Eventually(t, 30*time.Second, "generation 1 to start again and apply v1", func() bool { return rig.passed(last) })
	if calls.Load() < 3 {
		t.Fatalf("Schema called %d times: the failed start was not retried", calls.Load())
	}
}

// skippingLedger is the ledger passing over the ledger.skipped stream type.
type skippingLedger struct{ ledger }

func (skippingLedger) SkipsStreams() []string { return []string{"ledger.skipped"} }

// TestRunnerPassesOverSkippedStreams: a StreamSkipper's records of a stream
// type it skips are neither applied nor tracked (no stream version row),
// whether the record carries the stream-type header or must be decoded to
// tell; records of other streams around them apply as before, and the
// checkpoint passes them all.
func TestRunnerPassesOverSkippedStreams(t *testing.T) {
	rig := startRig(t, skippingLedger{})
	kept, skipped, bare := "entry-"+uuid.NewString(), "skip-"+uuid.NewString(), "bare-"+uuid.NewString()
	k1 := rig.record(kept, 1)
	s1 := rig.record(skipped, 1)
	s1.StreamType = "ledger.skipped"
	b1 := rig.record(bare, 1)
	b1.StreamType = "ledger.skipped"
	k2 := rig.record(kept, 2)
	rig.publish(k1, s1)
	m, err := b1.ToMessage(rig.topic)
	if err != nil {
		t.Fatal(err)
	}
	m.Headers = nil // an older record without headers: decoded to tell
	if _, _, err := rig.producer.SendMessage(m); err != nil {
		t.Fatal(err)
	}
	last := rig.publish(k2)
	apptest.Eventually(t, 30*time.Second, "the ledger to pass the last record", func() bool { return rig.passed(last) })

	if got := rig.applied(kept); !equal(got, want(k1, k2)) {
		t.Fatalf("applied %v, want %v", got, want(k1, k2))
	}
	for _, s := range []string{skipped, bare} {
		if got := rig.applied(s); len(got) != 0 {
			t.Fatalf("skipped stream %s applied: %v", s, got)
		}
		var n int
		if err := rig.pool.QueryRow(context.Background(), `SELECT count(*) FROM proj_stream_versions WHERE stream_id=$1`, s).Scan(&n); err != nil || n != 0 {
			t.Fatalf("skipped stream %s: %d version rows (%v), want none", s, n, err)
		}
	}
	if f := rig.failures(); len(f) != 0 {
		t.Fatalf("failures %v", f)
	}
}
