// Package retry holds the two waits every background worker shares (the
// relay, the projection runner, reactors, timers, leaders): a doubling
// backoff and a sleep that ends with its context.
package retry

import (
	"context"
	"time"
)

// Backoff is the pause before try number try (1-based): base, doubled per
// earlier try, at most limit.
func Backoff(base time.Duration, try int, limit time.Duration) time.Duration {
	d := base
	for i := 1; i < try && d < limit; i++ {
		d *= 2
	}
	return min(d, limit)
}

// Sleep waits d unless ctx ends first; it reports whether ctx is still live.
func Sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
