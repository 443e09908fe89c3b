package app

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// TestSuperviseStopsEveryTaskWhenOneFails: a failing worker or listener
// stops the others and Run returns its error; before, Run waited for the
// others, which ran on, so platformd neither worked fully nor exited.
func TestSuperviseStopsEveryTaskWhenOneFails(t *testing.T) {
	stopped := make(chan struct{})
	boom := errors.New("boom")
	done := make(chan error, 1)
	go func() {
		done <- supervise(t.Context(), []task{
			{"steady", func(ctx context.Context) error { <-ctx.Done(); close(stopped); return ctx.Err() }},
			{"failing", func(context.Context) error { return boom }},
		})
	}()
	select {
	case err := <-done:
		if !errors.Is(err, boom) || !strings.HasPrefix(err.Error(), "failing: ") {
			t.Fatalf("supervise() = %v, want the failing task's error, named", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("supervise did not return after a task failed")
	}
	select {
	case <-stopped:
	default:
		t.Fatal("the other task was not stopped before supervise returned")
	}
}
