package social

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/platform/backend/providers/exchange"
	"github.com/platform/backend/providers/outcome"
)

// WaitFromHeaders reads how long a rate-limited answer asks us to wait, from
// the headers networks use: Retry-After (exchange.RetryAfter), X's
// x-rate-limit-reset and the X-RateLimit-Reset of Mastodon and others (Unix
// seconds or an ISO 8601 time). It answers the wait and the moment it ends;
// zero values when no header said.
func WaitFromHeaders(h http.Header, now time.Time) (time.Duration, time.Time) {
	if d := exchange.RetryAfter(h, now); d > 0 {
		return d, now.Add(d)
	}
	// Go canonicalizes x-rate-limit-reset and X-RateLimit-Reset to two
	// different keys.
	for _, key := range []string{"X-Rate-Limit-Reset", "X-Ratelimit-Reset"} {
		v := strings.TrimSpace(h.Get(key))
		if v == "" {
			continue
		}
		if secs, err := strconv.ParseInt(v, 10, 64); err == nil && secs > 0 {
			return until(now, time.Unix(secs, 0))
		}
		if at, err := time.Parse(time.RFC3339Nano, v); err == nil {
			return until(now, at)
		}
	}
	return 0, time.Time{}
}

// RateLimited builds a rate-limit error carrying the wait.
func RateLimited(network, op string, status int, wait time.Duration, at time.Time) *Error {
	e := Fail(network, op, outcome.RateLimited, ReasonRateLimited, status)
	e.RetryAfter, e.ResetAt = wait, at
	return e
}

func until(now, at time.Time) (time.Duration, time.Time) {
	d := at.Sub(now)
	if d < 0 {
		d = 0
	}
	// Whole seconds, rounded up: waking a moment early only earns another 429.
	if rest := d % time.Second; rest != 0 {
		d += time.Second - rest
	}
	return d, at
}
