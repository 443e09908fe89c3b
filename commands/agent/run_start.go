package agent

import (
	"bytes"
	"context"
	"encoding/json"

	"github.com/google/uuid"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/commands/jobs"
	domain "github.com/platform/backend/domain/agent"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/eventstore"
)

// MaxTriggerData bounds what a run keeps of its trigger (a manual run's
// input, an event's payload): it rides on the run's events.
const MaxTriggerData = 32 << 10

// StartRun is runs.start's input: a manual run of a flow, with data its
// steps may refer to as /trigger/data.
type StartRun struct {
	FlowID string          `json:"flowId"`
	Input  json.RawMessage `json:"input"`
}

// StartRun starts a manual run of an active flow.
func (h *Handlers) StartRun(ctx context.Context, m commands.Meta, in StartRun) (commands.Result[domain.Run], error) {
	var zero commands.Result[domain.Run]
	input := in.Input
	if len(bytes.TrimSpace(input)) == 0 {
		input = json.RawMessage("null")
	}
	if len(input) > MaxTriggerData {
		return zero, errs.InvalidField("/input", "must be at most 32 KiB of JSON")
	}
	f, err := h.Flow(ctx, m.OrganizationID, in.FlowID)
	if err != nil {
		return zero, err
	}
	id := uuid.Must(uuid.NewV7()).String()
	return h.start(ctx, m, id, f, domain.TriggerData{Type: domain.TriggerManual, Data: input, At: h.now()}, 0)
}

// start runs a flow's current version as run id, and puts its first step
// on its way.
func (h *Handlers) start(ctx context.Context, m commands.Meta, id string, f *domain.Flow, trigger domain.TriggerData, depth int) (commands.Result[domain.Run], error) {
	now := h.now()
	res, err := h.onRun(ctx, m, id, func(r *domain.Run) ([]event.Change, error) {
		return r.Start(domain.RunStart{RunID: id, Flow: f, Trigger: trigger, Depth: depth}, h.policy(), now)
	})
	if err == nil && !res.Replayed {
		h.dispatch(ctx, m.OrganizationID, res.Value)
	}
	return res, err
}

func runAnswer(r *domain.Run) domain.Run { return *r }

// waitWrites record a run's approvals and tasks by id (agent_waits), so
// that deciding one finds its run.
func waitWrites(organizationID string) func(r domain.Run) []eventstore.Write {
	return func(r domain.Run) []eventstore.Write {
		var out []eventstore.Write
		for _, s := range r.Steps {
			if s.WaitID == "" || (s.Status != domain.StepAwaitingApproval && s.Status != domain.StepAwaitingTask) {
				continue
			}
			kind := "approval"
			if s.Status == domain.StepAwaitingTask {
				kind = "task"
			}
			out = append(out, eventstore.Write{SQL: `INSERT INTO agent_waits (wait_id, organization_id, run_id, step, kind)
				VALUES ($1,$2,$3,$4,$5) ON CONFLICT (wait_id) DO NOTHING`, Args: []any{s.WaitID, organizationID, r.ID, s.Index, kind}})
		}
		return out
	}
}

// onRun runs a decision on a run's stream.
func (h *Handlers) onRun(ctx context.Context, m commands.Meta, id string, act func(r *domain.Run) ([]event.Change, error),
	opts ...commands.Option) (commands.Result[domain.Run], error) {
	if !validID(id) {
		return commands.Result[domain.Run]{}, errs.NotFound("run")
	}
	opts = append(opts, commands.Also(waitWrites(m.OrganizationID)))
	res, err := commands.Execute(ctx, h.store, m, domain.StreamRun, id, domain.LoadRun, act, runAnswer, opts...)
	return res, missing(err, domain.StreamRun, "run")
}

// dispatch requests the job of the step a run just put on its way, at once
// (the runs reactor does it too, from the step_requested event, should
// this process stop first: a job id is requested once).
func (h *Handlers) dispatch(ctx context.Context, organizationID string, r domain.Run) {
	for _, s := range r.Steps {
		if s.Status != domain.StepQueued {
			continue
		}
		if err := h.requestJob(ctx, organizationID, r.ID, s.Index); err != nil {
			h.log.Warn("agent: a step's job is not requested yet; the runs reactor will", "run", r.ID, "step", s.Index, "err", err)
		}
	}
}

// requestJob asks the job kernel for step i's job (once per step).
func (h *Handlers) requestJob(ctx context.Context, organizationID, runID string, i int) error {
	id := domain.JobID(runID, i)
	_, err := h.steps.Request(ctx, systemMeta(organizationID, "steps", "agent:job:"+id+":request"), id,
		domain.StepInput{RunID: runID, Step: i}, jobs.RequestOptions{})
	return err
}

// Run reads a run of the organization from the write side.
func (h *Handlers) Run(ctx context.Context, organizationID, id string) (*domain.Run, error) {
	if !validID(id) {
		return nil, errs.NotFound("run")
	}
	history, err := h.loadStream(ctx, organizationID, id, "run")
	if err != nil {
		return nil, err
	}
	return domain.LoadRun(history)
}
