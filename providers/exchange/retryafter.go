package exchange

import (
	"net/http"
	"strconv"
	"time"
)

// MaxRetryAfter caps an absurd wait.
const MaxRetryAfter = 24 * time.Hour

// RetryAfter reads how long a provider asked to wait: Retry-After-Ms
// (OpenAI's, milliseconds), else Retry-After (RFC 9110 §10.2.3: seconds,
// fractions accepted, or an HTTP date, rounded up to whole seconds: waking a
// moment early only earns another 429). Zero when absent, unreadable or
// past; at most MaxRetryAfter.
func RetryAfter(h http.Header, now time.Time) time.Duration {
	if v := h.Get("Retry-After-Ms"); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 {
			return min(time.Duration(min(ms, float64(MaxRetryAfter/time.Millisecond))*float64(time.Millisecond)), MaxRetryAfter)
		}
	}
	v := h.Get("Retry-After")
	if v == "" {
		return 0
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil {
		if secs <= 0 {
			return 0
		}
		return min(time.Duration(min(secs, float64(MaxRetryAfter/time.Second))*float64(time.Second)), MaxRetryAfter)
	}
	if at, err := http.ParseTime(v); err == nil && at.After(now) {
		d := at.Sub(now)
		if rest := d % time.Second; rest != 0 {
			d += time.Second - rest
		}
		return min(d, MaxRetryAfter)
	}
	return 0
}
