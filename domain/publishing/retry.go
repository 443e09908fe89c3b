package publishing

import (
	"sort"
	"time"

	"github.com/platform/backend/domain/event"
)

// Failure codes a target records: the publisher's, and the job kernel's
// (invalid_input; its "lost" is recorded as not_found).
const (
	FailureRateLimited   = "rate_limited"   // the network asked us to wait
	FailureProviderFault = "provider_fault" // the network failed; nothing was posted
	FailureRejected      = "rejected"       // the network refused the content for good
	FailureReconnect     = "reconnect"      // the grant is expired or revoked: the user connects again
	// FailureNoConnection: the brand has no active connection for the
	// network (or the brand is gone): someone connects an account.
	FailureNoConnection = "no_connection"
	FailureNotFound     = "not_found" // reconciled: the network did not get the post, attempts used up
	// FailureSuperseded: the item's job ran while the target no longer
	// waited for it (rescheduled, edited, deleted meanwhile): nothing was
	// sent, and the post ignores it.
	FailureSuperseded = "superseded"
	// FailureTokenUnreadable: the connection's token opens with no key of
	// the ring (a key retired too early, a ring misconfigured): an operator
	// restores the key, or the user connects again.
	FailureTokenUnreadable = "token_unreadable"
	// FailureNetworkUnavailable: this deployment has no adapter for the
	// network (its configuration is missing): an operator sets it up.
	FailureNetworkUnavailable = "network_unavailable"
	// FailureMediaUnavailable: the post's media could not be read for the
	// send (the media read model or the object store did not answer).
	FailureMediaUnavailable = "media_unavailable"
	// FailureUnverifiable: an unconfirmed attempt's connection is gone, so
	// nobody can read the network to settle it; a person decides.
	FailureUnverifiable = "unverifiable"
	// FailureInvalidInput: the kernel's: the item job's input does not decode.
	FailureInvalidInput = "invalid_input"
)

// retryKind is what a failure code means for retries.
type retryKind struct {
	// automatic: the item job's retry policy tries again by itself (the
	// publisher answers jobs.Retryable for it, jobs.Fail for the others).
	automatic bool
	// retryable: the same attempt may succeed later with nobody changing
	// anything (failure.retryable). A failure that needs a person (a
	// connection, a key, a configuration, other content) is not, though a
	// person's retry after the change may succeed.
	retryable bool
}

// failureCodes is every code a target can record. A code missing here is
// neither automatic nor retryable.
var failureCodes = map[string]retryKind{
	FailureRateLimited:   {automatic: true, retryable: true},
	FailureProviderFault: {automatic: true, retryable: true},
	// The reconciler proved the network has nothing, after the item's
	// automatic attempts: sending again may work as well as the first did.
	FailureNotFound: {retryable: true},
	// An outage of the media read model or the store heals by itself
	// (media are checked when the post is written, so a missing file is
	// not the usual cause). Not automatic: the job's policy is for the
	// network's own faults.
	FailureMediaUnavailable: {retryable: true},
	FailureRejected:         {},
	// A 401 at the send comes after the publisher refreshed a token near
	// its expiry: the grant itself is refused (revoked, expired for good,
	// scope removed), and a failed refresh marked the connection
	// reconnect. Nothing renews it but the user connecting again.
	FailureReconnect:          {},
	FailureNoConnection:       {},
	FailureTokenUnreadable:    {}, // the ring changes only with a restart, by an operator
	FailureNetworkUnavailable: {}, // configuration, read at start
	FailureUnverifiable:       {},
	FailureSuperseded:         {},
	FailureInvalidInput:       {},
}

// FailureCodes lists every code a target can record, sorted.
func FailureCodes() []string {
	out := make([]string, 0, len(failureCodes))
	for code := range failureCodes {
		out = append(out, code)
	}
	sort.Strings(out)
	return out
}

// Automatic reports whether a failure code is retried without a person (by
// the item job's retry policy): only what the network itself says is worth
// another try later, a rate limit or a fault that left nothing posted.
func Automatic(code string) bool { return failureCodes[code].automatic }

// Retryable reports whether the same attempt may succeed later with nobody
// changing anything (the post's failure.retryable).
func Retryable(code string) bool { return failureCodes[code].retryable }

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
