package gateway

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/platform/backend/domain/errs"
)

// flaky is a write that fails with an outage its first `failures` calls.
type flaky struct {
	failures int32
	calls    atomic.Int32
}

func (f *flaky) call(context.Context) error {
	if f.calls.Add(1) <= f.failures {
		return errs.Unavailable("out", errors.New("connection refused"))
	}
	return nil
}

// heldCount reads platform_gateway_held_settles_total{kept}.
func heldCount(t *testing.T, kept string) float64 {
	t.Helper()
	var m dto.Metric
	if err := heldSettles.WithLabelValues(kept).Write(&m); err != nil {
		t.Fatal(err)
	}
	return m.GetCounter().GetValue()
}

func quietLandings() *landings { return newLandings(slog.New(slog.NewTextHandler(io.Discard, nil))) }

// waitReleased waits until nothing is held under prefix.
func waitReleased(t *testing.T, l *landings, prefix string, within time.Duration) {
	t.Helper()
	for deadline := time.Now().Add(within); len(l.names(prefix)) > 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("still held after %s: %v", within, l.names(prefix))
		}
	}
}

// TestAHeldSettleIsLoggedOnceTheBrokerIsBack: with the database and the
// broker both out at answer time, the settle is held in memory only
// (counted kept="memory"), and each retry tries the settle log again until
// the log takes it, then no more; the settle itself lands when the
// database is back, and is held (the sweeper leaves it alone) until then.
func TestAHeldSettleIsLoggedOnceTheBrokerIsBack(t *testing.T) {
	l := quietLandings()
	defer l.close()
	memory0 := heldCount(t, "memory")
	write := &flaky{failures: 4} // the answer's try and three retries
	keep := &flaky{failures: 2}  // the answer's try and the first retry
	if err := l.land(context.Background(), heldSettle+"req-1", write.call, keep.call); err != nil {
		t.Fatalf("land: %v, want nil (held)", err)
	}
	if got := l.names(heldSettle); !slices.Equal(got, []string{"req-1"}) {
		t.Fatalf("held settles %v, want [req-1]", got)
	}
	if d := heldCount(t, "memory") - memory0; d != 1 {
		t.Fatalf("kept=memory counted %v times, want 1", d)
	}
	waitReleased(t, l, heldSettle, 20*time.Second)
	if n := write.calls.Load(); n != 5 {
		t.Errorf("the settle was written %d times, want 5 (four outages, then it landed)", n)
	}
	if n := keep.calls.Load(); n != 3 {
		t.Errorf("the settle log was tried %d times, want 3 (until it took the settle, then no more)", n)
	}
}

// TestALoggedSettleIsNotLoggedAgain: the broker up at answer time, the
// settle goes to the log once (kept="log") and only the database write is
// retried.
func TestALoggedSettleIsNotLoggedAgain(t *testing.T) {
	l := quietLandings()
	defer l.close()
	log0 := heldCount(t, "log")
	write, keep := &flaky{failures: 2}, &flaky{}
	if err := l.land(context.Background(), heldSettle+"req-2", write.call, keep.call); err != nil {
		t.Fatal(err)
	}
	if d := heldCount(t, "log") - log0; d != 1 {
		t.Fatalf("kept=log counted %v times, want 1", d)
	}
	waitReleased(t, l, heldSettle, 20*time.Second)
	if n, k := write.calls.Load(), keep.calls.Load(); n != 3 || k != 1 {
		t.Fatalf("written %d times and logged %d, want 3 and 1", n, k)
	}
}

// TestStoppingGivesUpAHeldWrite: a process stopping while the database is
// still out stops the retries (close returns), and releases the write's
// name; a write that is not an outage is not held at all.
func TestStoppingGivesUpAHeldWrite(t *testing.T) {
	l := quietLandings()
	write := &flaky{failures: 1 << 30}
	if err := l.land(context.Background(), heldSettle+"req-3", write.call, (&flaky{failures: 1 << 30}).call); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { l.close(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("close did not stop the retries")
	}
	if got := l.names(""); len(got) != 0 {
		t.Fatalf("held after close: %v", got)
	}
	calls := write.calls.Load()
	time.Sleep(2 * landingBackoff)
	if write.calls.Load() != calls {
		t.Fatal("the write was tried again after close")
	}

	refused := errors.New("bad request")
	l2 := quietLandings()
	defer l2.close()
	if err := l2.land(context.Background(), heldSettle+"req-4", func(context.Context) error { return refused }, nil); !errors.Is(err, refused) {
		t.Fatalf("land of a refused write: %v, want the refusal", err)
	}
	if got := l2.names(""); len(got) != 0 {
		t.Fatalf("a refused write is held: %v", got)
	}
}
