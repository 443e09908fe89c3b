package publishing

import (
	"time"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
)

// ClaimedTarget is one claim a decision made: what to send for which
// target, item and attempt.
type ClaimedTarget struct {
	TargetID string
	Network  string
	// AccountID and PageID are the target's explicit account, if any.
	AccountID *string
	PageID    *string
	Claim     Claim
	Item      Item
}

// Tries is how many attempts its item has had with this one: ItemAttempt,
// or the target's attempt count for a claim recorded before items' attempts
// were counted (an upper bound: retries stop no later than before).
func (c Claim) Tries() int {
	if c.ItemAttempt > 0 {
		return c.ItemAttempt
	}
	return c.Attempt
}

// IdempotencyKey names one attempt at one item of one target.
func IdempotencyKey(postID, targetID string, item, attempt int) string {
	return "post:" + postID + ":target:" + targetID + ":item:" + itoa(item) + ":attempt:" + itoa(attempt)
}

// publishable: the post may be claimed (not deleted, not a draft awaiting
// or refused approval).
func (p *Post) publishable() bool {
	return p.Exists() && (p.Approval == ApprovalNone || p.Approval == ApprovalApproved)
}

// claim starts an attempt at the target's next item.
func (p *Post) claim(c *changes, t *Target, reason string) ClaimedTarget {
	item := len(t.Published)
	t.Attempt++
	t.ItemAttempts++
	cl := Claim{Item: item, Attempt: t.Attempt, IdempotencyKey: IdempotencyKey(p.PostID, t.TargetID, item, t.Attempt),
		ClaimedAt: c.now, ItemAttempt: t.ItemAttempts}
	if item > 0 {
		prev := t.Published[item-1].PlatformPostID
		cl.ReplyTo = &prev
	}
	t.State, t.InFlight, t.Failure = StatePublishing, &cl, nil
	i := item
	c.emit(TargetClaimed, PostEvent{TargetID: t.TargetID, Item: &i, Attempt: t.Attempt, Reason: reason})
	return ClaimedTarget{TargetID: t.TargetID, Network: t.Network, AccountID: t.AccountID, PageID: t.PageID, Claim: cl, Item: p.Items[item]}
}

// Due is what the publish timer does at its time: it claims the next item of
// every scheduled target, from the post as it is now (copy edited a moment
// before is what goes out). A target already claimed, on the network or
// unconfirmed is not claimed again; a deleted or draft post claims nothing.
func (p *Post) Due(now time.Time) ([]event.Change, []ClaimedTarget) {
	if !p.publishable() {
		return nil, nil
	}
	c := &changes{p: p, now: now}
	var claims []ClaimedTarget
	for i := range p.Targets {
		t := &p.Targets[i]
		if t.State == StateScheduled && len(t.Published) < len(p.Items) {
			claims = append(claims, p.claim(c, t, ""))
		}
	}
	return c.out, claims
}

// ClaimNext continues a thread: the item after the one just published, for
// one target, when nobody claimed it yet.
func (p *Post) ClaimNext(targetID string, item int, now time.Time) ([]event.Change, []ClaimedTarget) {
	t, ok := p.Target(targetID)
	if !p.publishable() || !ok || t.State != StateScheduled || len(t.Published) != item || item >= len(p.Items) {
		return nil, nil
	}
	c := &changes{p: p, now: now}
	claim := p.claim(c, t, "")
	return c.out, []ClaimedTarget{claim}
}

// inFlight finds the target's attempt at item if it is still the current
// one (publishing or unconfirmed): an outcome of an older attempt, or one
// recorded already, changes nothing.
func (p *Post) attempt(targetID string, item, attempt int) (*Target, bool) {
	t, ok := p.Target(targetID)
	if !ok || t.InFlight == nil || t.InFlight.Item != item || t.InFlight.Attempt != attempt {
		return nil, false
	}
	return t, t.State == StatePublishing || t.State == StateUnconfirmed
}

// Outcome is what became of one attempt.
type Outcome struct {
	PlatformPostID string
	URL            *string
	ConnectionID   string
	At             time.Time // the network's time of the post, or now
}

// RecordPublished: the network has the item. The target is published once
// every item is; otherwise it waits, scheduled, for its next item.
func (p *Post) RecordPublished(targetID string, item, attempt int, o Outcome, now time.Time) ([]event.Change, error) {
	t, ok := p.attempt(targetID, item, attempt)
	if !ok {
		return nil, nil
	}
	if o.PlatformPostID == "" {
		return nil, errs.InvalidField("/platform_post_id", "a published item has a platform post id")
	}
	at := o.At
	if at.IsZero() {
		at = now
	}
	t.Published = append(t.Published, PublishedItem{Item: item, PlatformPostID: o.PlatformPostID, URL: o.URL,
		ConnectionID: o.ConnectionID, PublishedAt: at})
	t.InFlight, t.Failure, t.ItemAttempts = nil, nil, 0
	first := t.Published[0]
	t.PlatformPostID, t.URL = &first.PlatformPostID, first.URL
	done := len(t.Published) == len(p.Items)
	t.State = StateScheduled
	if done {
		t.State = StatePublished
	}
	c := &changes{p: p, now: now}
	i := item
	c.emit(TargetPublished, PostEvent{TargetID: targetID, Item: &i, Attempt: attempt, Done: done})
	return c.out, nil
}

// RecordFailed: the attempt failed and nothing is on the network; a thread
// stops at this item (a retry resumes here). A failure with a RetryAt
// schedules the target's retry timer (RetryDue) then.
func (p *Post) RecordFailed(targetID string, item, attempt int, f Failure, now time.Time) ([]event.Change, error) {
	t, ok := p.attempt(targetID, item, attempt)
	if !ok {
		return nil, nil
	}
	f.Item, f.Attempt, f.At = item, attempt, now
	if !f.Retryable {
		f.RetryAt = nil
	}
	t.State, t.InFlight, t.Failure = StateFailed, nil, &f
	c := &changes{p: p, now: now}
	i := item
	var timers []event.Timer
	if f.RetryAt != nil {
		timers = append(timers, event.ScheduleTimer(retryTimerName(targetID), TimerKindRetry, *f.RetryAt, RetryTimer{TargetID: targetID, Attempt: attempt}))
	}
	c.emit(TargetFailed, PostEvent{TargetID: targetID, Item: &i, Attempt: attempt, Reason: f.Code}, timers...)
	return c.out, nil
}

// RecordUnconfirmed: the request was sent and no answer came; the network
// may have the item. Only reconciliation moves the target on.
func (p *Post) RecordUnconfirmed(targetID string, item, attempt int, pending, connectionID *string, reason string, now time.Time) ([]event.Change, error) {
	t, ok := p.attempt(targetID, item, attempt)
	if !ok || t.State != StatePublishing {
		return nil, nil
	}
	t.State = StateUnconfirmed
	t.InFlight.Pending, t.InFlight.ConnectionID = pending, connectionID
	c := &changes{p: p, now: now}
	i := item
	c.emit(TargetUnconfirmed, PostEvent{TargetID: targetID, Item: &i, Attempt: attempt, Reason: reason})
	return c.out, nil
}

// Requeue puts a target whose attempt provably left nothing on the network
// (reconciled: not found) back on the schedule, to be sent again now.
func (p *Post) Requeue(targetID string, item, attempt int, reason string, now time.Time) ([]event.Change, error) {
	t, ok := p.attempt(targetID, item, attempt)
	if !ok {
		return nil, nil
	}
	t.State, t.InFlight = StateScheduled, nil
	c := &changes{p: p, now: now}
	i := item
	c.emit(TargetRequeued, PostEvent{TargetID: targetID, Item: &i, Attempt: attempt, Reason: reason},
		event.ScheduleTimer(TimerPublish, TimerKindPublish, now, nil))
	return c.out, nil
}
