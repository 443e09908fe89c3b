package leader

import (
	"context"
	"io"
	"log/slog"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/platform/backend/internal/testenv"

	"github.com/platform/backend/internal/retry"
)

// testLock is registered like any platform lock; each test has a database
// of its own, and advisory locks are per database.
var testLock = mustRegister("leader.test")

var fast = Config{Retry: 5 * time.Millisecond, Check: 50 * time.Millisecond, Backoff: 10 * time.Millisecond, MaxBackoff: 50 * time.Millisecond}

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func newPool(t *testing.T) *pgxpool.Pool {
	t.Helper()
	pool, err := pgxpool.New(context.Background(), testenv.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool
}

// runAll starts contenders and waits for them when the test ends.
func runAll(t *testing.T, wg *sync.WaitGroup, ctx context.Context, pool *pgxpool.Pool, work func(context.Context) error) {
	wg.Add(1)
	go func() {
		defer wg.Done()
		if err := Run(ctx, pool, testLock, fast, quiet(), work); err != nil {
			t.Error(err)
		}
	}()
}

// TestTwoContendersNeverBothLead: three contenders for one name hand the
// lock over many times (each term is short and steps down), and no two
// terms' work ever overlaps.
func TestTwoContendersNeverBothLead(t *testing.T) {
	pool := newPool(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	var active, overlaps atomic.Int32
	var terms [3]atomic.Int32
	var wg sync.WaitGroup
	for i := range terms {
		runAll(t, &wg, ctx, pool, func(ctx context.Context) error {
			if active.Add(1) > 1 {
				overlaps.Add(1)
			}
			defer active.Add(-1)
			terms[i].Add(1)
			retry.Sleep(ctx, time.Duration(2+rand.IntN(10))*time.Millisecond)
			return nil // step down: the others contend
		})
	}
	wg.Wait()
	total, leaders := 0, 0
	for i := range terms {
		n := int(terms[i].Load())
		total += n
		if n > 0 {
			leaders++
		}
	}
	if overlaps.Load() != 0 {
		t.Fatalf("%d terms overlapped another", overlaps.Load())
	}
	if total < 10 || leaders < 2 {
		t.Fatalf("%d terms by %d contenders: the lock was not handed over enough to prove anything", total, leaders)
	}
	t.Logf("%d terms by %d contenders, no overlap", total, leaders)
}

// TestLostConnectionStopsWork: when the leader's lock connection dies (here:
// terminated by the server), its work is stopped, and a contender leads.
func TestLostConnectionStopsWork(t *testing.T) {
	pool := newPool(t)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	started, stopped := make(chan int, 16), make(chan int, 16)
	for i := range 2 {
		runAll(t, &wg, ctx, pool, func(ctx context.Context) error {
			started <- i
			<-ctx.Done()
			stopped <- i
			return nil
		})
	}
	var first int
	select {
	case first = <-started:
	case <-time.After(10 * time.Second):
		t.Fatal("nobody leads")
	}
	lostBefore := counterValue(t, testLock)
	tag, err := pool.Exec(ctx, `SELECT pg_terminate_backend(pid) FROM pg_locks
		WHERE locktype = 'advisory' AND classid = $1 AND objid = $2 AND objsubid = 2 AND granted`, Namespace, testLock.Key())
	if err != nil || tag.RowsAffected() != 1 {
		t.Fatalf("terminate the leader's connection: %v (%d rows)", err, tag.RowsAffected())
	}
	select {
	case got := <-stopped:
		if got != first {
			t.Fatalf("contender %d stopped, but %d led", got, first)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("the leader kept working after its lock connection died")
	}
	select {
	case <-started:
	case <-time.After(10 * time.Second):
		t.Fatal("nobody leads after the lost connection")
	}
	if counterValue(t, testLock) != lostBefore+1 {
		t.Fatal("the lost term was not counted")
	}
}

// TestEveryTicksOnlyWhileLeading: of two processes running the same periodic
// job, only the leader ticks; when it stops, the other takes over.
func TestEveryTicksOnlyWhileLeading(t *testing.T) {
	pool := newPool(t)
	var ticks [2]atomic.Int32
	var cancels [2]context.CancelFunc
	var wg sync.WaitGroup
	defer wg.Wait()
	for i := range ticks {
		var ctx context.Context
		ctx, cancels[i] = context.WithCancel(context.Background())
		defer cancels[i]()
		runAll(t, &wg, ctx, pool, Every(20*time.Millisecond, func(context.Context) { ticks[i].Add(1) }))
	}
	deadline := time.Now().Add(10 * time.Second)
	for ticks[0].Load()+ticks[1].Load() < 10 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	a, b := ticks[0].Load(), ticks[1].Load()
	if (a == 0) == (b == 0) {
		t.Fatalf("ticks %d and %d: want exactly one ticking process", a, b)
	}
	leaderIdx := 0
	if b > 0 {
		leaderIdx = 1
	}
	other := 1 - leaderIdx
	cancels[leaderIdx]()
	for ticks[other].Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if ticks[other].Load() == 0 {
		t.Fatal("the standby did not take over the periodic job")
	}
}

// TestRunWithoutDatabase: no database means retries with backoff, never a
// call of work, and a clean return when the context ends.
func TestRunWithoutDatabase(t *testing.T) {
	pool, err := pgxpool.New(context.Background(), "postgres://nobody@127.0.0.1:1/none?connect_timeout=1")
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	called := false
	if err := Run(ctx, pool, testLock, fast, quiet(), func(context.Context) error { called = true; return nil }); err != nil {
		t.Fatal(err)
	}
	if called {
		t.Fatal("work ran without the lock")
	}
}
