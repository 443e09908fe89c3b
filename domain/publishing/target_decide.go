package publishing

import (
	"time"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
)

// ClaimedTarget is one claim a decision made: which item of which target
// is now on its way to the network.
type ClaimedTarget struct {
	TargetID string
	Network  string
	// AccountID and PageID are the target's explicit account, if any.
	AccountID *string
	PageID    *string
	Claim     Claim
	Item      Item
}

// ItemJobID names the durable job that publishes item i of a target. One
// job per item for the post's whole life: a person's retry retries the job,
// so every attempt at the item is serialized on the job's stream, each with
// its own idempotency key, and an item the job published is never sent
// again.
func ItemJobID(postID, targetID string, item int) string {
	return postID + ":" + targetID + ":" + itoa(item)
}

// ReasonJobAttempt is the reason of a target.claimed event that records an
// item job's next attempt (a retry, or one after a reconciliation found
// nothing): the job runs already, nothing is requested.
const ReasonJobAttempt = "job_attempt"

// publishable: the post may be claimed (not deleted, not a draft awaiting
// or refused approval).
func (p *Post) publishable() bool {
	return p.Exists() && (p.Approval == ApprovalNone || p.Approval == ApprovalApproved)
}

// claim puts the target's next item on its way: its job is requested (or
// retried) by the publisher when it reads the target.claimed event.
func (p *Post) claim(c *changes, t *Target, reason string) ClaimedTarget {
	item := len(t.Published)
	cl := Claim{Item: item, JobID: ItemJobID(p.PostID, t.TargetID, item), ClaimedAt: c.now}
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
// before is what goes out: the item's job reads the post when it sends). A
// target already claimed, on the network or unconfirmed is not claimed
// again; a deleted or draft post claims nothing.
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

// Awaits reports whether the target waits for item's job: claimed
// (publishing), unconfirmed, or failed with the job's automatic retry on
// its way. The job sends only then; otherwise it was superseded (the post
// was rescheduled, edited or deleted since) and sends nothing.
func (p *Post) Awaits(targetID string, item int) bool {
	t, ok := p.Target(targetID)
	if !p.publishable() || !ok || len(t.Published) != item || item >= len(p.Items) {
		return false
	}
	switch t.State {
	case StatePublishing, StateUnconfirmed:
		return t.InFlight != nil && t.InFlight.Item == item
	case StateFailed:
		return t.Failure != nil && t.Failure.Item == item && t.Failure.RetryAt != nil
	}
	return false
}

// count adds the item job's attempts not counted yet to the target's.
func (t *Target) count(attempt int) {
	if attempt > t.JobAttempt {
		t.Attempt += attempt - t.JobAttempt
		t.JobAttempt = attempt
	}
}

// Outcome is what became of one attempt.
type Outcome struct {
	PlatformPostID string
	URL            *string
	ConnectionID   string
	At             time.Time // the network's time of the post, or now
}

// AttemptStarted: the item's job claimed attempt (a retry, or a new attempt
// after a reconciliation found nothing); the target is publishing again.
func (p *Post) AttemptStarted(targetID string, item, attempt int, key string, claimedAt, now time.Time) []event.Change {
	if !p.Awaits(targetID, item) {
		return nil
	}
	t, _ := p.Target(targetID)
	if t.State == StatePublishing && t.InFlight.Attempt >= attempt {
		return nil // known
	}
	t.count(attempt)
	cl := Claim{Item: item, JobID: ItemJobID(p.PostID, targetID, item), Attempt: attempt, IdempotencyKey: key, ClaimedAt: claimedAt}
	if item > 0 {
		prev := t.Published[item-1].PlatformPostID
		cl.ReplyTo = &prev
	}
	t.State, t.InFlight, t.Failure = StatePublishing, &cl, nil
	c := &changes{p: p, now: now}
	i := item
	c.emit(TargetClaimed, PostEvent{TargetID: targetID, Item: &i, Attempt: t.Attempt, Reason: ReasonJobAttempt})
	return c.out
}

// RecordPublished: the network has the item (its job succeeded). That is
// recorded whatever the target meant to do meanwhile: the network has it.
// The target is published once every item is; while it waited for the
// item, its next item is claimed at once (a thread goes on); otherwise it
// keeps the state it was given (a person rescheduled it).
func (p *Post) RecordPublished(targetID string, item, attempt int, o Outcome, now time.Time) ([]event.Change, error) {
	t, ok := p.Target(targetID)
	if !p.Exists() || !ok || len(t.Published) != item || item >= len(p.Items) {
		return nil, nil // recorded already, or not this item
	}
	if o.PlatformPostID == "" {
		return nil, errs.InvalidField("/platform_post_id", "a published item has a platform post id")
	}
	awaited := p.Awaits(targetID, item)
	t.count(attempt)
	at := o.At
	if at.IsZero() {
		at = now
	}
	t.Published = append(t.Published, PublishedItem{Item: item, PlatformPostID: o.PlatformPostID, URL: o.URL,
		ConnectionID: o.ConnectionID, PublishedAt: at})
	t.InFlight, t.Failure, t.JobAttempt = nil, nil, 0
	first := t.Published[0]
	t.PlatformPostID, t.URL = &first.PlatformPostID, first.URL
	done := len(t.Published) == len(p.Items)
	switch {
	case done:
		t.State = StatePublished
	case awaited:
		t.State = StateScheduled
	}
	c := &changes{p: p, now: now}
	i := item
	c.emit(TargetPublished, PostEvent{TargetID: targetID, Item: &i, Attempt: t.Attempt, Done: done})
	if !done && awaited && p.publishable() {
		p.claim(c, t, "") // the thread goes on: the next item replies to this one
	}
	return c.out, nil
}

// RecordFailed: the item's attempt failed and nothing is on the network; a
// thread stops at this item (a retry resumes here). A failure with a
// RetryAt has the job's automatic retry on its way. A superseded attempt
// (the target no longer waited for it) changes nothing.
func (p *Post) RecordFailed(targetID string, item, attempt int, f Failure, now time.Time) ([]event.Change, error) {
	if f.Code == FailureSuperseded || !p.Awaits(targetID, item) {
		return nil, nil
	}
	t, _ := p.Target(targetID)
	if t.State == StateFailed && attempt <= t.JobAttempt {
		return nil, nil // known
	}
	t.count(attempt)
	f.Item, f.Attempt = item, attempt
	if f.At.IsZero() {
		f.At = now // the job's failure time, when it came with it
	}
	f.Retryable = Retryable(f.Code)
	t.State, t.InFlight, t.Failure = StateFailed, nil, &f
	c := &changes{p: p, now: now}
	i := item
	c.emit(TargetFailed, PostEvent{TargetID: targetID, Item: &i, Attempt: t.Attempt, Reason: f.Code})
	return c.out, nil
}

// RecordUnconfirmed: the request was sent and no answer came; the network
// may have the item. Only the job's reconciliation moves the target on.
func (p *Post) RecordUnconfirmed(targetID string, item, attempt int, pending, connectionID *string, reason string, now time.Time) ([]event.Change, error) {
	t, ok := p.Target(targetID)
	if !ok || t.State != StatePublishing || t.InFlight == nil || t.InFlight.Item != item || !p.Awaits(targetID, item) {
		return nil, nil
	}
	t.count(attempt)
	t.State = StateUnconfirmed
	t.InFlight.Attempt, t.InFlight.Pending, t.InFlight.ConnectionID = attempt, pending, connectionID
	c := &changes{p: p, now: now}
	i := item
	c.emit(TargetUnconfirmed, PostEvent{TargetID: targetID, Item: &i, Attempt: t.Attempt, Reason: reason})
	return c.out, nil
}
