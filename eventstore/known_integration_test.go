package eventstore_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/eventstore"
)

// tracedStore is a store on a pool of its own whose round trips are counted.
func tracedStore(t *testing.T, plain *pgxpool.Pool) (*eventstore.Store, *roundTrips) {
	t.Helper()
	cfg, err := pgxpool.ParseConfig(plain.Config().ConnString())
	if err != nil {
		t.Fatal(err)
	}
	trips := &roundTrips{}
	cfg.ConnConfig.Tracer = trips
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	if _, err := pool.Exec(context.Background(), `SELECT 1`); err != nil { // the first connection, dialed
		t.Fatal(err)
	}
	return eventstore.NewStore(pool, eventstore.Topics{Prefix: "t"}), trips
}

// twoWriters is two stores on one database (plain): mine, on a pool of its
// own whose round trips are counted, and another writer, which moves
// streams behind mine's back; ctx bounds the test.
func twoWriters(t *testing.T) (ctx context.Context, plain *pgxpool.Pool, mine *eventstore.Store, trips *roundTrips, other *eventstore.Store) {
	t.Helper()
	_, plain = storeOnly(t)
	mine, trips = tracedStore(t, plain)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx, plain, mine, trips, eventstore.NewStore(plain, eventstore.Topics{Prefix: "t"})
}

// counting appends one "status.incident.updated" with n = the stream's
// length after it, and hands the history it decided on to seen.
func counting(seen *[]eventstore.Event) eventstore.Decider {
	return func(history []eventstore.Event) (eventstore.Decision, error) {
		*seen = append([]eventstore.Event(nil), history...)
		n := len(history) + 1
		return eventstore.Decision{Events: []eventstore.NewEvent{event.New("status.incident.updated", map[string]int{"n": n})},
			Result: n}, nil
	}
}

// sameEvents compares histories as a decider reads them: every member, the
// payloads as JSON values (the database keeps jsonb's normal form), the
// times to the microsecond and in the zone a read gives.
func sameEvents(t *testing.T, what string, got, want []eventstore.Event) {
	t.Helper()
	norm := func(es []eventstore.Event) []string {
		var out []string
		for _, e := range es {
			var p any
			if err := json.Unmarshal(e.Payload, &p); err != nil {
				t.Fatalf("%s: payload %s: %v", what, e.Payload, err)
			}
			e.Payload = nil
			out = append(out, fmt.Sprintf("%+v payload=%v occurred=%s/%s recorded=%s/%s", e, p,
				e.OccurredAt.Format(time.RFC3339Nano), e.OccurredAt.Location(), e.RecordedAt.Format(time.RFC3339Nano), e.RecordedAt.Location()))
		}
		return out
	}
	if g, w := norm(got), norm(want); !reflect.DeepEqual(g, w) {
		t.Fatalf("%s:\n got %v\nwant %v", what, g, w)
	}
}

// A command on a stream this process wrote last is decided on the history
// it kept, equal to what a read returns, in one round trip; with snapshots,
// the history kept is the snapshot, as a read from it returns.
func TestKnownStreamIsOneRoundTrip(t *testing.T) {
	_, plain := storeOnly(t)
	store, trips := tracedStore(t, plain)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, snapshots := range []bool{false, true} {
		stream := fmt.Sprintf("k-%v-%s", snapshots, uuid.NewString())
		var seen []eventstore.Event
		it := item(stream, counting(&seen))
		schema := 0
		if snapshots {
			schema = 1
			it.Command.Snapshot = &eventstore.Snapshotting{Schema: 1}
			decide := it.Decide
			it.Decide = func(h []eventstore.Event) (eventstore.Decision, error) {
				d, err := decide(h)
				d.Snapshot = map[string]int{"n": d.Result.(int)}
				return d, err
			}
		}
		it.Command.CorrelationID, it.Command.CausationID = "corr-1", "cause-1"
		if r := store.ExecuteBatch(ctx, []eventstore.BatchItem{it}, nil)[0]; r.Err != nil || r.Outcome.Position.Version != 1 {
			t.Fatalf("first command: %+v", r)
		}
		read, err := store.LoadLatest(ctx, stream, schema)
		if err != nil {
			t.Fatal(err)
		}
		batches, queries := trips.batches.Load(), trips.queries.Load()
		r := store.ExecuteBatch(ctx, []eventstore.BatchItem{it}, nil)[0]
		if b, q := trips.batches.Load()-batches, trips.queries.Load()-queries; b != 1 || q != 0 {
			t.Fatalf("snapshots %v: a command on a known stream took %d batches and %d statements; want 1 round trip", snapshots, b, q)
		}
		if r.Err != nil || r.Outcome.Position.Version != 2 || string(r.Outcome.Result) != "2" {
			t.Fatalf("snapshots %v: second command: %+v", snapshots, r)
		}
		sameEvents(t, fmt.Sprintf("snapshots %v: the kept history against a read", snapshots), seen, read)
		if n := esitCount(t, plain, `SELECT count(*) FROM es_events WHERE stream_id = $1`, stream); n != 2 {
			t.Fatalf("snapshots %v: %d events, want 2", snapshots, n)
		}
	}
}

// A stream another writer moved since this process kept it: the append on
// the kept head is refused, the command is decided again on what is there
// (nothing lost, nothing doubled, no conflict for the caller), and the
// stream is read, not kept, from then on.
func TestKnownStreamMovedIsDecidedOnWhatIsThere(t *testing.T) {
	ctx, plain, mine, trips, other := twoWriters(t)
	stream := "k-moved-" + uuid.NewString()
	var seen []eventstore.Event
	mate := "k-mate-" + uuid.NewString()
	var mateSeen []eventstore.Event
	for _, it := range []eventstore.BatchItem{item(stream, counting(&seen)), item(mate, counting(&mateSeen))} {
		if r := mine.ExecuteBatch(ctx, []eventstore.BatchItem{it}, nil)[0]; r.Err != nil {
			t.Fatal(r.Err)
		}
	}
	var otherSeen []eventstore.Event
	if r := other.ExecuteBatch(ctx, []eventstore.BatchItem{item(stream, counting(&otherSeen))}, nil)[0]; r.Err != nil || r.Outcome.Position.Version != 2 {
		t.Fatalf("the other writer: %+v", r)
	}
	results := mine.ExecuteBatch(ctx, []eventstore.BatchItem{item(stream, counting(&seen)), item(mate, counting(&mateSeen))}, nil)
	if r := results[0]; r.Err != nil || r.Outcome.Position.Version != 3 || string(r.Outcome.Result) != "3" || len(seen) != 2 {
		t.Fatalf("a command on a moved stream: %+v, decided on %d events; want version 3 decided on 2", r, len(seen))
	}
	if r := results[1]; r.Err != nil || r.Outcome.Position.Version != 2 {
		t.Fatalf("its batch-mate: %+v", r)
	}
	for _, s := range []string{stream, mate} {
		if n := esitCount(t, plain, `SELECT count(*) FROM es_events WHERE stream_id = $1`, s); n != int64(map[string]int{stream: 3, mate: 2}[s]) {
			t.Fatalf("%s: %d events", s, n)
		}
	}
	// Contended now: read under its lock (two round trips), not kept.
	batches := trips.batches.Load()
	if r := mine.ExecuteBatch(ctx, []eventstore.BatchItem{item(stream, counting(&seen))}, nil)[0]; r.Err != nil || r.Outcome.Position.Version != 4 {
		t.Fatalf("next command on the contended stream: %+v", r)
	}
	if b := trips.batches.Load() - batches; b != 2 {
		t.Fatalf("a command on a contended stream took %d round trips, want 2 (read, then write)", b)
	}
	// The batch-mate was not moved: still known.
	batches = trips.batches.Load()
	if r := mine.ExecuteBatch(ctx, []eventstore.BatchItem{item(mate, counting(&mateSeen))}, nil)[0]; r.Err != nil || r.Outcome.Position.Version != 3 {
		t.Fatalf("next command on the batch-mate: %+v", r)
	}
	if b := trips.batches.Load() - batches; b != 1 {
		t.Fatalf("a command on the unmoved batch-mate took %d round trips, want 1", b)
	}
}

// A decision on a kept history that appends nothing (a refusal, a no-op)
// is not answered from memory: the stream may have moved, and nothing in
// the database would refuse a stale "no". It is read and decided again.
func TestKnownStreamRefusalIsReadAgain(t *testing.T) {
	ctx, _, mine, _, other := twoWriters(t)
	errClosed := errors.New("closed")
	// Both refuse on a closed stream; closeIt closes it, inspect is a no-op.
	unlessClosed := func(d eventstore.Decision) eventstore.Decider {
		return func(history []eventstore.Event) (eventstore.Decision, error) {
			if slices.ContainsFunc(history, func(e eventstore.Event) bool { return e.Type == "status.incident.resolved" }) {
				return eventstore.Decision{}, errClosed
			}
			return d, nil
		}
	}
	closeIt := unlessClosed(eventstore.Decision{Events: []eventstore.NewEvent{event.New("status.incident.resolved", map[string]string{})}, Result: "closed now"})
	inspect := unlessClosed(eventstore.Decision{Result: "open"})
	stream := "k-refusal-" + uuid.NewString()
	var seen []eventstore.Event
	if r := mine.ExecuteBatch(ctx, []eventstore.BatchItem{item(stream, counting(&seen))}, nil)[0]; r.Err != nil {
		t.Fatal(r.Err)
	}
	if r := other.ExecuteBatch(ctx, []eventstore.BatchItem{item(stream, closeIt)}, nil)[0]; r.Err != nil {
		t.Fatal(r.Err)
	}
	// mine kept the open stream: answering "open" from it would be stale.
	if r := mine.ExecuteBatch(ctx, []eventstore.BatchItem{item(stream, inspect)}, nil)[0]; !errors.Is(r.Err, errClosed) {
		t.Fatalf("a no-op decided on a kept history the stream has left: %+v; want the refusal the database's history gives", r)
	}
}

// A command with an idempotency key on a known stream is one round trip
// too: its key is not looked up, its record's insert is the check. The
// same key again is refused there and answered the usual way: the first
// result, nothing appended; with another request, idempotency_key_reused.
func TestKnownStreamWithKeyIsOneRoundTrip(t *testing.T) {
	_, plain := storeOnly(t)
	store, trips := tracedStore(t, plain)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	stream := "k-keyed-" + uuid.NewString()
	var seen []eventstore.Event
	keyed := func(key, hash string) eventstore.BatchItem {
		it := item(stream, counting(&seen))
		it.Command.IdempotencyKey, it.Command.RequestHash = key, hash
		return it
	}
	if r := store.ExecuteBatch(ctx, []eventstore.BatchItem{keyed("k1-"+uuid.NewString(), "h")}, nil)[0]; r.Err != nil {
		t.Fatal(r.Err)
	}
	key := "k2-" + uuid.NewString()
	batches, queries := trips.batches.Load(), trips.queries.Load()
	first := store.ExecuteBatch(ctx, []eventstore.BatchItem{keyed(key, "h")}, nil)[0]
	if b, q := trips.batches.Load()-batches, trips.queries.Load()-queries; b != 1 || q != 0 {
		t.Fatalf("a keyed command on a known stream took %d batches and %d statements; want 1 round trip", b, q)
	}
	if first.Err != nil || first.Outcome.Replayed || first.Outcome.Position.Version != 2 || string(first.Outcome.Result) != "2" {
		t.Fatalf("keyed command: %+v", first)
	}
	again := store.ExecuteBatch(ctx, []eventstore.BatchItem{keyed(key, "h")}, nil)[0]
	if again.Err != nil || !again.Outcome.Replayed || string(again.Outcome.Result) != "2" || again.Outcome.Position != first.Outcome.Position {
		t.Fatalf("the same key again: %+v; want the first result replayed", again)
	}
	reused := store.ExecuteBatch(ctx, []eventstore.BatchItem{keyed(key, "another request")}, nil)[0]
	if e, ok := errs.As(reused.Err); !ok || e.Code != "idempotency_key_reused" {
		t.Fatalf("the key with another request: %+v; want idempotency_key_reused", reused)
	}
	if n := esitCount(t, plain, `SELECT count(*) FROM es_events WHERE stream_id = $1`, stream); n != 2 {
		t.Fatalf("%d events, want 2: a replayed key appends nothing", n)
	}
}
