package jobs

import (
	"encoding/json"
	"time"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/domain/text"
)

// Bounds of a request.
const (
	MaxPriority = 100
	MaxInput    = 64 << 10 // bytes of a job's input (it rides on every event of the job)
	MaxResult   = 64 << 10 // bytes of a result or an unconfirmed attempt's detail
)

// Request asks for a job.
type Request struct {
	ID             string
	Kind           string
	OrganizationID string
	Priority       int
	Input          json.RawMessage
}

// changes collects a decision's events, each carrying the job right after it.
type changes struct {
	j   *Job
	now time.Time
	out []event.Change
}

func (c *changes) emit(name string, attempt int, reason string, timers ...event.Timer) {
	c.j.UpdatedAt = c.now
	ch := event.New(StreamType(ContextOf(c.j.Kind))+"."+name, Event{JobID: c.j.ID, Attempt: attempt, Reason: reason, At: c.now, Job: *c.j})
	ch.Timers = timers
	c.out = append(c.out, ch)
}

func (j *Job) reconcileAt(at time.Time) event.Timer {
	kind, _ := TimerKinds(ContextOf(j.Kind))
	return event.ScheduleTimer(TimerReconcile, kind, at, TimerPayload{Attempt: j.Attempt})
}

// Request makes the job: queued. A job id is requested once: requesting it
// again changes nothing, whatever the input (the answer is the job as it is).
func (j *Job) Request(r Request, now time.Time) ([]event.Change, error) {
	var fields []errs.Field
	if r.ID == "" {
		fields = append(fields, errs.Field{Pointer: "/id", Detail: "a job needs an id"})
	}
	fields = text.Line(fields, "/id", r.ID, text.MaxID)
	if ContextOf(r.Kind) == "" || ContextOf(r.Kind) == r.Kind {
		fields = append(fields, errs.Field{Pointer: "/kind", Detail: "a kind is <context>.<name>"})
	}
	if r.Priority < 0 || r.Priority > MaxPriority {
		fields = append(fields, errs.Field{Pointer: "/priority", Detail: "must be 0..100"})
	}
	if len(r.Input) > MaxInput || len(r.Input) > 0 && !json.Valid(r.Input) {
		fields = append(fields, errs.Field{Pointer: "/input", Detail: "must be JSON of at most 64 KiB"})
	}
	if len(fields) > 0 {
		return nil, errs.Invalid(fields...)
	}
	if j.Exists() {
		return nil, nil
	}
	input := r.Input
	if len(input) == 0 {
		input = json.RawMessage("null")
	}
	*j = Job{ID: r.ID, Kind: r.Kind, OrganizationID: r.OrganizationID, State: Queued, Priority: r.Priority, Input: input,
		RequestedAt: now}
	c := &changes{j: j, now: now}
	c.emit(nameRequested, 0, "")
	return c.out, nil
}

// Claim starts the next attempt of a queued job for a worker that saw it
// queued at version (the requested or requeued event it read): the claim
// holds only if nothing happened since (an optimistic version check), so
// two workers that saw the same event never both claim it. The attempt is
// leased until now+lease; the reconcile timer fires then unless an outcome
// or a heartbeat comes first. It answers the attempt claimed, 0 for none.
func (j *Job) Claim(version int64, lease time.Duration, now time.Time) ([]event.Change, int) {
	if !j.Exists() || j.State != Queued || j.version != version {
		return nil, 0
	}
	j.Attempt++
	j.Tries++
	until := now.Add(lease)
	j.State, j.Progress, j.LeaseUntil, j.Detail, j.Failure = Running, 0, &until, nil, nil
	j.ClaimedAt = &now
	if j.StartedAt == nil {
		j.StartedAt = &now
	}
	c := &changes{j: j, now: now}
	c.emit(nameClaimed, j.Attempt, "", j.reconcileAt(until))
	return c.out, j.Attempt
}

// Heartbeat records a running attempt's progress (0..100) and extends its
// lease to leaseUntil. It reports whether the attempt is still the job's
// running one: false once it was cancelled or reconciled, and its worker
// stops it.
func (j *Job) Heartbeat(attempt, progress int, leaseUntil, now time.Time) ([]event.Change, bool) {
	if j.State != Running || j.Attempt != attempt {
		return nil, false
	}
	progress = min(max(progress, 0), 100)
	if progress == j.Progress && (j.LeaseUntil != nil && !leaseUntil.After(*j.LeaseUntil)) {
		return nil, true
	}
	j.Progress = progress
	if j.LeaseUntil == nil || leaseUntil.After(*j.LeaseUntil) {
		j.LeaseUntil = &leaseUntil
	}
	c := &changes{j: j, now: now}
	c.emit(nameProgressed, attempt, "", j.reconcileAt(*j.LeaseUntil))
	return c.out, true
}

// Outcome is what became of one attempt. Exactly one of its parts is set
// (Succeeded, Failure, Unconfirmed or NotDone).
type Outcome struct {
	Succeeded bool
	Result    json.RawMessage
	// Failure: the attempt failed, and nothing of it is on the other side.
	// Retry lets the policy try again (after Wait at least).
	Failure *FailureOutcome
	// Unconfirmed: the call may or may not have happened. The probe settles
	// it at ProbeAt, before anything is sent again.
	Unconfirmed bool
	Detail      json.RawMessage
	ProbeAt     time.Time
	// NotDone: the attempt provably left nothing (a probe found nothing, or
	// it stopped before its call): queued again at once while the policy
	// allows attempts, failed with CodeLost after.
	NotDone bool
	Reason  string
}

// FailureOutcome is a failed attempt as reported.
type FailureOutcome struct {
	Code, Reason string
	Retry        bool
	Wait         time.Duration
	Detail       json.RawMessage // kept on the failure (Failure.Detail)
}

// Record applies an attempt's outcome. attempt 0 is the current attempt
// (an outside reporter that does not know attempts). Only the job's current
// attempt, running or unconfirmed, is settled: an outcome of an older
// attempt, or of a cancelled or succeeded job, changes nothing, so a
// cancelled job never succeeds, even when its attempt in flight returns
// success later.
func (j *Job) Record(attempt int, o Outcome, policy RetryPolicy, now time.Time) ([]event.Change, error) {
	if attempt == 0 {
		attempt = j.Attempt
	}
	if j.State != Running && j.State != Unconfirmed || j.Attempt != attempt || attempt == 0 {
		return nil, nil
	}
	c := &changes{j: j, now: now}
	cancelReconcile := event.CancelTimer(TimerReconcile)
	switch {
	case o.Succeeded:
		if len(o.Result) > MaxResult || len(o.Result) > 0 && !json.Valid(o.Result) {
			return nil, errs.InvalidField("/result", "must be JSON of at most 64 KiB")
		}
		j.State, j.Progress, j.LeaseUntil, j.Result, j.FinishedAt = Succeeded, 100, nil, o.Result, &now
		c.emit(nameSucceeded, attempt, "", cancelReconcile)
	case o.Failure != nil:
		if len(o.Failure.Detail) > MaxResult || len(o.Failure.Detail) > 0 && !json.Valid(o.Failure.Detail) {
			return nil, errs.InvalidField("/detail", "must be JSON of at most 64 KiB")
		}
		f := &Failure{Attempt: attempt, Code: o.Failure.Code, Reason: o.Failure.Reason, At: now, Detail: o.Failure.Detail}
		if o.Failure.Retry {
			f.RetryAt = policy.At(j.Tries, o.Failure.Wait, now)
		}
		j.fail(f, now)
		timers := []event.Timer{cancelReconcile}
		if f.RetryAt != nil {
			_, retry := TimerKinds(ContextOf(j.Kind))
			timers = append(timers, event.ScheduleTimer(TimerRetry, retry, *f.RetryAt, TimerPayload{Attempt: attempt}))
		}
		c.emit(nameFailed, attempt, f.Code, timers...)
	case o.Unconfirmed:
		if j.State != Running {
			return nil, nil // unconfirmed already: only the probe moves it on
		}
		if len(o.Detail) > MaxResult || len(o.Detail) > 0 && !json.Valid(o.Detail) {
			return nil, errs.InvalidField("/detail", "must be JSON of at most 64 KiB")
		}
		j.State, j.LeaseUntil, j.Detail = Unconfirmed, nil, o.Detail
		c.emit(nameUnconfirmed, attempt, o.Reason, j.reconcileAt(o.ProbeAt))
	case o.NotDone:
		if j.Tries >= policy.MaxAttempts {
			j.fail(&Failure{Attempt: attempt, Code: CodeLost, Reason: "no attempt went through", At: now}, now)
			c.emit(nameFailed, attempt, CodeLost, cancelReconcile)
			break
		}
		j.State, j.LeaseUntil, j.Detail = Queued, nil, nil
		c.emit(nameRequeued, attempt, o.Reason, cancelReconcile)
	}
	return c.out, nil
}

func (j *Job) fail(f *Failure, now time.Time) {
	j.State, j.LeaseUntil, j.Detail, j.Failure = Failed, nil, nil, f
	if f.RetryAt == nil {
		j.FinishedAt = &now
	}
}

// RetryDue is the retry timer's decision: a job still failed at the
// attempt that scheduled it is queued again (the claim makes the next
// attempt, with a new key). Anything since (a person's retry, a
// cancellation) makes it stale.
func (j *Job) RetryDue(attempt int, now time.Time) []event.Change {
	if j.State != Failed || j.Failure == nil || j.Failure.RetryAt == nil || j.Attempt != attempt {
		return nil
	}
	j.State = Queued
	c := &changes{j: j, now: now}
	c.emit(nameRequeued, attempt, "retry")
	return c.out
}

// Retry is a person's: a failed job is queued again at once with the
// policy's attempts restored (a pending automatic retry is replaced). A job
// queued, running or unconfirmed is on its way already: nothing changes.
// A succeeded or cancelled job stays as it is (invalid_transition).
func (j *Job) Retry(now time.Time) ([]event.Change, error) {
	switch {
	case !j.Exists():
		return nil, errs.NotFound("job")
	case j.Terminal():
		return nil, errs.Conflict("invalid_transition", "the job is "+j.State+": it stays so")
	case j.State != Failed:
		return nil, nil
	}
	j.State, j.Tries, j.Failure, j.FinishedAt = Queued, 0, nil, nil
	c := &changes{j: j, now: now}
	c.emit(nameRequeued, j.Attempt, "retry_requested", event.CancelTimer(TimerRetry))
	return c.out, nil
}

// Cancel ends the job for good: a queued one is never claimed, a running
// one's worker is told to stop, and no outcome of an attempt in flight
// changes it afterwards. A succeeded or cancelled job cannot be cancelled
// (invalid_transition).
func (j *Job) Cancel(reason string, now time.Time) ([]event.Change, error) {
	if !j.Exists() {
		return nil, errs.NotFound("job")
	}
	if j.Terminal() {
		return nil, errs.Conflict("invalid_transition", "the job is "+j.State+": it stays so")
	}
	if fields := text.Line(nil, "/reason", reason, text.MaxReason); len(fields) > 0 {
		return nil, errs.Invalid(fields...)
	}
	j.State, j.LeaseUntil, j.CancelReason, j.FinishedAt = Cancelled, nil, reason, &now
	c := &changes{j: j, now: now}
	c.emit(nameCancelled, j.Attempt, reason, event.CancelTimer(TimerReconcile), event.CancelTimer(TimerRetry))
	return c.out, nil
}

// Reconcilable: the reconcile timer of attempt finds it still to settle
// (running past its lease, or unconfirmed), so the probe asks.
func (j *Job) Reconcilable(attempt int) bool {
	return (j.State == Running || j.State == Unconfirmed) && j.Attempt == attempt
}
