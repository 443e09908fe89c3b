package publishing

import (
	"time"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
)

// changes collects a decision's events, each carrying the post as it is
// right after it.
type changes struct {
	p   *Post
	now time.Time
	out []event.Change
}

func (c *changes) emit(typ string, e PostEvent, timers ...event.Timer) {
	c.p.Status = Derive(*c.p)
	c.p.UpdatedAt = c.now
	e.PostID, e.At = c.p.PostID, c.now
	e.Post = c.p.State()
	ch := event.New(typ, e)
	ch.Timers = timers
	c.out = append(c.out, ch)
}

// NewPost is the input of posts.create (and of a generated suggestion).
type NewPost struct {
	ID       string
	BrandID  string
	AuthorID string
	Origin   string // manual or suggestion (awaits approval)
	Draft
}

// Create makes the post: draft, or scheduled with a timer at its publish
// time. A suggestion is a draft awaiting approval.
func (p *Post) Create(n NewPost, now time.Time) ([]event.Change, error) {
	if p.PostID != "" {
		return nil, errs.Conflict("post_exists", "the post already exists")
	}
	fields := checkSchedule(checkTargets(checkItems(nil, n.Items), n.Targets), n.Draft, now)
	if len(fields) > 0 {
		return nil, errs.Invalid(fields...)
	}
	*p = Post{PostID: n.ID, BrandID: n.BrandID, AuthorID: n.AuthorID, Origin: OriginManual, Approval: ApprovalNone,
		CreatedAt: now}
	if n.Origin == OriginSuggestion {
		p.Origin, p.Approval = OriginSuggestion, ApprovalPending
		n.Schedule = false
	}
	p.setContent(n.Draft)
	c := &changes{p: p, now: now}
	c.emit(PostCreated, PostEvent{})
	if n.Schedule {
		p.schedule(*n.PublishAt)
		c.emit(PostScheduled, PostEvent{}, event.ScheduleTimer(TimerPublish, TimerKindPublish, *n.PublishAt, nil))
	}
	return c.out, nil
}

// setContent replaces the copy and the targets. A target the client names
// again without its account or page keeps the one it had: an update never
// drops explicit target metadata.
func (p *Post) setContent(d Draft) {
	p.Items = d.Items
	for i := range p.Items {
		if p.Items[i].Media == nil {
			p.Items[i].Media = []string{}
		}
	}
	p.ThreadID = nil
	if len(p.Items) > 1 {
		id := p.PostID
		p.ThreadID = &id
	}
	if d.Targets == nil {
		return
	}
	old := p.Targets
	p.Targets = make([]Target, 0, len(d.Targets))
	used := map[int]bool{}
	next := 1
	for _, t := range old {
		next = max(next, targetNumber(t.TargetID)+1)
	}
	for _, s := range d.Targets {
		t := Target{Network: s.Network, AccountID: s.AccountID, PageID: s.PageID, State: StateDraft, Published: []PublishedItem{}}
		if i := matchTarget(old, s, used); i >= 0 {
			used[i] = true
			t.TargetID = old[i].TargetID
			if t.AccountID == nil {
				t.AccountID = old[i].AccountID
			}
			if t.PageID == nil {
				t.PageID = old[i].PageID
			}
			t.Attempt, t.JobAttempt = old[i].Attempt, old[i].JobAttempt
		} else {
			t.TargetID = targetID(next)
			next++
		}
		p.Targets = append(p.Targets, t)
	}
}

// matchTarget finds the old target a spec names: the same network and, when
// the spec names them, the same account and page.
func matchTarget(old []Target, s TargetSpec, used map[int]bool) int {
	for i, t := range old {
		if used[i] || t.Network != s.Network {
			continue
		}
		if s.AccountID != nil && deref(t.AccountID) != *s.AccountID || s.PageID != nil && deref(t.PageID) != *s.PageID {
			continue
		}
		return i
	}
	return -1
}

func targetID(n int) string { return "t" + itoa(n) }

func targetNumber(id string) int {
	n := 0
	for _, r := range id[min(1, len(id)):] {
		if r < '0' || r > '9' {
			return 0
		}
		n = n*10 + int(r-'0')
	}
	return n
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}

// schedule puts every target that is not on the network yet on the
// schedule at, clearing failures.
func (p *Post) schedule(at time.Time) {
	at = at.UTC()
	p.PublishAt = &at
	for i := range p.Targets {
		t := &p.Targets[i]
		if t.State == StateDraft || t.State == StateFailed || t.State == StateScheduled {
			// A person's decision: the item's job is retried at the time
			// (with a fresh bound for its automatic retries).
			t.State, t.Failure = StateScheduled, nil
		}
	}
}

// locked: a target is on the network or an attempt is in flight, so the
// copy and targets can no longer change.
func (p *Post) locked() bool {
	for _, t := range p.Targets {
		if len(t.Published) > 0 || t.State == StatePublishing || t.State == StateUnconfirmed || t.State == StatePublished {
			return true
		}
	}
	return false
}

func (p *Post) inFlight() bool {
	for _, t := range p.Targets {
		if t.State == StatePublishing || t.State == StateUnconfirmed {
			return true
		}
	}
	return false
}

func (p *Post) mustExist() error {
	if !p.Exists() {
		return errs.NotFound("post")
	}
	return nil
}

// Edit is posts.update: nil members keep their value. Schedule nil keeps
// the post's status; false reverts it to draft (the schedule is cleared and
// its timer cancelled); true schedules it at PublishAt (or the time it has).
type Edit struct {
	Items     []Item // nil: unchanged
	Targets   []TargetSpec
	PublishAt *time.Time
	Schedule  *bool
}

// Update edits a post that is not on any network yet and answers its new
// state (a revert to draft answers the draft).
func (p *Post) Update(e Edit, now time.Time) ([]event.Change, error) {
	if err := p.mustExist(); err != nil {
		return nil, err
	}
	if p.locked() {
		return nil, errs.Conflict("post_locked", "the post is on a network or being published; only failed targets can be retried or rescheduled")
	}
	d := Draft{Items: p.Items, Targets: e.Targets}
	if e.Items != nil {
		d.Items = e.Items
	}
	scheduled := Derive(*p) == StateScheduled
	d.Schedule = scheduled
	if e.Schedule != nil {
		d.Schedule = *e.Schedule
	}
	d.PublishAt = p.PublishAt
	if e.PublishAt != nil {
		d.PublishAt = e.PublishAt
		if e.Schedule == nil {
			d.Schedule = true // a new time puts the post on the schedule
		}
	}
	var fields []errs.Field
	fields = checkItems(fields, d.Items)
	if d.Targets != nil {
		fields = checkTargets(fields, d.Targets)
	}
	if d.Schedule && (e.PublishAt != nil || !scheduled) {
		fields = checkSchedule(fields, d, now)
	} else if d.Schedule && d.PublishAt == nil {
		fields = append(fields, errs.Field{Pointer: "/publishAt", Detail: "a scheduled post needs a publish time"})
	}
	if len(fields) > 0 {
		return nil, errs.Invalid(fields...)
	}
	if d.Schedule && p.Approval != ApprovalNone && p.Approval != ApprovalApproved {
		return nil, errs.Conflict("approval_required", "a suggestion is scheduled only once approved")
	}
	c := &changes{p: p, now: now}
	retries := p.retryTimers()
	p.setContent(d)
	for i := range p.Targets {
		p.Targets[i].State, p.Targets[i].Failure = StateDraft, nil
	}
	if !d.Schedule {
		p.PublishAt = nil
		c.emit(PostEdited, PostEvent{}, retries...)
		if scheduled {
			c.emit(PostUnscheduled, PostEvent{}, event.CancelTimer(TimerPublish))
		}
		return c.out, nil
	}
	p.schedule(*d.PublishAt)
	if scheduled && e.PublishAt == nil {
		// The copy changed, not the time: the timer stays as it is, and
		// the claim at publish time reads this copy.
		c.emit(PostEdited, PostEvent{}, retries...)
		return c.out, nil
	}
	c.emit(PostEdited, PostEvent{}, retries...)
	c.emit(PostScheduled, PostEvent{}, event.ScheduleTimer(TimerPublish, TimerKindPublish, p.PublishAt.UTC(), nil))
	return c.out, nil
}

// SafeEdit is content-ops' PATCH: the copy of a draft, nothing else.
func (p *Post) SafeEdit(items []Item, now time.Time) ([]event.Change, error) {
	if err := p.mustExist(); err != nil {
		return nil, err
	}
	if Derive(*p) != StateDraft {
		return nil, errs.Conflict("not_a_draft", "only draft content can be edited here")
	}
	if fields := checkItems(nil, items); len(fields) > 0 {
		return nil, errs.Invalid(fields...)
	}
	c := &changes{p: p, now: now}
	p.setContent(Draft{Items: items})
	c.emit(PostEdited, PostEvent{})
	return c.out, nil
}

// Delete removes the post (what the networks have stays there); not while
// an attempt is in flight, whose outcome must be recorded first.
func (p *Post) Delete(now time.Time) ([]event.Change, error) {
	if err := p.mustExist(); err != nil {
		return nil, err
	}
	if p.inFlight() {
		return nil, errs.Conflict("post_in_flight", "an attempt is in flight; delete once its outcome is recorded")
	}
	c := &changes{p: p, now: now}
	timers := append([]event.Timer{event.CancelTimer(TimerPublish)}, p.retryTimers()...)
	p.Deleted = true
	c.emit(PostDeleted, PostEvent{}, timers...)
	return c.out, nil
}

// Approve accepts a suggestion draft awaiting approval.
func (p *Post) Approve(now time.Time) ([]event.Change, error) {
	return p.review(ApprovalApproved, PostApproved, nil, now)
}

// Reject turns a suggestion draft down, with an optional note.
func (p *Post) Reject(note *string, now time.Time) ([]event.Change, error) {
	return p.review(ApprovalRejected, PostRejected, note, now)
}

func (p *Post) review(to, typ string, note *string, now time.Time) ([]event.Change, error) {
	if err := p.mustExist(); err != nil {
		return nil, err
	}
	if p.Approval == to {
		return nil, nil // the same decision again changes nothing
	}
	if p.Approval != ApprovalPending {
		return nil, errs.Conflict("not_awaiting_approval", "only a suggestion draft awaiting approval can be approved or rejected")
	}
	c := &changes{p: p, now: now}
	p.Approval, p.Note = to, note
	c.emit(typ, PostEvent{})
	return c.out, nil
}

// Reschedule puts a queued or failed post on a new future time: failed
// targets are queued again with their failure cleared; targets on the
// network stay as they are.
func (p *Post) Reschedule(at time.Time, now time.Time) ([]event.Change, error) {
	if err := p.mustExist(); err != nil {
		return nil, err
	}
	if !at.After(now) {
		return nil, errs.InvalidField("/publishAt", "must be in the future")
	}
	if p.Approval == ApprovalPending || p.Approval == ApprovalRejected {
		return nil, errs.Conflict("approval_required", "a suggestion is scheduled only once approved")
	}
	eligible := 0
	for _, t := range p.Targets {
		if t.State == StateScheduled || t.State == StateFailed {
			eligible++
		}
	}
	if eligible == 0 {
		return nil, errs.Conflict("not_reschedulable", "only a queued or failed post can be rescheduled")
	}
	c := &changes{p: p, now: now}
	timers := append([]event.Timer{event.ScheduleTimer(TimerPublish, TimerKindPublish, at.UTC(), nil)}, p.retryTimers()...)
	p.schedule(at)
	c.emit(PostScheduled, PostEvent{Reason: "rescheduled"}, timers...)
	return c.out, nil
}

// Retry queues the failed targets for a new attempt now. Targets with a
// platform post id, in flight or unconfirmed are never touched: an
// unconfirmed target is reconciled against the network first.
func (p *Post) Retry(now time.Time) ([]event.Change, error) {
	if err := p.mustExist(); err != nil {
		return nil, err
	}
	c := &changes{p: p, now: now}
	for i := range p.Targets {
		t := &p.Targets[i]
		if t.State != StateFailed {
			continue
		}
		var timers []event.Timer
		if t.Failure != nil && t.Failure.RetryAt != nil {
			timers = append(timers, event.CancelTimer(retryTimerName(t.TargetID)))
		}
		t.State, t.Failure = StateScheduled, nil
		c.emit(TargetRequeued, PostEvent{TargetID: t.TargetID, Attempt: t.Attempt, Reason: "retry"}, timers...)
	}
	if len(c.out) == 0 {
		return nil, errs.Conflict("nothing_to_retry", "the post has no failed target")
	}
	last := &c.out[len(c.out)-1]
	last.Timers = append(last.Timers, event.ScheduleTimer(TimerPublish, TimerKindPublish, now, nil))
	return c.out, nil
}
