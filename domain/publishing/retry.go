package publishing

import (
	"time"

	"github.com/platform/backend/domain/event"
)

// Failure codes the publisher records.
const (
	FailureRateLimited   = "rate_limited"   // the network asked us to wait
	FailureProviderFault = "provider_fault" // the network failed; nothing was posted
	FailureRejected      = "rejected"       // the network refused the content for good
	FailureReconnect     = "reconnect"      // the grant is expired or revoked: the user connects again
	// FailureNoConnection: the brand has no active connection for the
	// network (or the brand is gone). Not retryable: waiting changes
	// nothing; someone connects an account, then retries.
	FailureNoConnection = "no_connection"
)

// RetryPolicy bounds automatic retries: only the failures the network
// itself says are worth another try later (a rate limit, a fault that left
// nothing posted) are retried without a person, at most MaxAttempts
// attempts per item (the first included), after the network's own wait
// (Retry-After, a reset time) or an exponential backoff, whichever is
// later. A rejection, a revoked grant, a missing connection are not: the
// same request would fail the same way.
type RetryPolicy struct {
	MaxAttempts int
	Backoff     time.Duration // before the second attempt; doubles per attempt
	MaxBackoff  time.Duration // the backoff's ceiling (a network's own wait may be longer)
}

// Automatic reports whether a failure code is retried without a person.
func Automatic(code string) bool {
	return code == FailureRateLimited || code == FailureProviderFault
}

// At is when the automatic retry after the itemAttempt-th failed attempt
// at an item goes, nil when there is none. wait is the network's own (0
// when it named none).
func (r RetryPolicy) At(code string, itemAttempt int, wait time.Duration, now time.Time) *time.Time {
	if !Automatic(code) || itemAttempt < 1 || itemAttempt >= r.MaxAttempts || r.Backoff <= 0 {
		return nil
	}
	d := r.Backoff
	for i := 1; i < itemAttempt && d < r.MaxBackoff; i++ {
		d *= 2
	}
	if r.MaxBackoff > 0 {
		d = min(d, r.MaxBackoff)
	}
	at := now.Add(max(d, wait)).UTC()
	return &at
}

// RetryTimer is the payload of a target's retry timer: the attempt whose
// failure scheduled it (a retry of anything newer is stale).
type RetryTimer struct {
	TargetID string `json:"target_id"`
	Attempt  int    `json:"attempt"`
}

func retryTimerName(targetID string) string { return "retry:" + targetID }

// retryTimers cancels the automatic retries the post has scheduled: a
// person's retry, reschedule, edit or delete decides instead. Call before
// the failures are cleared.
func (p *Post) retryTimers() []event.Timer {
	var out []event.Timer
	for _, t := range p.Targets {
		if t.State == StateFailed && t.Failure != nil && t.Failure.RetryAt != nil {
			out = append(out, event.CancelTimer(retryTimerName(t.TargetID)))
		}
	}
	return out
}

// RetryDue is a target's retry timer: when the target is still failed at
// the attempt that scheduled it, its item is claimed for a new attempt
// (a new idempotency key). Anything else (retried, rescheduled, edited,
// deleted, published meanwhile) claims nothing. A target is only ever
// failed with nothing of its current item on the network: an unknown
// outcome is unconfirmed, reconciled before any retry, never failed.
func (p *Post) RetryDue(targetID string, attempt int, now time.Time) ([]event.Change, []ClaimedTarget) {
	t, ok := p.Target(targetID)
	if !p.publishable() || !ok || t.State != StateFailed || t.Failure == nil || t.Failure.RetryAt == nil ||
		t.Attempt != attempt || t.Failure.Attempt != attempt || len(t.Published) >= len(p.Items) {
		return nil, nil
	}
	c := &changes{p: p, now: now}
	claim := p.claim(c, t, "automatic_retry")
	return c.out, []ClaimedTarget{claim}
}
