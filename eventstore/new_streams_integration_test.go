package eventstore_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/eventstore"
)

// roundTrips counts what a pool sends: batches (one round trip each) and
// lone statements.
type roundTrips struct{ batches, queries atomic.Int64 }

func (r *roundTrips) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	r.queries.Add(1)
	return ctx
}
func (r *roundTrips) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}
func (r *roundTrips) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	r.batches.Add(1)
	return ctx
}
func (r *roundTrips) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {}
func (r *roundTrips) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData)     {}

// A transaction of commands on new streams (Command.New) is one round trip:
// nothing is read, each is decided on an empty history, and the locks,
// appends, shared writes and COMMIT go together. A command marked new whose
// stream exists after all (a retry) is decided on what is there, as without
// the mark: nothing is appended twice, and its batch-mates are recorded
// once. A new-stream decision that claims a unique value is decided again
// the usual way.
func TestBatchOfNewStreamsIsOneRoundTrip(t *testing.T) {
	_, plain := storeOnly(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cfg, err := pgxpool.ParseConfig(plain.Config().ConnString())
	if err != nil {
		t.Fatal(err)
	}
	trips := &roundTrips{}
	cfg.ConnConfig.Tracer = trips
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	store := eventstore.NewStore(pool, eventstore.Topics{Prefix: "t"})
	table := batchTable(t, pool)
	var shared int
	newItem := func(stream string, decide eventstore.Decider) eventstore.BatchItem {
		it := item(stream, decide)
		it.Command.New = true
		return it
	}
	events := func(stream string) int64 {
		return esitCount(t, pool, `SELECT count(*) FROM es_events WHERE stream_id = $1`, stream)
	}

	fresh := []string{"n-1-" + uuid.NewString(), "n-2-" + uuid.NewString(), "n-3-" + uuid.NewString()}
	if _, err := pool.Exec(ctx, `SELECT 1`); err != nil { // the pool's first connection, dialed
		t.Fatal(err)
	}
	batches, queries := trips.batches.Load(), trips.queries.Load()
	results := store.ExecuteBatch(ctx, []eventstore.BatchItem{newItem(fresh[0], appendOnce("a")), newItem(fresh[1], appendOnce("b")),
		newItem(fresh[2], appendOnce("c"))}, countAll(table, &shared))
	if b, q := trips.batches.Load()-batches, trips.queries.Load()-queries; b != 1 || q != 0 {
		t.Fatalf("a transaction of 3 new streams took %d batches and %d statements; want 1 round trip", b, q)
	}
	for i, r := range results {
		if r.Err != nil || string(r.Outcome.Result) != `"appended"` || r.Outcome.Position.Version != 1 || events(fresh[i]) != 1 {
			t.Fatalf("item %d: %+v, %d events", i, r, events(fresh[i]))
		}
	}

	// A retry: fresh[1] exists. Its batch-mate on a new stream is recorded
	// once, the retry decides on the stream's history and appends nothing.
	another := "n-4-" + uuid.NewString()
	results = store.ExecuteBatch(ctx, []eventstore.BatchItem{newItem(another, appendOnce("d")), newItem(fresh[1], appendOnce("b again"))},
		countAll(table, &shared))
	if results[0].Err != nil || string(results[0].Outcome.Result) != `"appended"` || events(another) != 1 {
		t.Fatalf("new stream beside a retry: %+v, %d events", results[0], events(another))
	}
	if results[1].Err != nil || string(results[1].Outcome.Result) != `"exists"` || events(fresh[1]) != 1 {
		t.Fatalf("retry on an existing stream: %+v, %d events; want it decided on its history, nothing appended", results[1], events(fresh[1]))
	}
	if n := esitCount(t, pool, `SELECT n FROM `+table+` WHERE name = 'all'`); n != 4 {
		t.Fatalf("shared writes counted %d appended items, want 4", n)
	}

	// A new stream's decision claiming a unique value: the usual way.
	claimer, slug := "n-claim-"+uuid.NewString(), "slug-"+uuid.NewString()
	results = store.ExecuteBatch(ctx, []eventstore.BatchItem{newItem(claimer, func([]eventstore.Event) (eventstore.Decision, error) {
		c := event.New("identity.organization.renamed", map[string]string{"slug": slug})
		c.Unique = []event.Unique{{Kind: "slug", Value: slug}}
		return eventstore.Decision{Events: []eventstore.NewEvent{c}}, nil
	})}, nil)
	if results[0].Err != nil || events(claimer) != 1 {
		t.Fatalf("new stream claiming a value: %+v, %d events", results[0], events(claimer))
	}
	if got, _ := store.Holder(ctx, "slug", slug); got != claimer {
		t.Fatalf("the claim is held by %q, want %q", got, claimer)
	}
}
