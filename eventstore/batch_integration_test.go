package eventstore_test

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/eventstore"
)

// batchTable is a write-side table the batch tests' shared writes keep: a
// counter per name, summed once per transaction.
func batchTable(t *testing.T, pool *pgxpool.Pool) string {
	t.Helper()
	name := "batch_counts_" + strconv.Itoa(int(time.Now().UnixNano()%1e9))
	if _, err := pool.Exec(context.Background(), `CREATE TABLE `+name+` (name text PRIMARY KEY, n bigint NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	return name
}

// countAll is a SharedWrites adding each transaction's appended items to
// one counter row, in one statement.
func countAll(table string, calls *int) eventstore.SharedWrites {
	return func(appended []eventstore.Decision) []eventstore.Write {
		*calls++
		return []eventstore.Write{{SQL: `INSERT INTO ` + table + ` (name, n) VALUES ('all', $1)
			ON CONFLICT (name) DO UPDATE SET n = ` + table + `.n + EXCLUDED.n`, Args: []any{len(appended)}}}
	}
}

func appendOnce(payload string) eventstore.Decider {
	return func(history []eventstore.Event) (eventstore.Decision, error) {
		if len(history) > 0 {
			return eventstore.Decision{Result: "exists"}, nil
		}
		return eventstore.Decision{Events: []eventstore.NewEvent{event.New("status.incident.updated", map[string]string{"p": payload})},
			Result: "appended"}, nil
	}
}

func item(stream string, decide eventstore.Decider) eventstore.BatchItem {
	return eventstore.BatchItem{Command: eventstore.Command{StreamType: "status.incident", StreamID: stream, OrganizationID: "org-b",
		Actor: eventstore.Actor{ID: "t", Type: "system"}}, Decide: decide}
}

// One transaction records every item that appends, with the shared writes
// computed once from their decisions; an item that decides nothing, one
// refused by its decider, a replayed idempotency key and a key reused for
// another request each answer on their own and leave the others in.
func TestBatchCommitsItemsTogether(t *testing.T) {
	store, pool := storeOnly(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	table := batchTable(t, pool)
	existing := "b-existing-" + uuid.NewString()
	keyed := item("b-keyed-"+uuid.NewString(), appendOnce("keyed"))
	keyed.Command.IdempotencyKey, keyed.Command.RequestHash = "key-"+uuid.NewString(), "h1"
	if _, err := store.Execute(ctx, keyed.Command, keyed.Decide); err != nil {
		t.Fatal(err)
	}
	if _, err := store.Execute(ctx, item(existing, appendOnce("x")).Command, appendOnce("x")); err != nil {
		t.Fatal(err)
	}
	reused := keyed
	reused.Command.RequestHash = "h2"
	fresh := []string{"b-1-" + uuid.NewString(), "b-2-" + uuid.NewString(), "b-3-" + uuid.NewString()}
	refused := errs.Conflict("nope", "the decider refuses")
	items := []eventstore.BatchItem{
		item(fresh[0], appendOnce("one")),
		item(existing, appendOnce("again")),
		item("b-refused-"+uuid.NewString(), func([]eventstore.Event) (eventstore.Decision, error) { return eventstore.Decision{}, refused }),
		item(fresh[1], appendOnce("two")),
		keyed,
		item(fresh[2], appendOnce("three")),
	}
	calls := 0
	results := store.ExecuteBatch(ctx, items, countAll(table, &calls))
	for _, i := range []int{0, 3, 5} {
		if results[i].Err != nil || string(results[i].Outcome.Result) != `"appended"` || results[i].Outcome.Position.Version != 1 {
			t.Fatalf("item %d: %+v %v", i, results[i].Outcome, results[i].Err)
		}
	}
	if string(results[1].Outcome.Result) != `"exists"` || results[1].Err != nil {
		t.Fatalf("existing stream: %+v %v", results[1].Outcome, results[1].Err)
	}
	if !errors.Is(results[2].Err, refused) {
		t.Fatalf("refused item: %v", results[2].Err)
	}
	if !results[4].Outcome.Replayed || results[4].Err != nil {
		t.Fatalf("replayed key: %+v %v", results[4].Outcome, results[4].Err)
	}
	// The same key reused for another request is refused alone.
	results = store.ExecuteBatch(ctx, []eventstore.BatchItem{reused, item("b-4-"+uuid.NewString(), appendOnce("four"))}, nil)
	if e, ok := errs.As(results[0].Err); !ok || e.Code != errs.IdempotencyMismatch().Code || results[1].Err != nil {
		t.Fatalf("reused key: %v; other item %v", results[0].Err, results[1].Err)
	}
	if got := esitCount(t, pool, `SELECT count(DISTINCT tx_id) FROM es_events WHERE stream_id = ANY($1)`, fresh); got != 1 {
		t.Fatalf("the batch's events are in %d transactions, want 1", got)
	}
	if got := esitCount(t, pool, `SELECT n FROM `+table+` WHERE name = 'all'`); got != 3 || calls != 1 {
		t.Fatalf("shared writes counted %d items in %d calls, want 3 in 1", got, calls)
	}
}

// Items on the same stream run in order, each deciding on what the one
// before it appended: versions stay dense.
func TestBatchSameStreamInOrder(t *testing.T) {
	store, _ := storeOnly(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	stream := "b-same-" + uuid.NewString()
	next := func(history []eventstore.Event) (eventstore.Decision, error) {
		return eventstore.Decision{Events: []eventstore.NewEvent{event.New("status.incident.updated", map[string]int{"seen": len(history)})},
			Result: len(history)}, nil
	}
	results := store.ExecuteBatch(ctx, []eventstore.BatchItem{item(stream, next), item("b-other-"+uuid.NewString(), next), item(stream, next)}, nil)
	for i, want := range []string{"0", "0", "1"} {
		if results[i].Err != nil || string(results[i].Outcome.Result) != want {
			t.Fatalf("item %d saw %s (%v), want %s", i, results[i].Outcome.Result, results[i].Err, want)
		}
	}
	if results[2].Outcome.Position.Version != 2 {
		t.Fatalf("second item on the stream at version %d, want 2", results[2].Outcome.Position.Version)
	}
}

// A statement the database refuses (here one item's write) aborts the
// transaction; the items then run one by one: the one at fault fails and
// records nothing, the others are recorded, each once.
func TestBatchRefusedStatementFailsOnlyItsItem(t *testing.T) {
	store, pool := storeOnly(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	table := batchTable(t, pool)
	good := []string{"b-good-1-" + uuid.NewString(), "b-good-2-" + uuid.NewString()}
	bad := "b-bad-" + uuid.NewString()
	badWrite := func(history []eventstore.Event) (eventstore.Decision, error) {
		d, err := appendOnce("bad")(history)
		d.Writes = []eventstore.Write{{SQL: `INSERT INTO ` + table + ` (name, n) VALUES (NULL, 1)`}} // refused: NOT NULL
		return d, err
	}
	calls := 0
	results := store.ExecuteBatch(ctx, []eventstore.BatchItem{item(good[0], appendOnce("g1")), item(bad, badWrite), item(good[1], appendOnce("g2"))},
		countAll(table, &calls))
	if results[0].Err != nil || results[2].Err != nil {
		t.Fatalf("good items failed: %v, %v", results[0].Err, results[2].Err)
	}
	if results[1].Err == nil {
		t.Fatal("the item with a refused write succeeded")
	}
	if got := esitCount(t, pool, `SELECT count(*) FROM es_events WHERE stream_id = ANY($1)`, good); got != 2 {
		t.Fatalf("%d events of the good items, want 2", got)
	}
	if got := esitCount(t, pool, `SELECT count(*) FROM es_events WHERE stream_id = $1`, bad); got != 0 {
		t.Fatalf("%d events of the bad item, want 0", got)
	}
	if got := esitCount(t, pool, `SELECT n FROM `+table+` WHERE name = 'all'`); got != 2 {
		t.Fatalf("shared writes counted %d, want the 2 good items once each", got)
	}
}

// A unique value taken fails its item alone, undoing that item's other
// claims; the rest of the transaction keeps theirs.
func TestBatchUniqueClaimTakenFailsOnlyItsItem(t *testing.T) {
	store, pool := storeOnly(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	taken, free, mine := "taken-"+uuid.NewString(), "free-"+uuid.NewString(), "mine-"+uuid.NewString()
	if err := claim(ctx, store, "b-holder-"+uuid.NewString(), event.Unique{Kind: "slug", Value: taken}); err != nil {
		t.Fatal(err)
	}
	claiming := func(values ...string) eventstore.Decider {
		return func([]eventstore.Event) (eventstore.Decision, error) {
			c := event.New("identity.organization.renamed", map[string]string{"slug": values[0]})
			for _, v := range values {
				c.Unique = append(c.Unique, event.Unique{Kind: "slug", Value: v})
			}
			return eventstore.Decision{Events: []eventstore.NewEvent{c}}, nil
		}
	}
	loser, winner := "b-loser-"+uuid.NewString(), "b-winner-"+uuid.NewString()
	results := store.ExecuteBatch(ctx, []eventstore.BatchItem{
		{Command: eventstore.Command{StreamType: "identity.organization", StreamID: loser, OrganizationID: loser}, Decide: claiming(free, taken)},
		{Command: eventstore.Command{StreamType: "identity.organization", StreamID: winner, OrganizationID: winner}, Decide: claiming(mine)},
	}, nil)
	if e, ok := errs.As(results[0].Err); !ok || e.Code != "slug_taken" {
		t.Fatalf("loser: %v, want slug_taken", results[0].Err)
	}
	if results[1].Err != nil {
		t.Fatalf("winner: %v", results[1].Err)
	}
	if got, _ := store.Holder(ctx, "slug", free); got != "" {
		t.Fatalf("the loser's first claim stayed (held by %q)", got)
	}
	if got, _ := store.Holder(ctx, "slug", mine); got != winner {
		t.Fatalf("the winner's claim is held by %q", got)
	}
	if got := esitCount(t, pool, `SELECT count(*) FROM es_events WHERE stream_id = $1`, loser); got != 0 {
		t.Fatalf("the loser appended %d events", got)
	}
}

// A batch whose database session dies between its reads and its commit
// (as when the process holding it is killed) records none of its items and
// answers each with an outage; run again, each item is recorded once.
func TestBatchCrashMidBatchRecordsNothing(t *testing.T) {
	store, pool := storeOnly(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	streams := []string{"b-crash-1-" + uuid.NewString(), "b-crash-2-" + uuid.NewString(), "b-crash-3-" + uuid.NewString()}
	var pid int
	killed := false
	items := make([]eventstore.BatchItem, len(streams))
	for i, s := range streams {
		items[i] = item(s, appendOnce(s))
	}
	// The first item's Prepare learns the session; its decider kills it.
	items[0].Command.Prepare = func(ctx context.Context, tx eventstore.Tx) error {
		return tx.QueryRow(ctx, `SELECT pg_backend_pid()`).Scan(&pid)
	}
	items[1].Decide = func(history []eventstore.Event) (eventstore.Decision, error) {
		if !killed {
			killed = true
			if _, err := pool.Exec(ctx, `SELECT pg_terminate_backend($1)`, pid); err != nil {
				return eventstore.Decision{}, err
			}
		}
		return appendOnce("second")(history)
	}
	results := store.ExecuteBatch(ctx, items, nil)
	for i, r := range results {
		if errs.KindOf(r.Err) != errs.KindUnavailable {
			t.Fatalf("item %d after the session died: %+v %v, want unavailable", i, r.Outcome, r.Err)
		}
	}
	if got := esitCount(t, pool, `SELECT count(*) FROM es_events WHERE stream_id = ANY($1)`, streams); got != 0 {
		t.Fatalf("%d events of a batch that never committed", got)
	}
	if got := esitCount(t, pool, `SELECT count(*) FROM es_streams WHERE stream_id = ANY($1)`, streams); got != 0 {
		t.Fatalf("%d heads of a batch that never committed", got)
	}
	items[0].Command.Prepare = nil
	for i, r := range store.ExecuteBatch(ctx, items, nil) {
		if r.Err != nil || r.Outcome.Position.Version != 1 {
			t.Fatalf("item %d run again: %+v %v", i, r.Outcome, r.Err)
		}
	}
	if got := esitCount(t, pool, `SELECT count(*) FROM es_events WHERE stream_id = ANY($1)`, streams); got != 3 {
		t.Fatalf("%d events after the retry, want 3", got)
	}
}

// Concurrent callers of a group commit share transactions; each gets its
// own result, and commands on one stream keep its versions dense.
func TestGroupCommitSharesTransactions(t *testing.T) {
	store, pool := storeOnly(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	gc := eventstore.NewGroupCommit(store, nil)
	const n = 64
	shared := "gc-shared-" + uuid.NewString()
	streams := make([]string, n)
	errc := make(chan error, 2*n)
	var wg sync.WaitGroup
	for i := range n {
		streams[i] = "gc-" + strconv.Itoa(i) + "-" + uuid.NewString()
		wg.Go(func() {
			_, err := gc.Execute(ctx, item(streams[i], appendOnce("x")).Command, appendOnce("x"))
			errc <- err
		})
		wg.Go(func() {
			_, err := gc.Execute(ctx, item(shared, nil).Command, func([]eventstore.Event) (eventstore.Decision, error) {
				return eventstore.Decision{Events: []eventstore.NewEvent{event.New("status.incident.updated", map[string]int{"i": i})}}, nil
			})
			errc <- err
		})
	}
	wg.Wait()
	close(errc)
	for err := range errc {
		if err != nil {
			t.Fatal(err)
		}
	}
	if got := esitCount(t, pool, `SELECT count(*) FROM es_events WHERE stream_id = ANY($1)`, streams); got != n {
		t.Fatalf("%d events, want %d", got, n)
	}
	if got := esitCount(t, pool, `SELECT count(DISTINCT stream_version) FROM es_events WHERE stream_id = $1 AND stream_version BETWEEN 1 AND $2`,
		shared, n); got != n {
		t.Fatalf("the shared stream has %d distinct versions in 1..%d", got, n)
	}
	if got := esitCount(t, pool, `SELECT count(DISTINCT tx_id) FROM es_events WHERE stream_id = ANY($1)`, streams); got >= n {
		t.Fatalf("%d callers took %d transactions: nothing was shared", n, got)
	}
}
