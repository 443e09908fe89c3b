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
	FailureNotFound     = "not_found" // reconciled: the network did not get the post, attempts used up
	// FailureSuperseded: the item's job ran while the target no longer
	// waited for it (rescheduled, edited, deleted meanwhile): nothing was
	// sent, and the post ignores it.
	FailureSuperseded = "superseded"
)

// Automatic reports whether a failure code is retried without a person (by
// the item job's retry policy): only what the network itself says is worth
// another try later, a rate limit or a fault that left nothing posted. A
// rejection, a revoked grant, a missing connection are not: the same
// request would fail the same way.
func Automatic(code string) bool {
	return code == FailureRateLimited || code == FailureProviderFault
}

// notRetryable are the failures a person's retry cannot fix either: the
// content itself, or a brand without a connection (nothing changes by
// trying again; connecting does, and a new post then goes).
var notRetryable = map[string]bool{FailureRejected: true, FailureNoConnection: true, FailureSuperseded: true, "invalid_input": true}

// Retryable reports whether a person's retry may succeed where a failure
// with code failed (the post's failure.retryable).
func Retryable(code string) bool { return !notRetryable[code] }

// RetryTimer is the payload of the retry timer ("retry:<target id>", kind
// TimerKindRetry) a target's automatic retry had before item jobs retried
// themselves: timers scheduled then still fire (RetryDue), and a person's
// retry, reschedule, edit or delete still cancels them.
type RetryTimer struct {
	TargetID string `json:"target_id"`
	Attempt  int    `json:"attempt"`
}

func retryTimerName(targetID string) string { return "retry:" + targetID }

// retryTimers cancels the retry timers of the targets that may have one
// (scheduled before item jobs). Call before the failures are cleared.
func (p *Post) retryTimers() []event.Timer {
	var out []event.Timer
	for _, t := range p.Targets {
		if t.State == StateFailed && t.Failure != nil && t.Failure.RetryAt != nil {
			out = append(out, event.CancelTimer(retryTimerName(t.TargetID)))
		}
	}
	return out
}

// RetryDue is a retry timer scheduled before item jobs: when the target is
// still failed at the attempt that scheduled it, its item is claimed again
// (its job is retried). Anything else claims nothing.
func (p *Post) RetryDue(targetID string, attempt int, now time.Time) ([]event.Change, []ClaimedTarget) {
	t, ok := p.Target(targetID)
	if !p.publishable() || !ok || t.State != StateFailed || t.Failure == nil || t.Failure.RetryAt == nil ||
		t.Attempt != attempt || len(t.Published) >= len(p.Items) {
		return nil, nil
	}
	c := &changes{p: p, now: now}
	claim := p.claim(c, t, "automatic_retry")
	return c.out, []ClaimedTarget{claim}
}
