package agent_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/platform/backend/domain/agent"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/domain/event/eventtest"
	domjobs "github.com/platform/backend/domain/jobs"
)

var t0 = time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)

// threeSteps: read, then a write that requires confirmation (its input
// mapped from step 0's output), then a read of what step 1 made.
func threeSteps() *agent.Flow {
	return &agent.Flow{ID: "flow-1", State: agent.FlowStateActive, Version: 3, Owner: agent.Owner{ID: "u1", Type: "user", UserID: "u1"},
		Definition: agent.Definition{Name: "Triage", Trigger: agent.Trigger{Type: agent.TriggerManual}, Steps: []agent.Step{
			{Name: "read", Kind: agent.KindAction, Service: "status", Action: "components.list", Input: json.RawMessage(`{}`),
				Call: &agent.Call{AppID: "status", Method: "GET", Path: "/api/components", Permission: "status:read", ReadOnly: true}},
			{Name: "open", Kind: agent.KindAction, Service: "status", Action: "incidents.create",
				Input: json.RawMessage(`{"title":{"$from":"/steps/0/output/title"},"message":"m","severity":{"$from":"/trigger/data/severity","default":"minor"}}`),
				Call:  &agent.Call{AppID: "status", Method: "POST", Path: "/api/incidents", Permission: "status:write", RequiresConfirmation: true}},
			{Name: "check", Kind: agent.KindAction, Service: "status", Action: "incidents.get",
				Input: json.RawMessage(`{"incidentId":{"$from":"/steps/1/output/incident_id"}}`),
				Call:  &agent.Call{AppID: "status", Method: "GET", Path: "/api/incidents/{incidentId}", Permission: "status:read", ReadOnly: true}},
		}}}
}

var policy = agent.Policy{ApprovalTTL: time.Hour}

type runScenario struct {
	t       *testing.T
	history []event.Recorded
}

func (s *runScenario) run() *agent.Run {
	r, err := agent.LoadRun(s.history)
	if err != nil {
		s.t.Fatal(err)
	}
	return r
}

func (s *runScenario) do(f func(r *agent.Run) ([]event.Change, error)) []event.Change {
	s.t.Helper()
	changes, err := f(s.run())
	if err != nil {
		s.t.Fatal(err)
	}
	s.history = eventtest.Append(s.t, s.history, changes)
	return changes
}

func types(changes []event.Change) []string {
	out := make([]string, len(changes))
	for i, c := range changes {
		out[i] = c.Type
	}
	return out
}

func expectTypes(t *testing.T, changes []event.Change, want ...string) {
	t.Helper()
	got := types(changes)
	if len(got) != len(want) {
		t.Fatalf("events %v, want %v", got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("events %v, want %v", got, want)
		}
	}
}

func succeeded(id string, attempt int, status int, body string) domjobs.Job {
	res, _ := json.Marshal(agent.CallResult{Status: status, Body: json.RawMessage(body)})
	return domjobs.Job{ID: id, State: domjobs.Succeeded, Attempt: attempt, Result: res}
}

func started(t *testing.T) *runScenario {
	s := &runScenario{t: t}
	s.do(func(r *agent.Run) ([]event.Change, error) {
		return r.Start(agent.RunStart{RunID: "run-1", Flow: threeSteps(), Trigger: agent.TriggerData{Type: agent.TriggerManual,
			Data: json.RawMessage(`{"severity":"major"}`), At: t0}}, policy, t0)
	})
	return s
}

// TestApprovalResumesOnce: a run reaches the step that needs approval with
// its input mapped from step 0's output; the first approval puts exactly
// that step on its way, and a second approval (or a rejection after it) is
// a conflict that changes nothing: step 0 never runs again.
func TestApprovalResumesOnce(t *testing.T) {
	s := started(t)
	if r := s.run(); r.Steps[0].Status != agent.StepQueued || r.Steps[0].Decision.Kind != agent.DecisionAuto {
		t.Fatalf("step 0 after start: %+v", r.Steps[0])
	}
	changes := s.do(func(r *agent.Run) ([]event.Change, error) {
		return r.RecordJob(0, succeeded(agent.JobID("run-1", 0), 1, 200, `{"title":"API down"}`), policy, t0.Add(time.Second))
	})
	expectTypes(t, changes, agent.StepSucceeded, agent.ApprovalRequested)
	r := s.run()
	if r.Status != agent.RunWaiting || string(r.Steps[1].Input) != `{"message":"m","severity":"major","title":"API down"}` {
		t.Fatalf("waiting run: %s %s", r.Status, r.Steps[1].Input)
	}
	if r.Steps[1].ExpiresAt == nil || !r.Steps[1].ExpiresAt.Equal(t0.Add(time.Second+time.Hour)) {
		t.Fatalf("expiry %v", r.Steps[1].ExpiresAt)
	}
	approval := r.Steps[1].WaitID
	// A repeat of step 0's outcome (the reactor after the worker) changes nothing.
	if again, err := s.run().RecordJob(0, succeeded(agent.JobID("run-1", 0), 1, 200, `{"title":"API down"}`), policy, t0); err != nil || len(again) != 0 {
		t.Fatalf("repeated outcome: %v %v", types(again), err)
	}
	by := agent.Actor{ID: "u2", Type: "user", UserID: "u2"}
	changes = s.do(func(r *agent.Run) ([]event.Change, error) {
		return r.Approve(approval, by, "ok", policy, t0.Add(time.Minute))
	})
	expectTypes(t, changes, agent.ApprovalGranted, agent.StepRequested)
	var req agent.StepRequestedV1
	b, _ := json.Marshal(changes[1].Payload)
	_ = json.Unmarshal(b, &req)
	if req.Step != 1 || req.IdempotencyKey != "agent:run:run-1:step:1" || req.JobID != "run-1.1" || req.Decision != agent.DecisionApproved {
		t.Fatalf("requested %+v", req)
	}
	if len(changes[0].Timers) != 1 || !changes[0].Timers[0].Cancel {
		t.Fatalf("the expiry timer is not cancelled: %+v", changes[0].Timers)
	}
	for _, second := range []func(r *agent.Run) ([]event.Change, error){
		func(r *agent.Run) ([]event.Change, error) {
			return r.Approve(approval, by, "", policy, t0.Add(2*time.Minute))
		},
		func(r *agent.Run) ([]event.Change, error) { return r.Reject(approval, by, "", t0.Add(2*time.Minute)) },
	} {
		got, err := second(s.run())
		eventtest.Check(t, got, err, eventtest.Conflict("approval_decided"))
	}
	if got := s.run().Expire(1, t0.Add(2*time.Hour)); len(got) != 0 {
		t.Fatalf("expiry after approval: %v", types(got))
	}
	changes = s.do(func(r *agent.Run) ([]event.Change, error) {
		return r.RecordJob(1, succeeded("run-1.1", 1, 201, `{"incident_id":"inc-9"}`), policy, t0.Add(3*time.Minute))
	})
	expectTypes(t, changes, agent.StepSucceeded, agent.StepRequested)
	if in := s.run().Steps[2].Input; string(in) != `{"incidentId":"inc-9"}` {
		t.Fatalf("step 2 input %s", in)
	}
	changes = s.do(func(r *agent.Run) ([]event.Change, error) {
		return r.RecordJob(2, succeeded("run-1.2", 1, 200, `{"incident_id":"inc-9","revision":1}`), policy, t0.Add(4*time.Minute))
	})
	expectTypes(t, changes, agent.StepSucceeded, agent.RunEnded)
	r = s.run()
	if r.Status != agent.RunSucceeded || r.FinishedAt == nil {
		t.Fatalf("run %s", r.Status)
	}
	requested := 0
	for _, h := range s.history {
		if h.Type == agent.StepRequested {
			requested++
		}
	}
	if requested != 3 {
		t.Fatalf("%d steps requested, want 3 (one each)", requested)
	}
}

// TestRejectedApprovalEndsTheRun: a rejection ends the run (rejected), the
// step never goes, and a later approval is a conflict.
func TestRejectedApprovalEndsTheRun(t *testing.T) {
	s := started(t)
	s.do(func(r *agent.Run) ([]event.Change, error) {
		return r.RecordJob(0, succeeded("run-1.0", 1, 200, `{"title":"x"}`), policy, t0)
	})
	approval := s.run().Steps[1].WaitID
	changes := s.do(func(r *agent.Run) ([]event.Change, error) {
		return r.Reject(approval, agent.Actor{ID: "u2", Type: "user"}, "no", t0.Add(time.Minute))
	})
	expectTypes(t, changes, agent.ApprovalRejected, agent.RunEnded)
	r := s.run()
	if r.Status != agent.RunRejected || r.Steps[1].Status != agent.StepRefused || r.Steps[2].Status != agent.StepPending {
		t.Fatalf("after rejection: %s %s %s", r.Status, r.Steps[1].Status, r.Steps[2].Status)
	}
	got, err := r.Approve(approval, agent.Actor{ID: "u3", Type: "user"}, "", policy, t0.Add(2*time.Minute))
	eventtest.Check(t, got, err, eventtest.Conflict("approval_decided"))
	got, err = r.Approve("no-such", agent.Actor{ID: "u3", Type: "user"}, "", policy, t0)
	eventtest.Check(t, got, err, eventtest.NotFound())
}

// TestApprovalExpires: the expiry timer ends a run still waiting.
func TestApprovalExpires(t *testing.T) {
	s := started(t)
	s.do(func(r *agent.Run) ([]event.Change, error) {
		return r.RecordJob(0, succeeded("run-1.0", 1, 200, `{"title":"x"}`), policy, t0)
	})
	changes := s.run().Expire(1, t0.Add(time.Hour))
	expectTypes(t, changes, agent.ApprovalExpired, agent.RunEnded)
	s.history = eventtest.Append(t, s.history, changes)
	if r := s.run(); r.Status != agent.RunExpired || r.Steps[1].Decision.Kind != agent.DecisionExpired {
		t.Fatalf("run %s", r.Status)
	}
}

// TestRefusedStepFailsTheRun: an action's 403 (the owner lost a
// permission) fails the step with that status and code, and the run.
func TestRefusedStepFailsTheRun(t *testing.T) {
	s := started(t)
	changes := s.do(func(r *agent.Run) ([]event.Change, error) {
		return r.RecordJob(0, succeeded("run-1.0", 1, 403, `{"code":"permission_denied","detail":"the credential lacks permission status.status:read"}`), policy, t0)
	})
	expectTypes(t, changes, agent.StepFailed, agent.RunEnded)
	r := s.run()
	if r.Status != agent.RunFailed || r.Steps[0].Failure == nil || r.Steps[0].Failure.Status != 403 || r.Steps[0].Failure.Code != "permission_denied" {
		t.Fatalf("run %s, step %+v", r.Status, r.Steps[0].Failure)
	}
	// A job failed for good (the platform unreachable) fails too; one whose
	// retry is on its way changes nothing.
	s2 := started(t)
	retry := t0.Add(time.Minute)
	if got, _ := s2.run().RecordJob(0, domjobs.Job{State: domjobs.Failed, Failure: &domjobs.Failure{Code: "x", RetryAt: &retry}}, policy, t0); len(got) != 0 {
		t.Fatalf("a failure with a retry on its way: %v", types(got))
	}
	got, _ := s2.run().RecordJob(0, domjobs.Job{State: domjobs.Failed, Attempt: 3, Failure: &domjobs.Failure{Code: "dependency_unavailable", Reason: "503"}}, policy, t0)
	expectTypes(t, got, agent.StepFailed, agent.RunEnded)
}

// TestMappingFailureFailsTheStep: a reference that names nothing (and has
// no default) fails the step before anything is called.
func TestMappingFailureFailsTheStep(t *testing.T) {
	s := started(t)
	changes := s.do(func(r *agent.Run) ([]event.Change, error) {
		return r.RecordJob(0, succeeded("run-1.0", 1, 200, `{"name":"no title here"}`), policy, t0)
	})
	expectTypes(t, changes, agent.StepSucceeded, agent.StepFailed, agent.RunEnded)
	if f := s.run().Steps[1].Failure; f == nil || f.Code != "mapping_failed" {
		t.Fatalf("failure %+v", f)
	}
}

// TestTaskStep: a task waits for a person; its output feeds the next step.
func TestTaskStep(t *testing.T) {
	f := threeSteps()
	f.Definition.Steps = []agent.Step{
		{Name: "decide", Kind: agent.KindTask, Instructions: "Pick a title"},
		{Name: "read", Kind: agent.KindAction, Input: json.RawMessage(`{"q":{"$from":"/steps/0/output/title"}}`),
			Call: &agent.Call{AppID: "status", Method: "GET", Path: "/x", ReadOnly: true}},
	}
	s := &runScenario{t: t}
	changes := s.do(func(r *agent.Run) ([]event.Change, error) {
		return r.Start(agent.RunStart{RunID: "r2", Flow: f, Trigger: agent.TriggerData{Type: agent.TriggerManual, At: t0}}, policy, t0)
	})
	expectTypes(t, changes, agent.RunStarted, agent.TaskOpened)
	task := s.run().Steps[0].WaitID
	changes = s.do(func(r *agent.Run) ([]event.Change, error) {
		return r.CompleteTask(task, agent.Actor{ID: "u"}, json.RawMessage(`{"title":"T"}`), "", policy, t0)
	})
	expectTypes(t, changes, agent.TaskCompleted, agent.StepSucceeded, agent.StepRequested)
	if in := s.run().Steps[1].Input; string(in) != `{"q":"T"}` {
		t.Fatalf("input %s", in)
	}
	_, err := s.run().CompleteTask(task, agent.Actor{ID: "u"}, nil, "", policy, t0)
	if e, ok := errs.As(err); !ok || e.Code != "task_decided" {
		t.Fatalf("second completion: %v", err)
	}
}

// TestCancel: a cancelled run stops its waiting step; cancelling again is
// an invalid transition.
func TestCancel(t *testing.T) {
	s := started(t)
	job := s.run().QueuedJob()
	if job != "run-1.0" {
		t.Fatalf("queued job %q", job)
	}
	s.do(func(r *agent.Run) ([]event.Change, error) { return r.Cancel(agent.Actor{ID: "u"}, "", t0) })
	r := s.run()
	if r.Status != agent.RunCancelled || r.Steps[0].Status != agent.StepStopped || r.QueuedJob() != "" {
		t.Fatalf("cancelled run %s %s", r.Status, r.Steps[0].Status)
	}
	// The job's late outcome changes nothing.
	if got, _ := r.RecordJob(0, succeeded("run-1.0", 1, 200, `{}`), policy, t0); len(got) != 0 {
		t.Fatalf("outcome after cancel: %v", types(got))
	}
	_, err := r.Cancel(agent.Actor{ID: "u"}, "", t0)
	eventtest.Check(t, nil, err, eventtest.Conflict("invalid_transition"))
}

// TestStartOnce: a run id starts once; a paused flow starts none.
func TestStartOnce(t *testing.T) {
	s := started(t)
	if got, err := s.run().Start(agent.RunStart{RunID: "run-1", Flow: threeSteps()}, policy, t0); err != nil || len(got) != 0 {
		t.Fatalf("second start: %v %v", types(got), err)
	}
	paused := threeSteps()
	paused.State = agent.FlowStatePaused
	_, err := (&agent.Run{}).Start(agent.RunStart{RunID: "r", Flow: paused}, policy, t0)
	eventtest.Check(t, nil, err, eventtest.Conflict("flow_paused"))
}
