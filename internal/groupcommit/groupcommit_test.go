package groupcommit_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/platform/backend/internal/groupcommit"
)

func double(_ context.Context, items []int) []int {
	out := make([]int, len(items))
	for i, v := range items {
		out[i] = 2 * v
	}
	return out
}

// A lone caller flushes at once, alone.
func TestLoneCallerFlushesAtOnce(t *testing.T) {
	var sizes []int
	q := groupcommit.New(func(ctx context.Context, items []int) []int {
		sizes = append(sizes, len(items))
		return double(ctx, items)
	}, 8)
	for i := range 3 {
		if got, err := q.Do(context.Background(), i); err != nil || got != 2*i {
			t.Fatalf("Do(%d) = %d, %v", i, got, err)
		}
	}
	if len(sizes) != 3 || sizes[0] != 1 || sizes[2] != 1 {
		t.Fatalf("batch sizes %v, want three batches of one", sizes)
	}
}

// Items that arrive while a flush runs go together in the next one (at
// most size of them), each caller gets its own result, and the caller that
// led the first flush returns while the next flush still runs (the lead
// was handed over, not kept).
func TestConcurrentCallersShareFlushes(t *testing.T) {
	release := make(chan struct{})
	var mu sync.Mutex
	var sizes []int
	first := true
	q := groupcommit.New(func(ctx context.Context, items []int) []int {
		mu.Lock()
		sizes = append(sizes, len(items))
		wasFirst := first
		first = false
		mu.Unlock()
		if !wasFirst {
			<-release // the later flushes wait for the test
		} else {
			time.Sleep(50 * time.Millisecond) // the others queue meanwhile
		}
		return double(ctx, items)
	}, 4)
	leaderDone := make(chan int)
	go func() {
		v, _ := q.Do(context.Background(), 100)
		leaderDone <- v
	}()
	time.Sleep(10 * time.Millisecond) // the leader's flush is running
	const n = 10
	results := make([]int, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { results[i], _ = q.Do(context.Background(), i) })
	}
	select {
	case v := <-leaderDone:
		if v != 200 {
			t.Fatalf("leader got %d", v)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the first leader did not return while the next flush ran: it kept the lead")
	}
	close(release)
	wg.Wait()
	for i, v := range results {
		if v != 2*i {
			t.Fatalf("caller %d got %d", i, v)
		}
	}
	total := 0
	for _, s := range sizes {
		if s > 4 {
			t.Fatalf("a batch of %d, above the size 4", s)
		}
		total += s
	}
	if total != n+1 || len(sizes) > 1+(n+3)/4+1 {
		t.Fatalf("batch sizes %v: want the %d waiting items in full batches", sizes, n)
	}
}

// A flush that panics fails its own batch's callers (with an error, not a
// hang), the panic reaches the leader, and later callers are served.
func TestPanickingFlushFailsItsBatchOnly(t *testing.T) {
	q := groupcommit.New(func(ctx context.Context, items []int) []int {
		if items[0] < 0 {
			panic("bad item")
		}
		return double(ctx, items)
	}, 8)
	func() {
		defer func() {
			if p := recover(); p != "bad item" {
				t.Fatalf("leader recovered %v, want the flush's panic", p)
			}
		}()
		_, _ = q.Do(context.Background(), -1)
		t.Fatal("Do returned after its flush panicked")
	}()
	if got, err := q.Do(context.Background(), 4); err != nil || got != 8 {
		t.Fatalf("after a panic: %d, %v", got, err)
	}
}

// A waiter in a panicking batch gets an error.
func TestWaiterOfPanickingBatchGetsError(t *testing.T) {
	started := make(chan struct{})
	release := make(chan struct{})
	q := groupcommit.New(func(ctx context.Context, items []int) []int {
		if items[0] == 0 {
			close(started)
			<-release
			return double(ctx, items)
		}
		panic("second batch")
	}, 8)
	go func() { _, _ = q.Do(context.Background(), 0) }()
	<-started
	errc := make(chan error, 2)
	leader := func() {
		defer func() { _ = recover() }()
		_, err := q.Do(context.Background(), 1)
		errc <- err
	}
	go leader()
	go leader()
	time.Sleep(20 * time.Millisecond)
	close(release)
	select {
	case err := <-errc:
		if err == nil || !strings.Contains(err.Error(), "did not finish") {
			t.Fatalf("waiter of a panicking flush: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the waiter of a panicking flush hangs")
	}
}

// A caller's ended context does not cancel the flush doing its item and
// others'.
func TestFlushIgnoresTheLeadersCancel(t *testing.T) {
	q := groupcommit.New(func(ctx context.Context, items []int) []int {
		if ctx.Err() != nil {
			return make([]int, len(items))
		}
		return double(ctx, items)
	}, 8)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if got, _ := q.Do(ctx, 3); got != 6 {
		t.Fatalf("flush saw the leader's cancel: %d", got)
	}
}
