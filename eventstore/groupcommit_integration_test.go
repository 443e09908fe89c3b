package eventstore_test

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/eventstore"
)

// Store.Execute is a group commit: concurrent commands on different streams
// share transactions, and each is answered on its own. Among them, a
// refusal, a panicking decider, the losers of one unique value and the
// repeats of one idempotency key each get their own answer, and none of
// them costs a batch-mate its append.
func TestExecuteGroupsConcurrentCommands(t *testing.T) {
	store, pool := storeOnly(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	const fresh, claimers, repeats, refusers = 48, 6, 6, 4
	streams := make([]string, fresh)
	value, key := "v-"+uuid.NewString(), "k-"+uuid.NewString()
	keyedStream := "gx-keyed-" + uuid.NewString()
	type answer struct {
		out eventstore.Outcome
		err error
	}
	var (
		wg                                   sync.WaitGroup
		start                                = make(chan struct{})
		appends, claims, keyed, refused, bad = make([]answer, fresh), make([]answer, claimers), make([]answer, repeats), make([]answer, refusers), answer{}
	)
	run := func(dst *answer, cmd eventstore.Command, decide eventstore.Decider) {
		wg.Go(func() {
			<-start
			dst.out, dst.err = store.Execute(ctx, cmd, decide)
		})
	}
	cmd := func(stream string) eventstore.Command {
		return eventstore.Command{StreamType: "status.incident", StreamID: stream, OrganizationID: "org-g", Actor: eventstore.Actor{ID: "t", Type: "system"}}
	}
	for i := range fresh {
		streams[i] = "gx-" + strconv.Itoa(i) + "-" + uuid.NewString()
		run(&appends[i], cmd(streams[i]), appendOnce(strconv.Itoa(i)))
	}
	for i := range claimers {
		run(&claims[i], eventstore.Command{StreamType: "identity.organization", StreamID: "gx-claim-" + uuid.NewString(), OrganizationID: "org-g"},
			func([]eventstore.Event) (eventstore.Decision, error) {
				c := event.New("identity.organization.renamed", map[string]string{"slug": value})
				c.Unique = []event.Unique{{Kind: "slug", Value: value}}
				return eventstore.Decision{Events: []eventstore.NewEvent{c}, Result: "claimed"}, nil
			})
	}
	for i := range repeats {
		c := cmd(keyedStream)
		c.IdempotencyKey, c.RequestHash = key, "same"
		run(&keyed[i], c, appendOnce("keyed"))
	}
	refusal := errs.Conflict("refused", "the decider refuses")
	for i := range refusers {
		run(&refused[i], cmd("gx-refused-"+uuid.NewString()), func([]eventstore.Event) (eventstore.Decision, error) {
			return eventstore.Decision{}, refusal
		})
	}
	run(&bad, cmd("gx-panic-"+uuid.NewString()), func([]eventstore.Event) (eventstore.Decision, error) { panic("a bug") })
	close(start)
	wg.Wait()

	for i, a := range appends {
		if a.err != nil || string(a.out.Result) != `"appended"` || a.out.Position != (eventstore.Position{StreamID: streams[i], Version: 1}) {
			t.Fatalf("append %d: %+v %v", i, a.out, a.err)
		}
	}
	won := 0
	for i, a := range claims {
		switch e, _ := errs.As(a.err); {
		case a.err == nil:
			won++
		case e.Code != "slug_taken":
			t.Fatalf("claim %d: %v, want slug_taken", i, a.err)
		}
	}
	if won != 1 {
		t.Fatalf("%d streams won the value, want 1", won)
	}
	replayed := 0
	for i, a := range keyed {
		if a.err != nil || a.out.Position != (eventstore.Position{StreamID: keyedStream, Version: 1}) || string(a.out.Result) != `"appended"` {
			t.Fatalf("keyed %d: %+v %v", i, a.out, a.err)
		}
		if a.out.Replayed {
			replayed++
		}
	}
	if replayed != repeats-1 {
		t.Fatalf("%d of %d repeats replayed, want %d", replayed, repeats, repeats-1)
	}
	for i, a := range refused {
		if !errors.Is(a.err, refusal) {
			t.Fatalf("refusal %d: %v", i, a.err)
		}
	}
	if bad.err == nil || errs.KindOf(bad.err) == errs.KindUnavailable {
		t.Fatalf("panicking decider: %v, want an internal error", bad.err)
	}
	if got := esitCount(t, pool, `SELECT count(*) FROM es_events WHERE stream_id = $1`, keyedStream); got != 1 {
		t.Fatalf("%d events for one idempotency key, want 1", got)
	}
	txs := esitCount(t, pool, `SELECT count(DISTINCT tx_id) FROM es_events WHERE stream_id = ANY($1)`, streams)
	if txs >= fresh {
		t.Fatalf("%d commands took %d transactions: nothing was shared", fresh, txs)
	}
	t.Logf("%d concurrent commands in %d transactions", fresh, txs)
}

// A command with a Prepare reads its context's rows in a transaction of its
// own, so it sees every earlier command's writes: concurrent
// read-modify-writes of one row through Prepare lose no update (in a shared
// transaction they would all read the row before any of them wrote it).
func TestPreparedCommandsSeeEarlierWrites(t *testing.T) {
	store, pool := storeOnly(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	table := batchTable(t, pool)
	if _, err := pool.Exec(ctx, `INSERT INTO `+table+` (name, n) VALUES ('row', 0)`); err != nil {
		t.Fatal(err)
	}
	const n = 24
	errc := make(chan error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			var seen int64
			_, err := store.Execute(ctx, eventstore.Command{StreamType: "status.incident", StreamID: "gp-" + strconv.Itoa(i) + "-" + uuid.NewString(),
				OrganizationID: "org-p", Prepare: func(ctx context.Context, tx eventstore.Tx) error {
					return tx.QueryRow(ctx, `SELECT n FROM `+table+` WHERE name = 'row' FOR UPDATE`).Scan(&seen)
				}}, func([]eventstore.Event) (eventstore.Decision, error) {
				return eventstore.Decision{Events: []eventstore.NewEvent{event.New("status.incident.updated", map[string]int64{"seen": seen})},
					Writes: []eventstore.Write{{SQL: `UPDATE ` + table + ` SET n = $1 WHERE name = 'row'`, Args: []any{seen + 1}}}}, nil
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
	if got := esitCount(t, pool, `SELECT n FROM `+table+` WHERE name = 'row'`); got != n {
		t.Fatalf("the row counts %d of %d read-modify-writes", got, n)
	}
}
