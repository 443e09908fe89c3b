package projections_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/IBM/sarama"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/internal/apptest"
	"github.com/platform/backend/projections"
	"github.com/platform/backend/projections/history"
)

// gatedHistory is the audit history whose Reduce stops at one event until
// released: a rebuild held at a known point, to interrupt it there.
type gatedHistory struct {
	history.Projection
	at      func(e eventstore.Event) bool
	reached chan struct{}
	release chan struct{}
	once    *sync.Once
	open    func() // closes release, once
}

func newGatedHistory(p history.Projection, at func(e eventstore.Event) bool) gatedHistory {
	g := gatedHistory{Projection: p, at: at, reached: make(chan struct{}), release: make(chan struct{}), once: &sync.Once{}}
	var once sync.Once
	g.open = func() { once.Do(func() { close(g.release) }) }
	return g
}

func (g gatedHistory) Reduce(e eventstore.Event) ([]projections.Statement, error) {
	if g.at(e) {
		g.once.Do(func() { close(g.reached) })
		<-g.release
	}
	return g.Projection.Reduce(e)
}

// historyRig is a fresh database and topic for the audit history of the
// ledger context, with engines started and stopped at will.
type historyRig struct {
	t        *testing.T
	pool     *pgxpool.Pool
	kc       eventstore.KafkaConfig
	topic    string
	producer sarama.SyncProducer
	dead     *countingDeadLetters
	log      *syncBuffer // the engines' log, shown when the test fails
}

type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// newHistoryRig is a fresh database and topic of the ledger context; the
// engines' log is shown when the test fails.
func newHistoryRig(t *testing.T) *historyRig {
	pool, kc := apptest.Infra(t, "ledger", []func(context.Context, *pgxpool.Pool) error{eventstore.Migrate, projections.Migrate},
		func(kc eventstore.KafkaConfig) []string { return []string{kc.Topics.ForContext("ledger")} })
	producer, err := sarama.NewSyncProducer(kc.Brokers, kc.ProducerConfig())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { producer.Close() })
	r := &historyRig{t: t, pool: pool, kc: kc, topic: kc.Topics.ForContext("ledger"), producer: producer, dead: &countingDeadLetters{}, log: &syncBuffer{}}
	t.Cleanup(func() {
		if t.Failed() {
			r.log.mu.Lock()
			t.Logf("engine log:\n%s", r.log.buf.String())
			r.log.mu.Unlock()
		}
	})
	return r
}

// ledgerHistory is the audit history of the ledger context, whose notes'
// bodies are restricted and erased by ledger.note.erased.
func ledgerHistory() history.Projection {
	return history.Projection{Sources: []string{"ledger"}, Rules: history.MergeRules(map[string]event.AuditRule{
		"ledger.note.added":  {Restricted: []string{"body"}},
		"ledger.note.erased": {Erases: true},
	})}
}

// ledgerEvent is an event of the ledger context (stream type from its type).
func ledgerEvent(stream, typ string, version int64, payload string) eventstore.Event {
	e := eventstore.Event{ID: uuid.Must(uuid.NewV7()), Type: typ, SchemaVersion: 1, StreamType: "ledger." + strings.Split(typ, ".")[1],
		StreamID: stream, StreamVersion: version, OrganizationID: "org-ledger", Payload: json.RawMessage(payload)}
	e.Actor.ID, e.Actor.Type = "tester", "system"
	e.OccurredAt, e.RecordedAt = time.Now().UTC(), time.Now().UTC()
	return e
}

// run starts an engine with p alone (batches of batch events, 0: the
// default); stop cancels it and waits until it has stopped.
func (r *historyRig) run(p projections.Projection, batch int) (stop func()) {
	r.t.Helper()
	engine, err := projections.NewEngine(r.pool, projections.EngineConfig{Kafka: r.kc, PollInterval: 100 * time.Millisecond,
		Runner: projections.RunnerConfig{BatchSize: batch, RebuildBatchSize: batch, RetryBackoff: 10 * time.Millisecond, MaxBackoff: 100 * time.Millisecond}},
		r.dead, slog.New(slog.NewTextHandler(r.log, &slog.HandlerOptions{Level: slog.LevelInfo})), p)
	if err != nil {
		r.t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = engine.Run(ctx) }()
	var once sync.Once
	stop = func() { once.Do(func() { cancel(); <-done }) }
	r.t.Cleanup(stop)
	return stop
}

func (r *historyRig) publish(events ...eventstore.Event) {
	r.t.Helper()
	var msgs []*sarama.ProducerMessage
	for _, e := range events {
		m, err := e.ToMessage(r.topic)
		if err != nil {
			r.t.Fatal(err)
		}
		msgs = append(msgs, m)
	}
	if err := r.producer.SendMessages(msgs); err != nil {
		r.t.Fatal(err)
	}
}

func (r *historyRig) count(sql string, args ...any) int {
	r.t.Helper()
	var n int
	if err := r.pool.QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		r.t.Fatalf("%s: %v", sql, err)
	}
	return n
}

// tryCount is count for a poll: -1 while the table is not there yet.
func (r *historyRig) tryCount(sql string, args ...any) int {
	var n int
	if err := r.pool.QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		return -1
	}
	return n
}

// indexes lists a generation's valid indexes by name.
func (r *historyRig) indexes(gen int) string {
	r.t.Helper()
	var s string
	err := r.pool.QueryRow(context.Background(), `SELECT COALESCE(string_agg(c.relname, ',' ORDER BY c.relname), '')
		FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
		WHERE i.indrelid = to_regclass($1) AND i.indisvalid`, fmt.Sprintf("history_events_g%d", gen)).Scan(&s)
	if err != nil {
		r.t.Fatal(err)
	}
	return s
}

func (r *historyRig) state(gen int) string {
	r.t.Helper()
	var s string
	if err := r.pool.QueryRow(context.Background(), `SELECT state FROM proj_generations WHERE projection='history' AND generation=$1`, gen).Scan(&s); err != nil {
		r.t.Fatal(err)
	}
	return s
}

// rows is a generation's table as JSON, in event id order.
func (r *historyRig) rows(gen int) string {
	r.t.Helper()
	var s string
	err := r.pool.QueryRow(context.Background(), fmt.Sprintf(`SELECT COALESCE(json_agg(t ORDER BY event_id)::text, '[]') FROM history_events_g%d t`, gen)).Scan(&s)
	if err != nil {
		r.t.Fatal(err)
	}
	return s
}

// TestRebuildDefersHistoryIndexes: a rebuilt generation of the audit
// history is filled without its secondary indexes (the live generation has
// them from the start) and builds them once, before it goes live: queries
// find them from the first answer. A rebuild stopped before they are built
// resumes from its checkpoints, each event recorded once; an erasing event
// met during a rebuild builds them first (its statement finds the stream's
// rows through them) and erases what the live generation erased.
func TestRebuildDefersHistoryIndexes(t *testing.T) {
	r := newHistoryRig(t)
	pool := r.pool
	p := ledgerHistory()
	ev := ledgerEvent
	var entries []eventstore.Event
	for s := range 40 {
		for v := range 5 {
			entries = append(entries, ev(fmt.Sprintf("entry-%02d", s), "ledger.entry.added", int64(v+1), fmt.Sprintf(`{"n":%d}`, v)))
		}
	}
	note := "note-" + uuid.NewString()
	r.publish(append(entries, ev(note, "ledger.note.added", 1, `{"body":"words to erase","note_id":"n"}`))...)

	// Live: generation 1 is active from the start, with its indexes.
	stop := r.run(p, 0)
	apptest.Eventually(t, 30*time.Second, "g1 to record every event", func() bool { return r.tryCount(`SELECT count(*) FROM history_events_g1`) == 201 })
	if got := r.indexes(1); got != "history_events_g1_org,history_events_g1_pkey,history_events_g1_stream" {
		t.Fatalf("g1 indexes: %s", got)
	}
	stop()

	// A rebuild, held at the note (batches of one event: the batches before
	// it are committed), is stopped there: its table has its rows so far and
	// its primary key, not its secondary indexes.
	gen, err := projections.RequestRebuild(context.Background(), pool, "history")
	if err != nil || gen != 2 {
		t.Fatalf("rebuild: %d %v", gen, err)
	}
	held := newGatedHistory(p, func(e eventstore.Event) bool { return e.StreamID == note })
	stop = r.run(held, 1)
	t.Cleanup(held.open) // before the stop, should the test end here
	select {
	case <-held.reached:
	case <-time.After(30 * time.Second):
		t.Fatal("the rebuild did not reach the note")
	}
	apptest.Eventually(t, 30*time.Second, "g2 to record some events", func() bool { return r.tryCount(`SELECT count(*) FROM history_events_g2`) > 0 })
	if got := r.indexes(2); got != "history_events_g2_pkey" || r.state(2) != "building" {
		t.Fatalf("g2 while building: indexes %q, state %s", got, r.state(2))
	}
	// The stop waits for the held batch, which fails on the cancelled
	// context or commits: either way the rebuild resumes from what the
	// database holds.
	done := make(chan struct{})
	go func() { stop(); close(done) }()
	held.open()
	<-done
	if got := r.indexes(2); got != "history_events_g2_pkey" || r.state(2) != "building" {
		t.Fatalf("g2 after the stop: indexes %q, state %s", got, r.state(2))
	}

	// Resumed, it catches up, builds its indexes and goes live: the same rows
	// as the live generation, each event once.
	stop = r.run(p, 0)
	apptest.Eventually(t, 30*time.Second, "g2 to go live", func() bool { return r.state(2) == "active" })
	if got := r.indexes(2); got != "history_events_g2_org,history_events_g2_pkey,history_events_g2_stream" {
		t.Fatalf("g2 indexes once live: %s", got)
	}
	if live, rebuilt := r.rows(1), r.rows(2); live != rebuilt {
		t.Fatalf("g2 differs from g1:\nlive:    %s\nrebuilt: %s", live, rebuilt)
	}
	if n, distinct := r.count(`SELECT count(*) FROM history_events_g2`), r.count(`SELECT count(DISTINCT event_id) FROM history_events_g2`); n != 201 || distinct != 201 {
		t.Fatalf("g2 has %d rows, %d events, want 201 each", n, distinct)
	}
	// The queries' plans use them (the planner told to avoid a table scan,
	// which it prefers on a table this small).
	for index, query := range map[string]string{
		"history_events_g2_org":    `SELECT event_id FROM history_events_g2 WHERE organization_id = 'org-ledger'`,
		"history_events_g2_stream": `SELECT 1 FROM history_events_g2 WHERE stream_id = 'entry-01' AND stream_version > 2`,
	} {
		var plan string
		err := pgx.BeginFunc(context.Background(), pool, func(tx pgx.Tx) error {
			if _, err := tx.Exec(context.Background(), `SET LOCAL enable_seqscan = off`); err != nil {
				return err
			}
			return tx.QueryRow(context.Background(), `EXPLAIN (FORMAT JSON) `+query).Scan(&plan)
		})
		if err != nil || !strings.Contains(plan, `"Index Name": "`+index+`"`) {
			t.Fatalf("%s: plan %s %v, want %s", query, plan, err, index)
		}
	}

	// An erasure, applied live by g2, then a rebuild held after it: the
	// erasing batch built the indexes while g3 is still building, and erased
	// the note's words there too.
	r.publish(ev(note, "ledger.note.erased", 2, `{"note_id":"n"}`), ev(note, "ledger.note.seen", 3, `{"note_id":"n"}`))
	apptest.Eventually(t, 30*time.Second, "g2 to record the erasure", func() bool {
		return r.count(`SELECT count(*) FROM history_events_g2 WHERE stream_id = $1`, note) == 3
	})
	if n := r.count(`SELECT count(*) FROM history_events_g2 WHERE stream_id = $1 AND payload::jsonb ? 'body'`, note); n != 0 {
		t.Fatalf("g2 kept the erased words in %d rows", n)
	}
	stop()
	if gen, err := projections.RequestRebuild(context.Background(), pool, "history"); err != nil || gen != 3 {
		t.Fatalf("rebuild: %d %v", gen, err)
	}
	after := newGatedHistory(p, func(e eventstore.Event) bool { return e.StreamID == note && e.StreamVersion == 3 })
	stop = r.run(after, 1)
	t.Cleanup(after.open)
	select {
	case <-after.reached:
	case <-time.After(30 * time.Second):
		t.Fatal("the rebuild did not reach the event after the erasure")
	}
	if got := r.indexes(3); got != "history_events_g3_org,history_events_g3_pkey,history_events_g3_stream" || r.state(3) != "building" {
		t.Fatalf("g3 after the erasure: indexes %q, state %s", got, r.state(3))
	}
	if n := r.count(`SELECT count(*) FROM history_events_g3 WHERE stream_id = $1 AND payload::jsonb ? 'body'`, note); n != 0 {
		t.Fatalf("g3 kept the erased words in %d rows", n)
	}
	after.open()
	apptest.Eventually(t, 30*time.Second, "g3 to go live", func() bool { return r.state(3) == "active" })
	if live, rebuilt := r.rows(2), r.rows(3); live != rebuilt {
		t.Fatalf("g3 differs from g2:\nlive:    %s\nrebuilt: %s", live, rebuilt)
	}
	if n := r.dead.n.Load(); n != 0 || r.count(`SELECT count(*) FROM proj_failures`) != 0 {
		t.Fatalf("%d events parked", n)
	}
}
