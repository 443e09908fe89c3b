package agent

import (
	"bytes"
	"context"
	"encoding/json"

	"github.com/platform/backend/commands"
	domain "github.com/platform/backend/domain/agent"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/domain/principal"
)

// CompleteTask is tasks.complete's input: what the person produced (later
// steps refer to it as /steps/<n>/output).
type CompleteTask struct {
	TaskID string          `json:"taskId"`
	Output json.RawMessage `json:"output"`
	Note   string          `json:"note"`
}

// CompleteTask completes a task; the run goes on with its next step.
func (h *Handlers) CompleteTask(ctx context.Context, m commands.Meta, p principal.Principal, in CompleteTask) (commands.Result[domain.Run], error) {
	if err := checkNote(in.Note); err != nil {
		return commands.Result[domain.Run]{}, err
	}
	if len(in.Output) > MaxTriggerData {
		return commands.Result[domain.Run]{}, errs.InvalidField("/output", "must be at most 32 KiB of JSON")
	}
	if len(bytes.TrimSpace(in.Output)) == 0 {
		in.Output = json.RawMessage("null")
	}
	runID, err := h.waitOf(ctx, m.OrganizationID, in.TaskID, "task")
	if err != nil {
		return commands.Result[domain.Run]{}, err
	}
	now := h.now()
	res, err := h.onRun(ctx, m, runID, func(r *domain.Run) ([]event.Change, error) {
		return r.CompleteTask(in.TaskID, actorOf(p), in.Output, in.Note, h.policy(), now)
	})
	if err == nil && !res.Replayed {
		h.dispatch(ctx, m.OrganizationID, res.Value)
	}
	return res, err
}
