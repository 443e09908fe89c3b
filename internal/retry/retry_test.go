package retry

import (
	"context"
	"testing"
	"time"
)

func TestBackoff(t *testing.T) {
	for _, c := range []struct {
		try  int
		want time.Duration
	}{{1, 100 * time.Millisecond}, {2, 200 * time.Millisecond}, {3, 400 * time.Millisecond}, {5, time.Second}, {40, time.Second}} {
		if got := Backoff(100*time.Millisecond, c.try, time.Second); got != c.want {
			t.Errorf("Backoff(try %d) = %s, want %s", c.try, got, c.want)
		}
	}
}

func TestSleepEndsWithItsContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	start := time.Now()
	if Sleep(ctx, time.Hour) || time.Since(start) > time.Second {
		t.Fatal("Sleep outlived its context")
	}
	if !Sleep(context.Background(), time.Millisecond) {
		t.Fatal("Sleep reported a live context as ended")
	}
}
