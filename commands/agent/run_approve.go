package agent

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"github.com/platform/backend/commands"
	domain "github.com/platform/backend/domain/agent"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/domain/principal"
)

// Decide is the input of approvals.approve and approvals.reject.
type Decide struct {
	ApprovalID string `json:"approvalId"`
	Note       string `json:"note"`
}

// waitOf finds the run an approval or task of the organization waits in
// (another organization's id is missing, like an unknown one).
func (h *Handlers) waitOf(ctx context.Context, organizationID, id, kind string) (string, error) {
	if !validID(id) {
		return "", errs.NotFound(kind)
	}
	var runID string
	err := h.pool.QueryRow(ctx, `SELECT run_id FROM agent_waits WHERE wait_id=$1 AND organization_id=$2 AND kind=$3`,
		id, organizationID, kind).Scan(&runID)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", errs.NotFound(kind)
	}
	if err != nil {
		return "", errs.Unavailable("agent: approvals unavailable", err)
	}
	return runID, nil
}

func checkNote(note string) error {
	if len([]rune(note)) > 500 {
		return errs.InvalidField("/note", "must be at most 500 characters")
	}
	return nil
}

// Approve grants an approval: a command on the run's stream, decided under
// its lock from its events, so of two approvals only the first puts the
// step on its way and the second is a 409 approval_decided; no step runs
// twice, none before it again.
func (h *Handlers) Approve(ctx context.Context, m commands.Meta, p principal.Principal, in Decide) (commands.Result[domain.Run], error) {
	if err := checkNote(in.Note); err != nil {
		return commands.Result[domain.Run]{}, err
	}
	runID, err := h.waitOf(ctx, m.OrganizationID, in.ApprovalID, "approval")
	if err != nil {
		return commands.Result[domain.Run]{}, err
	}
	now := h.now()
	res, err := h.onRun(ctx, m, runID, func(r *domain.Run) ([]event.Change, error) {
		return r.Approve(in.ApprovalID, actorOf(p), in.Note, h.policy(), now)
	})
	if err == nil && !res.Replayed {
		h.dispatch(ctx, m.OrganizationID, res.Value)
	}
	return res, err
}

// Reject refuses an approval: the step does not run, the run ends rejected.
func (h *Handlers) Reject(ctx context.Context, m commands.Meta, p principal.Principal, in Decide) (commands.Result[domain.Run], error) {
	if err := checkNote(in.Note); err != nil {
		return commands.Result[domain.Run]{}, err
	}
	runID, err := h.waitOf(ctx, m.OrganizationID, in.ApprovalID, "approval")
	if err != nil {
		return commands.Result[domain.Run]{}, err
	}
	now := h.now()
	return h.onRun(ctx, m, runID, func(r *domain.Run) ([]event.Change, error) {
		return r.Reject(in.ApprovalID, actorOf(p), in.Note, now)
	})
}
