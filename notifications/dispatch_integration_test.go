package notifications_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"testing/fstest"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	domain "github.com/platform/backend/domain/status"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/internal/apptest"
	"github.com/platform/backend/internal/migrate"
	"github.com/platform/backend/notifications"
	"github.com/platform/backend/notifications/contracts"
	statusmap "github.com/platform/backend/notifications/status"
	"github.com/platform/backend/projections"
)

// dispatchN dispatches until want rows were published (20 s at most) and
// returns how many were. A batch may come back empty while rows wait: the
// dispatcher reads only rows of transactions older than every one still
// running, on a PostgreSQL other tests share.
func dispatchN(t *testing.T, d *notifications.Dispatcher, want int) int {
	t.Helper()
	total := 0
	for deadline := time.Now().Add(20 * time.Second); total < want && time.Now().Before(deadline); {
		n, err := d.DispatchBatch(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if total += n; n == 0 {
			time.Sleep(20 * time.Millisecond)
		}
	}
	return total
}

// dispatchWriter is a dispatcher's log writer, closed with the test.
func dispatchWriter(t *testing.T, kc eventstore.KafkaConfig) *eventstore.KafkaLogWriter {
	t.Helper()
	w, err := eventstore.NewKafkaLogWriter(kc)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = w.Close() })
	return w
}

// rowVersions is each delivery row's physical version (xmin, ctid): an
// UPDATE of the row changes both.
func rowVersions(t *testing.T, pool *pgxpool.Pool) map[string]string {
	t.Helper()
	rows, err := pool.Query(context.Background(), `SELECT idempotency_key, xmin::text || ' ' || ctid::text FROM notification_deliveries`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var key, v string
		if err := rows.Scan(&key, &v); err != nil {
			t.Fatal(err)
		}
		out[key] = v
	}
	return out
}

// TestDispatcherPublishesWithoutRewritingRows: publishing moves a cursor,
// not the rows (an UPDATE per row rewrote each row and its index entries);
// the rows read as published through notification_states, and neither the
// same dispatcher nor a new term publishes them again.
func TestDispatcherPublishesWithoutRewritingRows(t *testing.T) {
	pool, kc := apptest.Infra(t, "dcur", []func(context.Context, *pgxpool.Pool) error{notifications.Migrate}, onceTopics)
	keys := onceLogIncidents(t, pool, 5)
	before := rowVersions(t, pool)
	writer := dispatchWriter(t, kc)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	d := &notifications.Dispatcher{Pool: pool, Writer: writer, Topics: kc.Topics, Log: log}
	if n := dispatchN(t, d, len(keys)); n != len(keys) {
		t.Fatalf("dispatched %d, want %d", n, len(keys))
	}
	if after := rowVersions(t, pool); !maps.Equal(before, after) {
		t.Fatalf("publishing rewrote delivery rows: before %v, after %v", before, after)
	}
	if n := nitCount(t, pool, `SELECT count(*) FROM notification_states WHERE state = 'published'`); n != int64(len(keys)) {
		t.Fatalf("%d notifications read as published, want %d", n, len(keys))
	}
	// Every row is behind the cursor: a new term reads none of them.
	next := &notifications.Dispatcher{Pool: pool, Writer: writer, Topics: kc.Topics, Log: log}
	if n, err := next.DispatchBatch(context.Background()); err != nil || n != 0 {
		t.Fatalf("a new term published %d again (%v)", n, err)
	}
	var published []string
	for _, m := range apptest.ReadTopic(t, kc.Brokers, kc.Topics.Notifications(), 20*time.Second) {
		published = append(published, nitHeader(m, notifications.MetaIdempotencyKey))
	}
	slices.Sort(published)
	slices.Sort(keys)
	if !slices.Equal(published, keys) {
		t.Fatalf("topic holds %v, want each of %v once", published, keys)
	}
}

// TestDispatcherWaitsForLateCommit: a row whose transaction began before a
// later row's and commits after that row was dispatched (two projection
// batches committing out of order) is published, not skipped by the cursor.
func TestDispatcherWaitsForLateCommit(t *testing.T) {
	ctx := context.Background()
	pool, kc := apptest.Infra(t, "dlate", []func(context.Context, *pgxpool.Pool) error{notifications.Migrate}, onceTopics)
	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, `SELECT pg_current_xact_id()`); err != nil { // the older transaction id
		t.Fatal(err)
	}
	late := onceLogIncidents(t, tx, 1)
	early := onceLogIncidents(t, pool, 1)
	d := &notifications.Dispatcher{Pool: pool, Writer: dispatchWriter(t, kc), Topics: kc.Topics, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	// The early row waits for the transaction older than its own.
	if n, err := d.DispatchBatch(ctx); err != nil || n != 0 {
		t.Fatalf("dispatched %d (%v) while an older transaction was open, want 0", n, err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if n := dispatchN(t, d, 2); n != 2 {
		t.Fatalf("dispatched %d, want 2", n)
	}
	published := map[string]int{}
	for _, m := range apptest.ReadTopic(t, kc.Brokers, kc.Topics.Notifications(), 20*time.Second) {
		published[nitHeader(m, notifications.MetaIdempotencyKey)]++
	}
	for _, key := range append(late, early...) {
		if published[key] != 1 {
			t.Errorf("%s published %d times, want once (topic: %v)", key, published[key], published)
		}
	}
}

// TestCursorMigrationKeepsStates: the migration to the cursor keeps each
// row's state, and the dispatcher then publishes the rows that were waiting
// (pending to the notifications topic, invalid to the dead letters), none
// of those published, parked or delivered before.
func TestCursorMigrationKeepsStates(t *testing.T) {
	ctx := context.Background()
	pool, kc := apptest.Infra(t, "dmig", nil, onceTopics)
	before := fstest.MapFS{}
	for _, name := range []string{"001_deliveries.sql", "002_claims.sql"} {
		raw, err := os.ReadFile(filepath.Join("migrations", name))
		if err != nil {
			t.Fatal(err)
		}
		before["m/"+name] = &fstest.MapFile{Data: raw}
	}
	if err := migrate.Apply(ctx, pool, "notifications", before, "m"); err != nil {
		t.Fatal(err)
	}
	states := map[string]string{"k-published": "published", "k-parked": "parked", "k-delivered": "delivered",
		"k-pending": "pending", "k-invalid": "invalid", "k-pending-2": "pending"}
	for key, state := range states {
		if _, err := pool.Exec(ctx, `INSERT INTO notification_deliveries (idempotency_key, type, version, organization_id, source_event_id, envelope, state)
			VALUES ($1, 'status.incident.created', 1, 'org-mig', 'ev', jsonb_build_object('idempotency_key', $1::text), $2)`, key, state); err != nil {
			t.Fatal(err)
		}
	}
	if err := notifications.Migrate(ctx, pool); err != nil {
		t.Fatal(err)
	}
	read := func() map[string]string {
		rows, err := pool.Query(ctx, `SELECT idempotency_key, state FROM notification_states`)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for rows.Next() {
			var key, state string
			if err := rows.Scan(&key, &state); err != nil {
				t.Fatal(err)
			}
			got[key] = state
		}
		return got
	}
	if got := read(); !maps.Equal(got, states) {
		t.Fatalf("states after the migration %v, want %v", got, states)
	}
	d := &notifications.Dispatcher{Pool: pool, Writer: dispatchWriter(t, kc), Topics: kc.Topics, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	if n := dispatchN(t, d, 3); n != 3 {
		t.Fatalf("dispatched %d, want the 3 waiting rows", n)
	}
	states["k-pending"], states["k-pending-2"], states["k-invalid"] = "published", "published", "parked"
	if got := read(); !maps.Equal(got, states) {
		t.Fatalf("states after the dispatch %v, want %v", got, states)
	}
	topicKeys := func(topic string) []string {
		var keys []string
		for _, m := range apptest.ReadTopic(t, kc.Brokers, topic, 20*time.Second) {
			keys = append(keys, nitHeader(m, notifications.MetaIdempotencyKey))
		}
		slices.Sort(keys)
		return keys
	}
	if got := topicKeys(kc.Topics.Notifications()); !slices.Equal(got, []string{"k-pending", "k-pending-2"}) {
		t.Errorf("notifications topic %v, want the two pending rows", got)
	}
	if got := topicKeys(kc.Topics.DeadLetter()); !slices.Equal(got, []string{"k-invalid"}) {
		t.Errorf("dead letters %v, want the invalid row", got)
	}
}

// TestDispatcherCutsBatchesAtTheBrokersLimit: a batch whose rows would make
// one partition's record batch larger than the broker takes (1 MiB) is cut
// there (eventstore.Batches), and the rest published by the next call:
// every row reaches the topic once, and nothing fails.
func TestDispatcherCutsBatchesAtTheBrokersLimit(t *testing.T) {
	ctx := context.Background()
	pool, kc := apptest.Infra(t, "dcut", []func(context.Context, *pgxpool.Pool) error{notifications.Migrate}, onceTopics)
	// 150 rows of ~20 KB: ~3 MB over the topic's partitions, over 1 MiB each.
	const rows = 150
	if _, err := pool.Exec(ctx, `INSERT INTO notification_deliveries (idempotency_key, type, version, organization_id, source_event_id, envelope, state)
		SELECT 'k-big-' || i, 'status.incident.created', 1, 'org-cut', 'ev-' || i,
			jsonb_build_object('idempotency_key', 'k-big-' || i, 'pad', repeat(md5(i::text), 625)), 'pending'
		FROM generate_series(1, $1) i`, rows); err != nil {
		t.Fatal(err)
	}
	d := &notifications.Dispatcher{Pool: pool, Writer: dispatchWriter(t, kc), Topics: kc.Topics, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	first, err := d.DispatchBatch(ctx)
	for first == 0 && err == nil { // rows may wait for an older transaction of another test
		time.Sleep(20 * time.Millisecond)
		first, err = d.DispatchBatch(ctx)
	}
	if err != nil {
		t.Fatalf("a batch over the broker's limit failed: %v", err)
	}
	if first >= rows {
		t.Fatalf("the first call published all %d rows: the test's batch is not over the limit", first)
	}
	if n := first + dispatchN(t, d, rows-first); n != rows {
		t.Fatalf("dispatched %d, want %d", n, rows)
	}
	published := map[string]int{}
	for _, m := range apptest.ReadTopic(t, kc.Brokers, kc.Topics.Notifications(), 20*time.Second) {
		published[nitHeader(m, notifications.MetaIdempotencyKey)]++
	}
	for i := 1; i <= rows; i++ {
		if key := fmt.Sprint("k-big-", i); published[key] != 1 {
			t.Errorf("%s published %d times, want once", key, published[key])
		}
	}
}

// TestDispatcherPublishesTheProjectorsBytes: the notification on the topic
// is the envelope as the projector encoded it (compact, json.Marshal's
// member order), not a form the database printed again (jsonb's, with
// members reordered and spaces after ':' and ','), so what a subscriber
// receives is what the contract check read.
func TestDispatcherPublishesTheProjectorsBytes(t *testing.T) {
	ctx := context.Background()
	pool, kc := apptest.Infra(t, "dbytes", []func(context.Context, *pgxpool.Pool) error{notifications.Migrate}, onceTopics)
	reg, err := contracts.Load()
	if err != nil {
		t.Fatal(err)
	}
	p := &notifications.Projection{Registry: reg, Mappers: map[string]notifications.Mapper{"status": statusmap.Mapping.Map}}
	at := time.Now().UTC().Truncate(time.Microsecond)
	id := uuid.NewString()
	payload, _ := json.Marshal(domain.IncidentCreatedV1{IncidentID: id, Title: "Errors <5xx> & timeouts", Message: "Looking",
		Severity: "major", Status: domain.Investigating, Revision: 1, OccurredAt: at})
	stmts, err := p.Reduce(eventstore.Event{ID: uuid.Must(uuid.NewV7()), Type: domain.IncidentCreated, SchemaVersion: 1,
		StreamType: domain.StreamIncident, StreamID: id, StreamVersion: 1, OrganizationID: "org-bytes", RecordedAt: at, OccurredAt: at, Payload: payload})
	if err != nil || len(stmts) != 1 {
		t.Fatalf("reduce: %d statements, %v", len(stmts), err)
	}
	var encoded []byte
	for _, a := range stmts[0].Args {
		if e, ok := a.(projections.EncodedJSON); ok {
			encoded = e
		}
	}
	if encoded == nil {
		t.Fatal("the delivery row has no EncodedJSON envelope")
	}
	if _, err := pool.Exec(ctx, stmts[0].SQL, stmts[0].Args...); err != nil {
		t.Fatal(err)
	}
	d := &notifications.Dispatcher{Pool: pool, Writer: dispatchWriter(t, kc), Topics: kc.Topics, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	if n := dispatchN(t, d, 1); n != 1 {
		t.Fatalf("dispatched %d, want 1", n)
	}
	msgs := apptest.ReadTopic(t, kc.Brokers, kc.Topics.Notifications(), 20*time.Second)
	if len(msgs) != 1 {
		t.Fatalf("%d notifications on the topic, want 1", len(msgs))
	}
	if !bytes.Equal(msgs[0].Value, encoded) {
		t.Fatalf("published\n%s\nwant the projector's bytes\n%s", msgs[0].Value, encoded)
	}
}
