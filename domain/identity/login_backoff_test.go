package identity_test

import (
	"testing"
	"time"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/identity"
)

func TestLoginBackoff(t *testing.T) {
	tests := []struct {
		n    int
		want time.Duration
	}{
		{0, 0}, {1, 0}, {4, 0},
		{5, time.Second}, {6, 2 * time.Second}, {7, 4 * time.Second}, {10, 32 * time.Second},
		{14, 512 * time.Second}, {15, 15 * time.Minute}, {16, 15 * time.Minute}, {100, 15 * time.Minute}, {1 << 30, 15 * time.Minute},
	}
	for _, tt := range tests {
		if got := identity.LoginBackoff(tt.n); got != tt.want {
			t.Errorf("LoginBackoff(%d) = %s, want %s", tt.n, got, tt.want)
		}
	}
}

// TestLoginFailuresRun: given a run of failures, when an attempt comes,
// then it is refused during the window (with the seconds to wait), or
// counted.
func TestLoginFailuresRun(t *testing.T) {
	now := testNow
	var f identity.LoginFailures
	for i := 1; i <= 4; i++ {
		if err := f.Check(now); err != nil {
			t.Fatalf("attempt %d refused: %v", i, err)
		}
		f = f.Attempt(now)
		if !f.BlockedUntil.IsZero() {
			t.Fatalf("blocked after %d failures", i)
		}
	}
	f = f.Attempt(now) // the fifth failure opens the first window
	if f.Failures != 5 || !f.BlockedUntil.Equal(now.Add(time.Second)) {
		t.Fatalf("after five: %+v", f)
	}
	err := f.Check(now.Add(200 * time.Millisecond))
	if e, ok := errs.As(err); !ok || e.Kind != errs.KindRateLimited || e.RetryAfterSeconds != 1 {
		t.Fatalf("during the window: %#v", err)
	}
	if err := f.Check(now.Add(time.Second)); err != nil {
		t.Fatalf("after the window: %v", err)
	}
	f = f.Attempt(now.Add(time.Second))
	if !f.BlockedUntil.Equal(now.Add(3 * time.Second)) {
		t.Fatalf("the sixth failure doubles the window: %+v", f)
	}
	if e, _ := errs.As(f.Check(now.Add(time.Second + 100*time.Millisecond))); e == nil || e.RetryAfterSeconds != 2 {
		t.Fatalf("retry after rounds up: %+v", e)
	}
	// A run older than a day is forgotten.
	later := now.Add(identity.LoginFailureMemory + time.Minute)
	if g := f.Attempt(later); g.Failures != 1 || !g.BlockedUntil.IsZero() {
		t.Fatalf("an old run starts over: %+v", g)
	}
}
