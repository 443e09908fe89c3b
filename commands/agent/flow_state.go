package agent

import (
	"context"

	"github.com/platform/backend/commands"
	domain "github.com/platform/backend/domain/agent"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
)

var errNoFlow = errs.NotFound("flow")

// FlowRef names a flow.
type FlowRef struct {
	FlowID string `json:"flowId"`
}

// PauseFlow stops a flow's new runs (schedule, events, manual); runs under
// way go on.
func (h *Handlers) PauseFlow(ctx context.Context, m commands.Meta, in FlowRef) (commands.Result[domain.Flow], error) {
	now := h.now()
	return h.onFlow(ctx, m, in.FlowID, func(f *domain.Flow) ([]event.Change, error) { return f.Pause(now) })
}

// ResumeFlow lets a paused flow start runs again.
func (h *Handlers) ResumeFlow(ctx context.Context, m commands.Meta, in FlowRef) (commands.Result[domain.Flow], error) {
	now := h.now()
	return h.onFlow(ctx, m, in.FlowID, func(f *domain.Flow) ([]event.Change, error) { return f.Resume(now) })
}

// DeleteFlow ends a flow and revokes the credentials delegated for it (the
// flow_credentials reactor does it too, should this process stop first).
func (h *Handlers) DeleteFlow(ctx context.Context, m commands.Meta, in FlowRef) (commands.Result[domain.Flow], error) {
	now := h.now()
	res, err := h.onFlow(ctx, m, in.FlowID, func(f *domain.Flow) ([]event.Change, error) { return f.Delete(now) })
	if err == nil && !res.Replayed {
		if err := h.creds.RevokeFlow(ctx, m.OrganizationID, in.FlowID); err != nil {
			h.log.Warn("agent: a deleted flow's keys are not revoked yet; its reactor will", "flow", in.FlowID, "err", err)
		}
	}
	return res, err
}
