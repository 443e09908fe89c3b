package agent

import (
	"context"

	"github.com/platform/backend/commands"
	domain "github.com/platform/backend/domain/agent"
	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/domain/principal"
)

// CancelRun is runs.cancel's input.
type CancelRun struct {
	RunID  string `json:"runId"`
	Reason string `json:"reason"`
}

// CancelRun ends a run that is not over: a waiting approval or task is
// withdrawn, a step on its way is cancelled (its job stops; an answer that
// comes later changes nothing).
func (h *Handlers) CancelRun(ctx context.Context, m commands.Meta, p principal.Principal, in CancelRun) (commands.Result[domain.Run], error) {
	if err := checkNote(in.Reason); err != nil {
		return commands.Result[domain.Run]{}, err
	}
	var job string
	now := h.now()
	res, err := h.onRun(ctx, m, in.RunID, func(r *domain.Run) ([]event.Change, error) {
		job = r.QueuedJob()
		return r.Cancel(actorOf(p), in.Reason, now)
	})
	if err == nil && !res.Replayed && job != "" {
		if _, err := h.steps.Cancel(ctx, derived(m, "job"), job, "run cancelled"); err != nil {
			h.log.Warn("agent: a cancelled run's step job was not cancelled", "run", in.RunID, "job", job, "err", err)
		}
	}
	return res, err
}
