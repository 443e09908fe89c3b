package httpapi

import (
	"errors"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/platform/backend/domain/errs"
)

// TestLimiterForgetsFullBuckets: public routes key buckets by any address
// that calls; buckets that are full again are forgotten once the map has
// grown past its sweep mark, and a busy address keeps its bucket (and its
// empty bucket keeps refusing).
func TestLimiterForgetsFullBuckets(t *testing.T) {
	l := NewLimiter(RateLimitConfig{PerSecond: 1000, Burst: 1})
	busy := "ip:busy"
	for i := range minSweep {
		if err := l.Allow("ip:192.0.2." + strconv.Itoa(i)); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(5 * time.Millisecond) // every bucket refills its one token
	if err := l.Allow(busy); err != nil {
		t.Fatal(err)
	}
	if len(l.buckets) > 2 {
		t.Fatalf("%d buckets kept after the sweep, want the new ones only", len(l.buckets))
	}
	if err := l.Allow(busy); errs.KindOf(err) != errs.KindRateLimited {
		t.Fatalf("an empty bucket allowed a second call at once: %v", err)
	}
}

// TestAllowAddressKeysByPeer: the inbound and attempt limiters key by the
// peer address without its port; a nil limiter allows everything.
func TestAllowAddressKeysByPeer(t *testing.T) {
	l := NewLimiter(RateLimitConfig{PerSecond: 0.001, Burst: 1})
	r := httptest.NewRequest("POST", "/webhooks/stripe/x", nil)
	r.RemoteAddr = "192.0.2.7:1111"
	if err := l.AllowAddress(r); err != nil {
		t.Fatal(err)
	}
	r.RemoteAddr = "192.0.2.7:2222" // another connection of the same address
	var e *errs.Error
	if err := l.AllowAddress(r); !errors.As(err, &e) || e.Kind != errs.KindRateLimited || e.RetryAfterSeconds < 1 {
		t.Fatalf("second call of the address: %v", err)
	}
	if err := (*Limiter)(nil).AllowAddress(r); err != nil {
		t.Fatalf("a nil limiter refused: %v", err)
	}
}
