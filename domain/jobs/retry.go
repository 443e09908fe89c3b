package jobs

import (
	"errors"
	"time"
)

// RetryPolicy bounds a kind's automatic retries (lifted from publishing's):
// a failure the attempt marked retryable is tried again after an
// exponential backoff or the other side's own wait (Retry-After, a reset
// time), whichever is later, at most MaxAttempts attempts since the
// request or a person's retry (the first included). A failure not marked
// retryable is final: the same call would fail the same way.
type RetryPolicy struct {
	MaxAttempts int
	Backoff     time.Duration // before the second attempt; doubles per attempt
	MaxBackoff  time.Duration // the backoff's ceiling (the other side's wait may be longer)
}

// WithDefaults: 3 attempts, 30s doubling to 15m.
func (r RetryPolicy) WithDefaults() RetryPolicy {
	if r.MaxAttempts == 0 {
		r.MaxAttempts = 3
	}
	if r.Backoff == 0 {
		r.Backoff = 30 * time.Second
	}
	if r.MaxBackoff == 0 {
		r.MaxBackoff = max(15*time.Minute, r.Backoff)
	}
	return r
}

// Validate names what is wrong.
func (r RetryPolicy) Validate() error {
	var problems []error
	if r.MaxAttempts < 1 {
		problems = append(problems, errors.New("at least one attempt"))
	}
	if r.Backoff < 0 || r.MaxBackoff < r.Backoff {
		problems = append(problems, errors.New("the backoff must not be negative, and at most the maximum backoff"))
	}
	return errors.Join(problems...)
}

// At is when the retry after the tries-th failed attempt goes, nil when the
// attempts are used up. wait is the other side's own (0 when it named none).
func (r RetryPolicy) At(tries int, wait time.Duration, now time.Time) *time.Time {
	if tries < 1 || tries >= r.MaxAttempts {
		return nil
	}
	d := r.Backoff
	for i := 1; i < tries && d < r.MaxBackoff; i++ {
		d *= 2
	}
	if r.MaxBackoff > 0 {
		d = min(d, r.MaxBackoff)
	}
	at := now.Add(max(d, wait)).UTC()
	return &at
}
