package eventstore_test

import (
	"context"
	"io"
	"log/slog"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/internal/apptest"
)

// watched starts a HeadWatch over the stream type "test.watched" and waits
// until it listens.
func watched(t *testing.T, store *eventstore.Store, cfg eventstore.HeadWatchConfig) *eventstore.HeadWatch {
	t.Helper()
	store.NotifyHeads("test.watched")
	w := eventstore.NewHeadWatch(store, cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = w.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	apptest.Eventually(t, 10*time.Second, "the head watch to listen", w.Listening)
	return w
}

// elsewhere is another process's store on the same database: its appends
// reach the watch only by notification.
func elsewhere(pool *pgxpool.Pool) *eventstore.Store {
	s := eventstore.NewStore(pool, eventstore.Topics{})
	s.NotifyHeads("test.watched")
	return s
}

func bump(t *testing.T, store *eventstore.Store, stream string) {
	t.Helper()
	_, err := store.Execute(context.Background(), eventstore.Command{StreamType: "test.watched", StreamID: stream, OrganizationID: "org-w"},
		func([]eventstore.Event) (eventstore.Decision, error) {
			return eventstore.Decision{Events: []eventstore.NewEvent{event.New("test.watched.bumped", map[string]int{})}}, nil
		})
	if err != nil {
		t.Fatal(err)
	}
}

func headOf(t *testing.T, w *eventstore.HeadWatch, stream string) int64 {
	t.Helper()
	heads, err := w.Heads(context.Background(), stream)
	if err != nil {
		t.Fatal(err)
	}
	return heads[stream]
}

// inMemory waits until the stream's head is answered from memory at want.
func inMemory(t *testing.T, w *eventstore.HeadWatch, stream string, want int64) {
	t.Helper()
	apptest.Eventually(t, 10*time.Second, "the head to be held in memory", func() bool {
		before, _ := w.Reads()
		got := headOf(t, w, stream)
		after, _ := w.Reads()
		if got != want {
			t.Fatalf("head %d, want %d", got, want)
		}
		return after > before
	})
}

// A watched head is read from the database once, then from memory until
// its stream moves; a move is seen within the bound (here at once: the
// notification arrives before the append's caller even asks again), and a
// stream that does not exist reads as absent, from memory too.
func TestHeadWatchServesHeadsUntilTheyMove(t *testing.T) {
	store, pool := storeOnly(t)
	w := watched(t, store, eventstore.HeadWatchConfig{Bound: 200 * time.Millisecond})
	other := elsewhere(pool)
	stream, absent := "hw-"+uuid.NewString(), "hw-absent-"+uuid.NewString()
	bump(t, other, stream)
	if got := headOf(t, w, stream); got != 1 {
		t.Fatalf("head %d, want 1", got)
	}
	before, _ := w.Reads()
	for range 20 {
		if got := headOf(t, w, stream); got != 1 {
			t.Fatalf("head %d, want 1", got)
		}
	}
	// Memory is trusted for a bound after each answered round trip; on a
	// loaded machine a round trip may be late, and those reads go to the
	// database.
	if after, _ := w.Reads(); after-before < 10 {
		t.Fatalf("%d of 20 reads from memory", after-before)
	}
	bump(t, other, stream)
	moved := time.Now()
	for headOf(t, w, stream) != 2 {
		if time.Since(moved) > 200*time.Millisecond {
			t.Fatal("a moved head still read as 1 past the bound")
		}
		time.Sleep(time.Millisecond)
	}
	t.Logf("another process's move was seen after %s", time.Since(moved))
	// This process's own appends apply at once, before their caller is answered.
	inMemory(t, w, stream, 2)
	bump(t, store, stream)
	if got := headOf(t, w, stream); got != 3 {
		t.Fatalf("head %d right after this process's own append, want 3", got)
	}
	if got := headOf(t, w, absent); got != 0 {
		t.Fatalf("absent stream at %d", got)
	}
	bump(t, other, absent)
	apptest.Eventually(t, time.Second, "a created stream to appear", func() bool { return headOf(t, w, absent) == 1 })
}

// When the listening session is lost, a change made meanwhile is never
// hidden: memory is not trusted past the bound without the session, and
// what it held is dropped when the session is back.
func TestHeadWatchFailsClosedWithoutItsSession(t *testing.T) {
	store, pool := storeOnly(t)
	const bound = 150 * time.Millisecond
	w := watched(t, store, eventstore.HeadWatchConfig{Bound: bound})
	stream := "hw-lost-" + uuid.NewString()
	other := elsewhere(pool)
	bump(t, other, stream)
	inMemory(t, w, stream, 1)
	// The session dies; the stream moves while nobody listens.
	killListeners(t, pool)
	bump(t, other, stream)
	moved := time.Now()
	for headOf(t, w, stream) != 2 {
		if time.Since(moved) > bound {
			t.Fatal("a head that moved while the session was down still read as 1 past the bound")
		}
		time.Sleep(time.Millisecond)
	}
	apptest.Eventually(t, 10*time.Second, "the head watch to listen again", w.Listening)
	if got := headOf(t, w, stream); got != 2 {
		t.Fatalf("head %d after the session came back, want 2", got)
	}
}

// A listening session that stops answering without closing (a frozen
// server process, a network that drops packets) is never trusted past the
// bound: a change made meanwhile, whose notification cannot arrive, is read
// from the database.
func TestHeadWatchDistrustsASilentSession(t *testing.T) {
	store, pool := storeOnly(t)
	const bound = 150 * time.Millisecond
	w := watched(t, store, eventstore.HeadWatchConfig{Bound: bound})
	stream := "hw-silent-" + uuid.NewString()
	other := elsewhere(pool)
	bump(t, other, stream)
	inMemory(t, w, stream, 1)
	pid := int(esitCount(t, pool, `SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND datname = current_database()`,
		eventstore.HeadWatchApplication))
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Skipf("cannot freeze the database's listening process %d (a server on another machine?): %v", pid, err)
	}
	defer syscall.Kill(pid, syscall.SIGCONT) //nolint:errcheck
	bump(t, other, stream)
	moved := time.Now()
	for headOf(t, w, stream) != 2 {
		if time.Since(moved) > bound {
			t.Fatal("a head that moved while the session was silent still read as 1 past the bound")
		}
		time.Sleep(time.Millisecond)
	}
	t.Logf("the move was seen after %s without a notification", time.Since(moved))
	if err := syscall.Kill(pid, syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	apptest.Eventually(t, 10*time.Second, "memory to be trusted again", func() bool {
		before, _ := w.Reads()
		headOf(t, w, stream)
		after, _ := w.Reads()
		return after > before
	})
	if got := headOf(t, w, stream); got != 2 {
		t.Fatalf("head %d after the session answered again, want 2", got)
	}
}

// killListeners ends every head-watch session of the test's database.
func killListeners(t *testing.T, pool *pgxpool.Pool) {
	t.Helper()
	n := esitCount(t, pool, `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
		WHERE application_name = $1 AND datname = current_database()`, eventstore.HeadWatchApplication)
	if n == 0 {
		t.Fatal("no listening session to end")
	}
}

// A Memo keeps values derived from the streams of its prefix: loaded once,
// then served from memory until any stream of the prefix moves (another
// process's append by notification, within the bound; this process's own
// at once), never dropped by streams of another prefix, and a value loaded
// while one of its streams moved is not kept.
func TestMemoDropsOnAnyStreamOfItsPrefix(t *testing.T) {
	store, pool := storeOnly(t)
	w := watched(t, store, eventstore.HeadWatchConfig{Bound: 200 * time.Millisecond})
	other := elsewhere(pool)
	prefix := "mw-" + uuid.NewString()[:8] + ":"
	m := eventstore.NewMemo[string, int](w, prefix)
	loads := 0
	get := func(during func()) int {
		t.Helper()
		v, err := m.Get(context.Background(), "k", func(context.Context) (int, error) {
			loads++
			if during != nil {
				during()
			}
			return loads, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	// held waits until the value is answered from memory (a round trip of
	// the session may be late on a loaded machine).
	held := func(want int) {
		t.Helper()
		apptest.Eventually(t, 10*time.Second, "the value to be held in memory", func() bool {
			before := loads
			if got := get(nil); got != want && loads == before {
				t.Fatalf("value %d, want %d", got, want)
			}
			return loads == before
		})
	}
	held(loads + 1)
	bump(t, other, "hw-"+uuid.NewString()) // another prefix: kept
	time.Sleep(50 * time.Millisecond)
	was := loads
	if get(nil); loads != was {
		t.Fatal("a stream of another prefix dropped the value")
	}
	bump(t, other, prefix+"a") // a stream the memo never read, of its prefix
	moved := time.Now()
	was = loads
	for loads == was {
		if time.Since(moved) > 200*time.Millisecond {
			t.Fatal("another process's append did not drop the value within the bound")
		}
		get(nil)
		time.Sleep(time.Millisecond)
	}
	t.Logf("another process's append dropped the value after %s", time.Since(moved))
	held(loads)
	bump(t, store, prefix+"b") // this process's own: at once
	was = loads
	if get(nil); loads != was+1 {
		t.Fatal("this process's own append did not drop the value before it answered")
	}
	held(loads)
	// A value loaded while a stream of the prefix moved is not kept.
	bump(t, store, prefix+"c")
	was = loads
	get(func() { bump(t, store, prefix+"d") })
	if get(nil); loads != was+2 {
		t.Fatalf("the value loaded during a move was kept (%d loads, want %d)", loads, was+2)
	}
}
