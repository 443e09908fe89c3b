package agent

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/domain/text"
)

// Trigger types.
const (
	TriggerManual   = "manual"
	TriggerSchedule = "schedule"
	TriggerEvent    = "event"
)

// TriggerTypes are the trigger types, in the order the API lists them.
var TriggerTypes = []string{TriggerManual, TriggerSchedule, TriggerEvent}

// Step kinds: an action calls a platform action by its descriptor; a task
// waits for a person to complete it.
const (
	KindAction = "action"
	KindTask   = "task"
)

// StepKinds are the step kinds.
var StepKinds = []string{KindAction, KindTask}

// Flow states.
const (
	FlowStateActive  = "active"
	FlowStatePaused  = "paused"
	FlowStateDeleted = "deleted"
)

// FlowStates are the states a flow's read model shows.
var FlowStates = []string{FlowStateActive, FlowStatePaused}

// Bounds of a flow.
const (
	MaxSteps           = 20
	MaxStepName        = 120
	MaxDescription     = 2000
	MaxInstructions    = 2000
	MinEveryMinutes    = 5
	MaxEveryMinutes    = 7 * 24 * 60
	MaxApprovalMinutes = 30 * 24 * 60
)

// Trigger says what starts a flow's runs.
type Trigger struct {
	Type string `json:"type"`
	// EventType: a platform event type that starts a run in the flow's
	// organization (trigger event).
	EventType string `json:"eventType,omitempty"`
	// EveryMinutes and StartAt: a run every so many minutes from StartAt
	// (trigger schedule; StartAt default: one period after the flow is saved).
	EveryMinutes int        `json:"everyMinutes,omitempty"`
	StartAt      *time.Time `json:"startAt,omitempty"`
}

// Step is one step of a flow.
type Step struct {
	Name string `json:"name"`
	Kind string `json:"kind"`
	// Service and Action name a platform action by its descriptor (kind action).
	Service string `json:"service,omitempty"`
	Action  string `json:"action,omitempty"`
	// Input is the action's input (or a task's data) as a template of the
	// mapping language (mapping.go).
	Input json.RawMessage `json:"input,omitempty"`
	// Instructions tell the person what a task asks (kind task).
	Instructions string `json:"instructions,omitempty"`
	// ApprovalTTLMinutes bounds the wait for an approval (0: the agent's default).
	ApprovalTTLMinutes int `json:"approvalTtlMinutes,omitempty"`
	// OrganizationID, when set, is the organization the action acts in. A
	// step acting in another organization than its flow's needs a policy
	// decision of the cross-organization network service; none exists, so
	// it is refused (and the refusal recorded).
	OrganizationID string `json:"organizationId,omitempty"`
	// Call is the action's descriptor as it was when the flow was saved
	// (kind action): where and how the step calls it.
	Call *Call `json:"call,omitempty"`
}

// Call is what a step keeps of its action's descriptor.
type Call struct {
	AppID                string `json:"appId"`
	Method               string `json:"method"`
	Path                 string `json:"path"`
	Permission           string `json:"permission"`
	ReadOnly             bool   `json:"readOnly"`
	Destructive          bool   `json:"destructive"`
	RequiresConfirmation bool   `json:"requiresConfirmation"`
}

// NeedsApproval: the step pauses the run for a person's approval (its
// action requires confirmation, seed 000's agentAccess "confirm").
func (s Step) NeedsApproval() bool {
	return s.Kind == KindAction && s.Call != nil && s.Call.RequiresConfirmation
}

// Definition is what a flow is: its name, trigger and steps.
type Definition struct {
	Name        string  `json:"name"`
	Description string  `json:"description"`
	Trigger     Trigger `json:"trigger"`
	Steps       []Step  `json:"steps"`
}

// Normalize trims the names and defaults the step kinds.
func (d *Definition) Normalize() {
	d.Name, d.Description = text.Trim(d.Name), strings.TrimSpace(d.Description)
	for i := range d.Steps {
		s := &d.Steps[i]
		s.Name, s.Instructions = text.Trim(s.Name), strings.TrimSpace(s.Instructions)
		if s.Kind == "" {
			s.Kind = KindAction
		}
		if s.Name == "" {
			s.Name = "Step " + strconv.Itoa(i+1)
		}
	}
}

// Check names every problem of a definition; known reports whether an event
// type is one the platform's contexts declare.
func (d Definition) Check(known func(eventType string) bool) []errs.Field {
	var f []errs.Field
	if d.Name == "" {
		f = append(f, errs.Field{Pointer: "/name", Detail: "a flow needs a name"})
	}
	f = text.Line(f, "/name", d.Name, text.MaxTitle)
	f = text.MultiLine(f, "/description", d.Description, MaxDescription)
	switch d.Trigger.Type {
	case TriggerManual:
	case TriggerSchedule:
		if d.Trigger.EveryMinutes < MinEveryMinutes || d.Trigger.EveryMinutes > MaxEveryMinutes {
			f = append(f, errs.Field{Pointer: "/trigger/everyMinutes", Detail: fmt.Sprintf("a schedule runs every %d..%d minutes", MinEveryMinutes, MaxEveryMinutes)})
		}
	case TriggerEvent:
		switch {
		case strings.HasPrefix(d.Trigger.EventType, Context+"."):
			f = append(f, errs.Field{Pointer: "/trigger/eventType", Detail: "the agent's own events do not start flows (a flow could start itself)"})
		case !known(d.Trigger.EventType):
			f = append(f, errs.Field{Pointer: "/trigger/eventType", Detail: "not an event type of the platform"})
		}
	default:
		f = append(f, errs.Field{Pointer: "/trigger/type", Detail: "must be manual, schedule or event"})
	}
	if d.Trigger.Type != TriggerSchedule && (d.Trigger.EveryMinutes != 0 || d.Trigger.StartAt != nil) {
		f = append(f, errs.Field{Pointer: "/trigger/everyMinutes", Detail: "only a schedule trigger has a period"})
	}
	if d.Trigger.Type != TriggerEvent && d.Trigger.EventType != "" {
		f = append(f, errs.Field{Pointer: "/trigger/eventType", Detail: "only an event trigger names an event type"})
	}
	if len(d.Steps) == 0 || len(d.Steps) > MaxSteps {
		f = append(f, errs.Field{Pointer: "/steps", Detail: fmt.Sprintf("a flow has 1..%d steps", MaxSteps)})
	}
	for i, s := range d.Steps {
		at := "/steps/" + strconv.Itoa(i)
		f = text.Line(f, at+"/name", s.Name, MaxStepName)
		f = append(f, CheckTemplate(at+"/input", s.Input, i)...)
		if s.ApprovalTTLMinutes < 0 || s.ApprovalTTLMinutes > MaxApprovalMinutes {
			f = append(f, errs.Field{Pointer: at + "/approvalTtlMinutes", Detail: fmt.Sprintf("must be 1..%d minutes", MaxApprovalMinutes)})
		}
		f = text.Line(f, at+"/organizationId", s.OrganizationID, text.MaxID)
		switch s.Kind {
		case KindAction:
			if s.Service == "" || s.Action == "" {
				f = append(f, errs.Field{Pointer: at + "/action", Detail: "an action step names a service and an action"})
			}
			if s.Instructions != "" {
				f = append(f, errs.Field{Pointer: at + "/instructions", Detail: "only a task step has instructions"})
			}
		case KindTask:
			if s.Instructions == "" {
				f = append(f, errs.Field{Pointer: at + "/instructions", Detail: "a task tells the person what to do"})
			}
			f = text.MultiLine(f, at+"/instructions", s.Instructions, MaxInstructions)
			if s.Service != "" || s.Action != "" {
				f = append(f, errs.Field{Pointer: at + "/action", Detail: "a task step calls no action"})
			}
		default:
			f = append(f, errs.Field{Pointer: at + "/kind", Detail: "must be action or task"})
		}
	}
	return f
}

// ForeignSteps are the indexes of steps acting in another organization
// than organizationID.
func (d Definition) ForeignSteps(organizationID string) []int {
	var out []int
	for i, s := range d.Steps {
		if s.OrganizationID != "" && s.OrganizationID != organizationID {
			out = append(out, i)
		}
	}
	return out
}

// Scopes are, per app, the permissions (short scopes) the flow's action
// steps check: what a credential delegated for the flow needs there.
func (d Definition) Scopes() map[string][]string {
	out := map[string][]string{}
	for _, s := range d.Steps {
		if s.Call == nil || s.Call.Permission == "" {
			continue
		}
		list := out[s.Call.AppID]
		found := false
		for _, p := range list {
			found = found || p == s.Call.Permission
		}
		if !found {
			out[s.Call.AppID] = append(list, s.Call.Permission)
		}
	}
	return out
}

// Owner is who a flow acts for: the principal that saved it. Its steps run
// with a credential delegated by it, never more than it holds at the time.
type Owner struct {
	ID     string `json:"id"`
	Type   string `json:"type"` // user or api_key
	UserID string `json:"userId,omitempty"`
}

// FlowSavedV1 is a flow created or changed: the whole definition.
type FlowSavedV1 struct {
	FlowID     string     `json:"flow_id"`
	Definition Definition `json:"definition"`
	Owner      Owner      `json:"owner"`
	Version    int        `json:"version"`
	NextRunAt  *time.Time `json:"next_run_at,omitempty"`
	At         time.Time  `json:"at"`
}

// FlowStateV1 is a flow paused, resumed or deleted.
type FlowStateV1 struct {
	FlowID    string     `json:"flow_id"`
	NextRunAt *time.Time `json:"next_run_at,omitempty"`
	At        time.Time  `json:"at"`
}

// FlowTriggeredV1 is a scheduled run due: the run with RunID starts.
type FlowTriggeredV1 struct {
	FlowID    string     `json:"flow_id"`
	RunID     string     `json:"run_id"`
	DueAt     time.Time  `json:"due_at"`
	Version   int        `json:"version"`
	NextRunAt *time.Time `json:"next_run_at,omitempty"`
	At        time.Time  `json:"at"`
}

// ScheduleTimer is the schedule timer's payload.
type ScheduleTimer struct {
	DueAt time.Time `json:"due_at"`
}

// Flow is the write model of a flow's stream.
type Flow struct {
	ID             string     `json:"flowId"`
	OrganizationID string     `json:"-"`
	Definition     Definition `json:"definition"`
	Owner          Owner      `json:"owner"`
	State          string     `json:"state"`
	Version        int        `json:"version"`
	NextRunAt      *time.Time `json:"nextRunAt"`
	CreatedAt      time.Time  `json:"createdAt"`
	UpdatedAt      time.Time  `json:"updatedAt"`
}

// LoadFlow folds a flow's stream.
func LoadFlow(history []event.Recorded) (*Flow, error) { return flowFold.Load(&Flow{}, history) }

var flowFold = event.Fold[*Flow]{
	FlowCreated: event.Apply(func(f *Flow, p FlowSavedV1) {
		*f = Flow{ID: p.FlowID, Definition: p.Definition, Owner: p.Owner, State: FlowStateActive, Version: p.Version,
			NextRunAt: p.NextRunAt, CreatedAt: p.At, UpdatedAt: p.At}
	}),
	FlowUpdated: event.Apply(func(f *Flow, p FlowSavedV1) {
		f.Definition, f.Owner, f.Version, f.NextRunAt, f.UpdatedAt = p.Definition, p.Owner, p.Version, p.NextRunAt, p.At
	}),
	FlowPaused:    event.Apply(func(f *Flow, p FlowStateV1) { f.State, f.NextRunAt, f.UpdatedAt = FlowStatePaused, nil, p.At }),
	FlowResumed:   event.Apply(func(f *Flow, p FlowStateV1) { f.State, f.NextRunAt, f.UpdatedAt = FlowStateActive, p.NextRunAt, p.At }),
	FlowDeleted:   event.Apply(func(f *Flow, p FlowStateV1) { f.State, f.NextRunAt, f.UpdatedAt = FlowStateDeleted, nil, p.At }),
	FlowTriggered: event.Apply(func(f *Flow, p FlowTriggeredV1) { f.NextRunAt = p.NextRunAt }),
}

// Exists: created and not deleted.
func (f *Flow) Exists() bool { return f.ID != "" && f.State != FlowStateDeleted }

const scheduleTimer = "schedule"

// schedule is the timer a flow's schedule needs from now (the next due
// time, or a cancellation when the flow runs on no schedule).
func (f *Flow) schedule(d Definition, now time.Time) (*time.Time, event.Timer) {
	if d.Trigger.Type != TriggerSchedule || d.Trigger.EveryMinutes <= 0 {
		return nil, event.CancelTimer(scheduleTimer)
	}
	every := time.Duration(d.Trigger.EveryMinutes) * time.Minute
	next := now.Add(every)
	if s := d.Trigger.StartAt; s != nil {
		next = s.UTC()
		for !next.After(now) {
			next = next.Add(every)
		}
	}
	next = next.Truncate(time.Microsecond)
	return &next, event.ScheduleTimer(scheduleTimer, TimerSchedule, next, ScheduleTimer{DueAt: next})
}

// Create makes the flow (active) with a definition already checked.
func (f *Flow) Create(id string, d Definition, owner Owner, now time.Time) ([]event.Change, error) {
	if f.ID != "" {
		return nil, errs.Conflict("flow_exists", "a flow with this id exists")
	}
	next, timer := f.schedule(d, now)
	c := event.New(FlowCreated, FlowSavedV1{FlowID: id, Definition: d, Owner: owner, Version: 1, NextRunAt: next, At: now})
	c.Timers = []event.Timer{timer}
	return []event.Change{c}, nil
}

// Update replaces the definition (a new version); its saver becomes the
// owner. Runs already started keep the version they started with.
func (f *Flow) Update(d Definition, owner Owner, now time.Time) ([]event.Change, error) {
	if !f.Exists() {
		return nil, errs.NotFound("flow")
	}
	next, timer := f.schedule(d, now)
	if f.State != FlowStateActive {
		next, timer = nil, event.CancelTimer(scheduleTimer)
	}
	c := event.New(FlowUpdated, FlowSavedV1{FlowID: f.ID, Definition: d, Owner: owner, Version: f.Version + 1, NextRunAt: next, At: now})
	c.Timers = []event.Timer{timer}
	return []event.Change{c}, nil
}

// Pause stops new runs (schedule and events); a paused flow pauses again
// without a change.
func (f *Flow) Pause(now time.Time) ([]event.Change, error) {
	if !f.Exists() {
		return nil, errs.NotFound("flow")
	}
	if f.State == FlowStatePaused {
		return nil, nil
	}
	c := event.New(FlowPaused, FlowStateV1{FlowID: f.ID, At: now})
	c.Timers = []event.Timer{event.CancelTimer(scheduleTimer)}
	return []event.Change{c}, nil
}

// Resume lets runs start again; its schedule restarts from now.
func (f *Flow) Resume(now time.Time) ([]event.Change, error) {
	if !f.Exists() {
		return nil, errs.NotFound("flow")
	}
	if f.State == FlowStateActive {
		return nil, nil
	}
	next, timer := f.schedule(f.Definition, now)
	c := event.New(FlowResumed, FlowStateV1{FlowID: f.ID, NextRunAt: next, At: now})
	c.Timers = []event.Timer{timer}
	return []event.Change{c}, nil
}

// Delete ends the flow: no new runs; runs under way finish.
func (f *Flow) Delete(now time.Time) ([]event.Change, error) {
	if !f.Exists() {
		return nil, errs.NotFound("flow")
	}
	c := event.New(FlowDeleted, FlowStateV1{FlowID: f.ID, At: now})
	c.Timers = []event.Timer{event.CancelTimer(scheduleTimer)}
	return []event.Change{c}, nil
}

// CanStart refuses a run of a flow that is missing or paused.
func (f *Flow) CanStart() error {
	if !f.Exists() {
		return errs.NotFound("flow")
	}
	if f.State != FlowStateActive {
		return errs.Conflict("flow_paused", "the flow is paused: resume it to start runs")
	}
	return nil
}

// Fire is the schedule timer's decision: a run is due at due (when the
// flow is still active on that schedule), and the next one is scheduled
// one period later, or at the first slot after now when the platform was
// down for several periods (late rather than never, and once).
func (f *Flow) Fire(due, now time.Time) []event.Change {
	if !f.Exists() || f.State != FlowStateActive || f.NextRunAt == nil || !f.NextRunAt.Equal(due) ||
		f.Definition.Trigger.Type != TriggerSchedule {
		return nil
	}
	every := time.Duration(f.Definition.Trigger.EveryMinutes) * time.Minute
	next := due.Add(every)
	for !next.After(now) {
		next = next.Add(every)
	}
	next = next.Truncate(time.Microsecond)
	c := event.New(FlowTriggered, FlowTriggeredV1{FlowID: f.ID, RunID: ScheduledRunID(f.ID, due), DueAt: due,
		Version: f.Version, NextRunAt: &next, At: now})
	c.Timers = []event.Timer{event.ScheduleTimer(scheduleTimer, TimerSchedule, next, ScheduleTimer{DueAt: next})}
	return []event.Change{c}
}

var idSpace = uuid.MustParse("6f3c55e4-2f0f-4d7e-9a0b-1b7f5c2a9e11")

// ScheduledRunID is the run a flow's schedule starts at due: one run per slot.
func ScheduledRunID(flowID string, due time.Time) string {
	return uuid.NewSHA1(idSpace, []byte("schedule\x00"+flowID+"\x00"+due.UTC().Format(time.RFC3339Nano))).String()
}

// EventRunID is the run an event starts for a flow: one run per event and flow.
func EventRunID(flowID, eventID string) string {
	return uuid.NewSHA1(idSpace, []byte("event\x00"+flowID+"\x00"+eventID)).String()
}

// WaitID is the id of a run's approval or task at one step.
func WaitID(runID string, step int) string {
	return uuid.NewSHA1(idSpace, []byte("wait\x00"+runID+"\x00"+strconv.Itoa(step))).String()
}

// JobID is the job of one action step of a run.
func JobID(runID string, step int) string { return runID + "." + strconv.Itoa(step) }

// IdempotencyKey is what a step's call carries: derived from the run and
// the step (not the attempt), so every attempt of the step is one request
// to the platform, which answers a repeat with the first result.
func IdempotencyKey(runID string, step int) string {
	return "agent:run:" + runID + ":step:" + strconv.Itoa(step)
}
