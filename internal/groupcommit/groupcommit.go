// Package groupcommit gathers work that concurrent callers submit into
// batches, one flush per batch (a group commit): while a flush runs, new
// items queue, and the next flush takes them all. There is no background
// goroutine and no timer: the flush runs on a caller's goroutine (the
// leader), so nothing waits for a tick, a lone caller flushes at once, and
// nothing is left running when callers stop. A leader flushes one batch,
// the one holding its own item, then hands the lead to the first caller
// still waiting, so no caller works for others longer than one flush.
package groupcommit

import (
	"context"
	"fmt"
	"runtime/trace"
	"sync"
)

// Flush does the work of one batch: results[i] is items[i]'s. It runs on
// one caller's goroutine with a context that no single caller cancels (the
// batch is everyone's work).
type Flush[T, R any] func(ctx context.Context, items []T) []R

// Queue batches the items of concurrent Do calls.
type Queue[T, R any] struct {
	flush Flush[T, R]
	max   int

	mu      sync.Mutex
	queue   []*waiter[T, R]
	leading bool // a caller is flushing, or has been handed the lead
}

type waiter[T, R any] struct {
	item T
	res  R
	err  error         // set when the flush panicked
	done chan struct{} // closed once res (or err) is set
	lead chan struct{} // the previous leader hands this waiter the lead
}

// New makes a queue whose batches hold at most size items (at least 1).
func New[T, R any](flush Flush[T, R], size int) *Queue[T, R] {
	return &Queue[T, R]{flush: flush, max: max(size, 1)}
}

// Do submits item and waits for the flush that does it. It does not give
// up when ctx ends: the item may already be in a flush, and answering
// before the flush does would misreport what happened to it. The error is
// only a flush that panicked.
func (q *Queue[T, R]) Do(ctx context.Context, item T) (R, error) {
	w := &waiter[T, R]{item: item, done: make(chan struct{}), lead: make(chan struct{}, 1)}
	q.mu.Lock()
	q.queue = append(q.queue, w)
	if q.leading {
		q.mu.Unlock()
		select {
		case <-w.done:
			return w.res, w.err
		case <-w.lead:
		}
	} else {
		q.leading = true
		q.mu.Unlock()
	}
	q.lead(context.WithoutCancel(ctx))
	<-w.done
	return w.res, w.err
}

// lead flushes the batch at the front of the queue (it holds the leader's
// own item: the leader is either the caller that found no flush running or
// the first waiter, handed the lead), then hands the lead on.
func (q *Queue[T, R]) lead(ctx context.Context) {
	q.mu.Lock()
	batch := q.queue[:min(len(q.queue), q.max)]
	q.queue = q.queue[len(batch):]
	q.mu.Unlock()
	flushed := false
	defer func() {
		if !flushed {
			// The flush panicked (or its goroutine exited): its waiters
			// learn it, the lead moves on, and the panic continues on the
			// leader's goroutine.
			p := recover()
			for _, w := range batch {
				w.err = fmt.Errorf("groupcommit: the flush did not finish: %v", p)
				close(w.done)
			}
			q.handOver()
			if p != nil {
				panic(p)
			}
		}
	}()
	items := make([]T, len(batch))
	for i, w := range batch {
		items[i] = w.item
	}
	// A region of the leader's task under the execution tracer: its batch
	// size and how long the flush took, apart from the wait for it.
	region := trace.StartRegion(ctx, "groupcommit.flush")
	results := q.flush(ctx, items)
	region.End()
	flushed = true
	for i, w := range batch {
		if i < len(results) {
			w.res = results[i]
		} else {
			w.err = fmt.Errorf("groupcommit: the flush answered %d of %d items", len(results), len(batch))
		}
		close(w.done)
	}
	q.handOver()
}

// handOver gives the lead to the first waiting caller, or ends it.
func (q *Queue[T, R]) handOver() {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.queue) == 0 {
		q.leading = false
		return
	}
	q.queue[0].lead <- struct{}{}
}
