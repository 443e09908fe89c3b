package agent

import (
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	domjobs "github.com/platform/backend/domain/jobs"
)

// Run statuses. Succeeded, failed, rejected, expired and cancelled are
// terminal.
const (
	RunRunning   = "running" // a step's action is on its way
	RunWaiting   = "waiting" // for a person: an approval or a task
	RunSucceeded = "succeeded"
	RunFailed    = "failed"
	RunRejected  = "rejected" // an approval was refused
	RunExpired   = "expired"  // an approval was not decided in time
	RunCancelled = "cancelled"
)

// RunStatuses are every run status.
var RunStatuses = []string{RunRunning, RunWaiting, RunSucceeded, RunFailed, RunRejected, RunExpired, RunCancelled}

// Step statuses within a run.
const (
	StepPending          = "pending"
	StepQueued           = "queued" // its action's job is requested or running
	StepAwaitingApproval = "awaiting_approval"
	StepAwaitingTask     = "awaiting_task"
	StepDone             = "succeeded"
	StepError            = "failed"
	StepRefused          = "rejected"
	StepTimedOut         = "expired"
	StepStopped          = "cancelled"
)

// StepStatuses are every step status.
var StepStatuses = []string{StepPending, StepQueued, StepAwaitingApproval, StepAwaitingTask, StepDone, StepError, StepRefused,
	StepTimedOut, StepStopped}

// Decision kinds: how a step came to run (or not).
const (
	DecisionAuto      = "auto"      // read-only action: no confirmation needed
	DecisionApproved  = "approved"  // a person approved it
	DecisionRejected  = "rejected"  // a person refused it
	DecisionExpired   = "expired"   // nobody decided in time
	DecisionCompleted = "completed" // a task a person completed
)

// DecisionKinds are every decision kind.
var DecisionKinds = []string{DecisionAuto, DecisionApproved, DecisionRejected, DecisionExpired, DecisionCompleted}

// Actor is who decided: a person's session or key.
type Actor struct {
	ID     string `json:"id"`
	Type   string `json:"type"`
	UserID string `json:"userId,omitempty"`
}

// TriggerData is what started a run: what its steps' inputs may refer to
// as /trigger.
type TriggerData struct {
	Type      string `json:"type"`
	EventID   string `json:"eventId,omitempty"`
	EventType string `json:"eventType,omitempty"`
	StreamID  string `json:"streamId,omitempty"`
	// Position is the triggering event's (stream@version): every step's
	// call waits for it in the read models it reads (X-Platform-Min-Position),
	// so a step reading what the event made finds it, though the agent
	// heard of the event before the other service's projection applied it.
	Position string          `json:"position,omitempty"`
	Data     json.RawMessage `json:"data"`
	At       time.Time       `json:"at"`
}

// RunStartedV1 is a run started with a copy of its flow's version.
type RunStartedV1 struct {
	RunID       string      `json:"run_id"`
	FlowID      string      `json:"flow_id"`
	FlowName    string      `json:"flow_name"`
	FlowVersion int         `json:"flow_version"`
	Owner       Owner       `json:"owner"`
	Trigger     TriggerData `json:"trigger"`
	Steps       []Step      `json:"steps"`
	// Depth counts the runs whose steps' events led to this one (0: a
	// person, a schedule or an event no run caused).
	Depth int       `json:"depth"`
	At    time.Time `json:"at"`
}

// StepRequestedV1 is a step's action put on its way: its job is requested
// with the input resolved now.
type StepRequestedV1 struct {
	RunID          string          `json:"run_id"`
	Step           int             `json:"step"`
	Input          json.RawMessage `json:"input"`
	JobID          string          `json:"job_id"`
	IdempotencyKey string          `json:"idempotency_key"`
	Decision       string          `json:"decision"`
	At             time.Time       `json:"at"`
}

// ApprovalRequestedV1 is a run paused for a person's approval of a step.
type ApprovalRequestedV1 struct {
	RunID      string          `json:"run_id"`
	Step       int             `json:"step"`
	ApprovalID string          `json:"approval_id"`
	Input      json.RawMessage `json:"input"`
	ExpiresAt  time.Time       `json:"expires_at"`
	At         time.Time       `json:"at"`
}

// ApprovalDecidedV1 is an approval granted or rejected.
type ApprovalDecidedV1 struct {
	RunID      string    `json:"run_id"`
	Step       int       `json:"step"`
	ApprovalID string    `json:"approval_id"`
	By         Actor     `json:"by"`
	Note       string    `json:"note,omitempty"`
	At         time.Time `json:"at"`
}

// ApprovalExpiredV1 is an approval nobody decided in time.
type ApprovalExpiredV1 struct {
	RunID      string    `json:"run_id"`
	Step       int       `json:"step"`
	ApprovalID string    `json:"approval_id"`
	At         time.Time `json:"at"`
}

// TaskOpenedV1 is a task step waiting for a person.
type TaskOpenedV1 struct {
	RunID        string          `json:"run_id"`
	Step         int             `json:"step"`
	TaskID       string          `json:"task_id"`
	Instructions string          `json:"instructions"`
	Input        json.RawMessage `json:"input"`
	At           time.Time       `json:"at"`
}

// TaskCompletedV1 is a task a person completed, with what it produced.
type TaskCompletedV1 struct {
	RunID  string          `json:"run_id"`
	Step   int             `json:"step"`
	TaskID string          `json:"task_id"`
	By     Actor           `json:"by"`
	Output json.RawMessage `json:"output"`
	Note   string          `json:"note,omitempty"`
	At     time.Time       `json:"at"`
}

// StepSucceededV1 is a step done: its action answered 2xx (or its task
// was completed), with the answer.
type StepSucceededV1 struct {
	RunID  string          `json:"run_id"`
	Step   int             `json:"step"`
	Status int             `json:"status"`
	Output json.RawMessage `json:"output"`
	// OutputTruncated: the answer was larger than a run keeps (Output null).
	OutputTruncated bool `json:"output_truncated,omitempty"`
	Attempts        int  `json:"attempts"`
	// Position is where the step's writes reached (CallResult.Position).
	Position string    `json:"position,omitempty"`
	At       time.Time `json:"at"`
}

// StepFailedV1 is a step that failed: its action refused it (Status, the
// problem's Code), or could not be reached, or its input did not resolve.
type StepFailedV1 struct {
	RunID    string    `json:"run_id"`
	Step     int       `json:"step"`
	Status   int       `json:"status"`
	Code     string    `json:"code"`
	Reason   string    `json:"reason"`
	Attempts int       `json:"attempts"`
	At       time.Time `json:"at"`
}

// RunEndedV1 is a run over, and how.
type RunEndedV1 struct {
	RunID  string    `json:"run_id"`
	Status string    `json:"status"`
	Reason string    `json:"reason,omitempty"`
	At     time.Time `json:"at"`
}

// CallResult is a step job's result: the action's answer (the job is done
// once the platform answered, whatever it answered; the run reads the
// status). Body is the answer's JSON, null when it was larger than a run
// keeps (Truncated).
type CallResult struct {
	Status    int             `json:"status"`
	Body      json.RawMessage `json:"body"`
	Truncated bool            `json:"truncated,omitempty"`
	// Position is where the action's writes reached (its answer's
	// X-Platform-Position): later steps' calls wait for it, so a step
	// reads what an earlier step wrote.
	Position string `json:"position,omitempty"`
}

// StepInput is a step job's input: which step of which run.
type StepInput struct {
	RunID string `json:"run_id"`
	Step  int    `json:"step"`
}

// Decision is how a step came to run, or why it did not.
type Decision struct {
	Kind string     `json:"kind"`
	By   *Actor     `json:"by"`
	Note string     `json:"note"`
	At   *time.Time `json:"at"`
}

// StepFailure is why a step failed.
type StepFailure struct {
	Status int    `json:"status"`
	Code   string `json:"code"`
	Reason string `json:"reason"`
}

// StepState is one step of a run: its input, output, decision and timing.
type StepState struct {
	Index           int             `json:"index"`
	Name            string          `json:"name"`
	Kind            string          `json:"kind"`
	Service         string          `json:"service"`
	Action          string          `json:"action"`
	Status          string          `json:"status"`
	Input           json.RawMessage `json:"input"`
	Output          json.RawMessage `json:"output"`
	OutputTruncated bool            `json:"outputTruncated"`
	HTTPStatus      int             `json:"httpStatus"`
	Decision        *Decision       `json:"decision"`
	Failure         *StepFailure    `json:"failure"`
	// WaitID is the step's approval or task (its id in /api/approvals, /api/tasks).
	WaitID    string     `json:"waitId"`
	ExpiresAt *time.Time `json:"expiresAt"`
	JobID     string     `json:"jobId"`
	Attempts  int        `json:"attempts"`
	// StartedAt: the step was reached; FinishedAt: it settled.
	StartedAt  *time.Time `json:"startedAt"`
	FinishedAt *time.Time `json:"finishedAt"`
}

// Run is the write model of a run's stream, and the answer of its commands.
type Run struct {
	ID             string      `json:"runId"`
	OrganizationID string      `json:"-"`
	FlowID         string      `json:"flowId"`
	FlowName       string      `json:"flowName"`
	FlowVersion    int         `json:"flowVersion"`
	Owner          Owner       `json:"owner"`
	Trigger        TriggerData `json:"trigger"`
	Status         string      `json:"status"`
	Reason         string      `json:"reason"`
	Depth          int         `json:"depth"`
	Steps          []StepState `json:"steps"`
	StartedAt      time.Time   `json:"startedAt"`
	FinishedAt     *time.Time  `json:"finishedAt"`
	UpdatedAt      time.Time   `json:"updatedAt"`

	defs      []Step
	positions map[int]string // where each step's writes reached
}

// LoadRun folds a run's stream.
func LoadRun(history []event.Recorded) (*Run, error) { return runFold.Load(&Run{}, history) }

func (r *Run) step(i int) *StepState {
	if i < 0 || i >= len(r.Steps) {
		return &StepState{}
	}
	return &r.Steps[i]
}

var runFold = event.Fold[*Run]{
	RunStarted: event.Apply(func(r *Run, p RunStartedV1) {
		*r = Run{ID: p.RunID, FlowID: p.FlowID, FlowName: p.FlowName, FlowVersion: p.FlowVersion, Owner: p.Owner,
			Trigger: p.Trigger, Status: RunRunning, Depth: p.Depth, StartedAt: p.At, UpdatedAt: p.At, defs: p.Steps,
			Steps: make([]StepState, len(p.Steps))}
		for i, s := range p.Steps {
			r.Steps[i] = StepState{Index: i, Name: s.Name, Kind: s.Kind, Service: s.Service, Action: s.Action, Status: StepPending}
		}
	}),
	StepRequested: event.Apply(func(r *Run, p StepRequestedV1) {
		s := r.step(p.Step)
		at := p.At
		s.Status, s.Input, s.JobID = StepQueued, p.Input, p.JobID
		if s.StartedAt == nil {
			s.StartedAt = &at
		}
		if p.Decision == DecisionAuto {
			s.Decision = &Decision{Kind: DecisionAuto, At: &at}
		}
		r.Status, r.UpdatedAt = RunRunning, p.At
	}),
	ApprovalRequested: event.Apply(func(r *Run, p ApprovalRequestedV1) {
		s := r.step(p.Step)
		at, exp := p.At, p.ExpiresAt
		s.Status, s.Input, s.WaitID, s.ExpiresAt, s.StartedAt = StepAwaitingApproval, p.Input, p.ApprovalID, &exp, &at
		r.Status, r.UpdatedAt = RunWaiting, p.At
	}),
	ApprovalGranted: event.Apply(func(r *Run, p ApprovalDecidedV1) {
		by, at := p.By, p.At
		r.step(p.Step).Decision = &Decision{Kind: DecisionApproved, By: &by, Note: p.Note, At: &at}
		r.UpdatedAt = p.At
	}),
	ApprovalRejected: event.Apply(func(r *Run, p ApprovalDecidedV1) {
		by, at := p.By, p.At
		s := r.step(p.Step)
		s.Status, s.FinishedAt = StepRefused, &at
		s.Decision = &Decision{Kind: DecisionRejected, By: &by, Note: p.Note, At: &at}
		r.UpdatedAt = p.At
	}),
	ApprovalExpired: event.Apply(func(r *Run, p ApprovalExpiredV1) {
		at := p.At
		s := r.step(p.Step)
		s.Status, s.FinishedAt = StepTimedOut, &at
		s.Decision = &Decision{Kind: DecisionExpired, At: &at}
		r.UpdatedAt = p.At
	}),
	TaskOpened: event.Apply(func(r *Run, p TaskOpenedV1) {
		s := r.step(p.Step)
		at := p.At
		s.Status, s.Input, s.WaitID, s.StartedAt = StepAwaitingTask, p.Input, p.TaskID, &at
		r.Status, r.UpdatedAt = RunWaiting, p.At
	}),
	TaskCompleted: event.Apply(func(r *Run, p TaskCompletedV1) {
		by, at := p.By, p.At
		r.step(p.Step).Decision = &Decision{Kind: DecisionCompleted, By: &by, Note: p.Note, At: &at}
		r.UpdatedAt = p.At
	}),
	StepSucceeded: event.Apply(func(r *Run, p StepSucceededV1) {
		s := r.step(p.Step)
		at := p.At
		s.Status, s.Output, s.OutputTruncated, s.HTTPStatus, s.Attempts, s.FinishedAt = StepDone, p.Output, p.OutputTruncated, p.Status, p.Attempts, &at
		if p.Position != "" {
			if r.positions == nil {
				r.positions = map[int]string{}
			}
			r.positions[p.Step] = p.Position
		}
		r.UpdatedAt = p.At
	}),
	StepFailed: event.Apply(func(r *Run, p StepFailedV1) {
		s := r.step(p.Step)
		at := p.At
		s.Status, s.HTTPStatus, s.Attempts, s.FinishedAt = StepError, p.Status, p.Attempts, &at
		s.Failure = &StepFailure{Status: p.Status, Code: p.Code, Reason: p.Reason}
		if s.StartedAt == nil {
			s.StartedAt = &at
		}
		r.UpdatedAt = p.At
	}),
	RunEnded: event.Apply(func(r *Run, p RunEndedV1) {
		at := p.At
		r.Status, r.Reason, r.FinishedAt, r.UpdatedAt = p.Status, p.Reason, &at, p.At
		for i := range r.Steps {
			// What waited or was on its way stops with the run; steps never
			// reached stay pending.
			if s := &r.Steps[i]; s.Status == StepAwaitingApproval || s.Status == StepAwaitingTask || s.Status == StepQueued {
				s.Status, s.FinishedAt = StepStopped, &at
			}
		}
	}),
}

// Exists: the run was started.
func (r *Run) Exists() bool { return r.ID != "" }

// Ended: the run is over.
func (r *Run) Ended() bool { return r.FinishedAt != nil }

// Def is the definition of step i as the run started with it.
func (r *Run) Def(i int) (Step, bool) {
	if i < 0 || i >= len(r.defs) {
		return Step{}, false
	}
	return r.defs[i], true
}

// Policy is what a run's decisions need besides the run: the default wait
// for an approval.
type Policy struct {
	ApprovalTTL time.Duration
}

// decider collects a decision's events and folds each into the run, so a
// step can be decided from the state the previous one left.
type decider struct {
	r   *Run
	now time.Time
	p   Policy
	out []event.Change
	err error
}

func (d *decider) emit(c event.Change) {
	if d.err != nil {
		return
	}
	if err := runFold.ApplyChanges(d.r, []event.Change{c}); err != nil {
		d.err = err
		return
	}
	d.out = append(d.out, c)
}

func (d *decider) result() ([]event.Change, error) { return d.out, d.err }

// RunStart is what a run starts from.
type RunStart struct {
	RunID   string
	Flow    *Flow
	Trigger TriggerData
	Depth   int
}

// Start begins a run of a flow's current version: started, then its first
// step is reached. A run id is started once: starting it again changes
// nothing.
func (r *Run) Start(s RunStart, p Policy, now time.Time) ([]event.Change, error) {
	if r.Exists() {
		return nil, nil
	}
	if err := s.Flow.CanStart(); err != nil {
		return nil, err
	}
	if len(s.Trigger.Data) == 0 {
		s.Trigger.Data = json.RawMessage("null")
	}
	d := &decider{r: r, now: now, p: p}
	d.emit(event.New(RunStarted, RunStartedV1{RunID: s.RunID, FlowID: s.Flow.ID, FlowName: s.Flow.Definition.Name,
		FlowVersion: s.Flow.Version, Owner: s.Flow.Owner, Trigger: s.Trigger, Steps: s.Flow.Definition.Steps, Depth: s.Depth, At: now}))
	d.reach(0)
	return d.result()
}

// document is what step inputs refer to: /trigger and /steps/<n>.
func (r *Run) document() any {
	steps := make([]any, len(r.Steps))
	for i, s := range r.Steps {
		steps[i] = map[string]any{"input": Decoded(s.Input), "output": Decoded(s.Output), "status": s.Status}
	}
	trigger := map[string]any{"type": r.Trigger.Type, "data": Decoded(r.Trigger.Data), "at": r.Trigger.At.Format(time.RFC3339Nano)}
	if r.Trigger.EventID != "" {
		trigger["eventId"], trigger["eventType"], trigger["streamId"] = r.Trigger.EventID, r.Trigger.EventType, r.Trigger.StreamID
	}
	return map[string]any{"trigger": trigger, "steps": steps}
}

// reach decides step i: the run succeeds after its last step; otherwise
// its input is resolved, and the step waits for a person (a task, or an
// approval when its action requires confirmation) or goes on its way.
func (d *decider) reach(i int) {
	r := d.r
	if i >= len(r.defs) {
		d.emit(event.New(RunEnded, RunEndedV1{RunID: r.ID, Status: RunSucceeded, At: d.now}))
		return
	}
	def := r.defs[i]
	input, err := Resolve(def.Input, r.document())
	if err != nil {
		d.emit(event.New(StepFailed, StepFailedV1{RunID: r.ID, Step: i, Code: "mapping_failed", Reason: bound(err.Error(), 500), At: d.now}))
		d.emit(event.New(RunEnded, RunEndedV1{RunID: r.ID, Status: RunFailed, Reason: "step " + strconv.Itoa(i) + " could not resolve its input", At: d.now}))
		return
	}
	switch {
	case def.Kind == KindTask:
		d.emit(event.New(TaskOpened, TaskOpenedV1{RunID: r.ID, Step: i, TaskID: WaitID(r.ID, i), Instructions: def.Instructions,
			Input: input, At: d.now}))
	case def.NeedsApproval():
		ttl := d.p.ApprovalTTL
		if def.ApprovalTTLMinutes > 0 {
			ttl = time.Duration(def.ApprovalTTLMinutes) * time.Minute
		}
		expires := d.now.Add(ttl).Truncate(time.Microsecond)
		c := event.New(ApprovalRequested, ApprovalRequestedV1{RunID: r.ID, Step: i, ApprovalID: WaitID(r.ID, i), Input: input,
			ExpiresAt: expires, At: d.now})
		c.Timers = []event.Timer{event.ScheduleTimer(approvalTimer(i), TimerApprovalExpiry, expires, ApprovalTimer{Step: i})}
		d.emit(c)
	default:
		d.request(i, input, DecisionAuto)
	}
}

func (d *decider) request(i int, input json.RawMessage, decision string) {
	d.emit(event.New(StepRequested, StepRequestedV1{RunID: d.r.ID, Step: i, Input: input, JobID: JobID(d.r.ID, i),
		IdempotencyKey: IdempotencyKey(d.r.ID, i), Decision: decision, At: d.now}))
}

// ApprovalTimer is the approval expiry timer's payload.
type ApprovalTimer struct {
	Step int `json:"step"`
}

func approvalTimer(step int) string { return "approval:" + strconv.Itoa(step) }

// waiting finds the step waiting on an approval or task id with the given status.
func (r *Run) waiting(waitID, status, what string) (int, error) {
	for i, s := range r.Steps {
		if s.WaitID != waitID {
			continue
		}
		if s.Status == status {
			return i, nil
		}
		if s.Decision != nil && s.Decision.At != nil {
			by := ""
			if s.Decision.By != nil {
				by = " by " + s.Decision.By.ID
			}
			return -1, errs.Conflict(what+"_decided", fmt.Sprintf("the %s was decided already: %s%s at %s", what, s.Decision.Kind, by,
				s.Decision.At.Format(time.RFC3339)))
		}
		return -1, errs.Conflict(what+"_decided", "the "+what+" is no longer pending: the run is "+r.Status)
	}
	return -1, errs.NotFound(what)
}

// Approve grants a pending approval: the step goes on its way, exactly
// once. An approval decided already (approved, rejected, expired, or its
// run ended) is a conflict: a second approval never runs the step again,
// nor any step before it.
func (r *Run) Approve(approvalID string, by Actor, note string, p Policy, now time.Time) ([]event.Change, error) {
	i, err := r.waiting(approvalID, StepAwaitingApproval, "approval")
	if err != nil {
		return nil, err
	}
	d := &decider{r: r, now: now, p: p}
	c := event.New(ApprovalGranted, ApprovalDecidedV1{RunID: r.ID, Step: i, ApprovalID: approvalID, By: by, Note: note, At: now})
	c.Timers = []event.Timer{event.CancelTimer(approvalTimer(i))}
	d.emit(c)
	d.request(i, r.Steps[i].Input, DecisionApproved)
	return d.result()
}

// Reject refuses a pending approval: the step does not run and the run
// ends, rejected.
func (r *Run) Reject(approvalID string, by Actor, note string, now time.Time) ([]event.Change, error) {
	i, err := r.waiting(approvalID, StepAwaitingApproval, "approval")
	if err != nil {
		return nil, err
	}
	d := &decider{r: r, now: now}
	c := event.New(ApprovalRejected, ApprovalDecidedV1{RunID: r.ID, Step: i, ApprovalID: approvalID, By: by, Note: note, At: now})
	c.Timers = []event.Timer{event.CancelTimer(approvalTimer(i))}
	d.emit(c)
	d.emit(event.New(RunEnded, RunEndedV1{RunID: r.ID, Status: RunRejected, Reason: "step " + strconv.Itoa(i) + " was rejected", At: now}))
	return d.result()
}

// Expire is the approval timer's decision: a step still awaiting its
// approval ends the run, expired. Anything else changes nothing.
func (r *Run) Expire(step int, now time.Time) []event.Change {
	if !r.Exists() || r.Ended() || r.step(step).Status != StepAwaitingApproval {
		return nil
	}
	d := &decider{r: r, now: now}
	d.emit(event.New(ApprovalExpired, ApprovalExpiredV1{RunID: r.ID, Step: step, ApprovalID: r.Steps[step].WaitID, At: now}))
	d.emit(event.New(RunEnded, RunEndedV1{RunID: r.ID, Status: RunExpired, Reason: "step " + strconv.Itoa(step) + "'s approval expired", At: now}))
	out, _ := d.result()
	return out
}

// CompleteTask completes a task with what the person produced (its
// output, which later steps may refer to), and the run goes on.
func (r *Run) CompleteTask(taskID string, by Actor, output json.RawMessage, note string, p Policy, now time.Time) ([]event.Change, error) {
	i, err := r.waiting(taskID, StepAwaitingTask, "task")
	if err != nil {
		return nil, err
	}
	if len(output) == 0 {
		output = json.RawMessage("null")
	}
	d := &decider{r: r, now: now, p: p}
	d.emit(event.New(TaskCompleted, TaskCompletedV1{RunID: r.ID, Step: i, TaskID: taskID, By: by, Output: output, Note: note, At: now}))
	d.emit(event.New(StepSucceeded, StepSucceededV1{RunID: r.ID, Step: i, Output: output, At: now}))
	d.reach(i + 1)
	return d.result()
}

// RecordJob settles step i from its job: succeeded (the action answered:
// 2xx is the step done, anything else the step failed with that status),
// or failed for good (the platform could not be reached). A step settled
// already, or a job still on its way, changes nothing: the worker and the
// reactor both report each outcome, and the first one counts.
func (r *Run) RecordJob(i int, j domjobs.Job, p Policy, now time.Time) ([]event.Change, error) {
	if !r.Exists() || r.Ended() || r.step(i).Status != StepQueued {
		return nil, nil
	}
	d := &decider{r: r, now: now, p: p}
	switch {
	case j.State == domjobs.Succeeded:
		var res CallResult
		if err := json.Unmarshal(j.Result, &res); err != nil {
			return nil, fmt.Errorf("agent: step job %s result: %w", j.ID, err)
		}
		if res.Status >= 200 && res.Status < 300 {
			out := res.Body
			if len(out) == 0 || res.Truncated {
				out = json.RawMessage("null")
			}
			d.emit(event.New(StepSucceeded, StepSucceededV1{RunID: r.ID, Step: i, Status: res.Status, Output: out,
				OutputTruncated: res.Truncated, Attempts: j.Attempt, Position: res.Position, At: now}))
			d.reach(i + 1)
			break
		}
		code, detail := problemOf(res.Body)
		d.fail(i, res.Status, code, detail, j.Attempt)
	case j.State == domjobs.Failed && j.Settled(), j.State == domjobs.Cancelled:
		code, reason := "cancelled", "the step's job was cancelled"
		if j.Failure != nil {
			code, reason = j.Failure.Code, j.Failure.Reason
		}
		d.fail(i, 0, code, reason, j.Attempt)
	default:
		return nil, nil
	}
	return d.result()
}

func (d *decider) fail(i, status int, code, reason string, attempts int) {
	d.emit(event.New(StepFailed, StepFailedV1{RunID: d.r.ID, Step: i, Status: status, Code: code, Reason: bound(reason, 500),
		Attempts: attempts, At: d.now}))
	d.emit(event.New(RunEnded, RunEndedV1{RunID: d.r.ID, Status: RunFailed, Reason: "step " + strconv.Itoa(i) + " failed: " + code, At: d.now}))
}

// problemOf reads a problem+json answer's code and detail.
func problemOf(body json.RawMessage) (string, string) {
	var p struct {
		Code   string `json:"code"`
		Detail string `json:"detail"`
		Title  string `json:"title"`
	}
	_ = json.Unmarshal(body, &p)
	if p.Code == "" {
		p.Code = "refused"
	}
	if p.Detail == "" {
		p.Detail = p.Title
	}
	return bound(p.Code, 128), p.Detail
}

// Cancel ends a run that is not over; the step on its way (if any) is
// answered with its job id so its job can be cancelled too.
func (r *Run) Cancel(by Actor, reason string, now time.Time) ([]event.Change, error) {
	if !r.Exists() {
		return nil, errs.NotFound("run")
	}
	if r.Ended() {
		return nil, errs.Conflict("invalid_transition", "the run is over ("+r.Status+")")
	}
	d := &decider{r: r, now: now}
	var timers []event.Timer
	for i, s := range r.Steps {
		if s.Status == StepAwaitingApproval {
			timers = append(timers, event.CancelTimer(approvalTimer(i)))
		}
	}
	if reason == "" {
		reason = "cancelled by " + by.ID
	}
	c := event.New(RunEnded, RunEndedV1{RunID: r.ID, Status: RunCancelled, Reason: bound(reason, 500), At: now})
	c.Timers = timers
	d.emit(c)
	return d.result()
}

// QueuedJob is the job of the step on its way, "" when none.
func (r *Run) QueuedJob() string {
	for _, s := range r.Steps {
		if s.Status == StepQueued {
			return s.JobID
		}
	}
	return ""
}

func bound(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n])
	}
	return s
}

// FlowScopes are the scopes the run's flow version checks in app: what the
// credential its steps call app with holds.
func (r *Run) FlowScopes(app string) []string { return Definition{Steps: r.defs}.Scopes()[app] }

// PositionsBefore are the triggering event's position and where the writes
// of the steps before step i reached, in step order: step i's call waits
// for them (read your writes across services).
func (r *Run) PositionsBefore(i int) []string {
	var out []string
	if r.Trigger.Position != "" {
		out = append(out, r.Trigger.Position)
	}
	for j := 0; j < i; j++ {
		if p := r.positions[j]; p != "" {
			out = append(out, p)
		}
	}
	return out
}
