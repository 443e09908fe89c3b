package studio

import (
	"context"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/domain/principal"
	domain "github.com/platform/backend/domain/studio"
)

// RequestApproval is projects.approvals.request: a reviewer (an active
// member of the organization) is asked to approve the project.
type RequestApproval struct {
	WorkspaceSlug  string  `json:"workspaceSlug"`
	ProjectID      string  `json:"projectId"`
	ReviewerUserID string  `json:"reviewerUserId"`
	Note           *string `json:"note"`
}

func (h *Handlers) RequestApproval(ctx context.Context, m commands.Meta, p principal.Principal, in RequestApproval) (commands.Result[domain.Approval], error) {
	ws, err := h.Enter(ctx, p, in.WorkspaceSlug, PermBriefsWrite)
	if err != nil {
		return commands.Result[domain.Approval]{}, err
	}
	active, err := h.dir.ActiveMember(ctx, p.OrganizationID, in.ReviewerUserID)
	if err != nil {
		return commands.Result[domain.Approval]{}, err
	}
	id := newID()
	return h.approval(ws, p, in.ProjectID, id).Run(ctx, h.store, meta(m, p), func(pm *domain.ProjectModel) ([]event.Change, error) {
		if err := pm.In(ws.ID); err != nil {
			return nil, err
		}
		return pm.RequestApproval(domain.ApprovalRequest{ID: id, ReviewerUserID: in.ReviewerUserID, RequestedByUserID: p.Author(),
			Note: in.Note, ReviewerActive: active}, h.now())
	})
}

// approval is a command on a project that answers one approval request.
func (h *Handlers) approval(ws Workspace, p principal.Principal, projectID, approvalID string) object[*domain.ProjectModel, domain.Approval] {
	return object[*domain.ProjectModel, domain.Approval]{StreamType: domain.StreamProject, ID: projectID, What: "project",
		Guard: &guard{Registry: registry, Org: p.OrganizationID, Workspace: ws.ID, Object: projectID}, Load: domain.LoadProject,
		Answer: func(pm *domain.ProjectModel) domain.Approval { a, _ := pm.Approval(approvalID); return a }}
}

// DecideApproval is projects.approvals.approve and .reject.
type DecideApproval struct {
	WorkspaceSlug     string  `json:"workspaceSlug"`
	ProjectID         string  `json:"projectId"`
	ApprovalRequestID string  `json:"approvalRequestId"`
	Note              *string `json:"note"`
}

// Approve and Reject decide an open request: the reviewer it names, or an
// admin of the workspace (runtime authorization).
func (h *Handlers) Approve(ctx context.Context, m commands.Meta, p principal.Principal, in DecideApproval) (commands.Result[domain.Approval], error) {
	return h.decide(ctx, m, p, in, true)
}

func (h *Handlers) Reject(ctx context.Context, m commands.Meta, p principal.Principal, in DecideApproval) (commands.Result[domain.Approval], error) {
	return h.decide(ctx, m, p, in, false)
}

func (h *Handlers) decide(ctx context.Context, m commands.Meta, p principal.Principal, in DecideApproval, approve bool) (commands.Result[domain.Approval], error) {
	ws, err := h.Enter(ctx, p, in.WorkspaceSlug, PermApprovalsWrite)
	if err != nil {
		return commands.Result[domain.Approval]{}, err
	}
	return h.approval(ws, p, in.ProjectID, in.ApprovalRequestID).Run(ctx, h.store, meta(m, p), func(pm *domain.ProjectModel) ([]event.Change, error) {
		if err := pm.In(ws.ID); err != nil {
			return nil, err
		}
		a, ok := pm.Approval(in.ApprovalRequestID)
		if !ok {
			return nil, errs.NotFound("approval request")
		}
		if a.ReviewerUserID != p.Author() && !WorkspaceAdmin(p, ws.ID) {
			return nil, errs.PermissionDenied("only the reviewer the request names, or an admin of the workspace, decides it")
		}
		return pm.DecideApproval(in.ApprovalRequestID, approve, p.Author(), in.Note, h.now())
	})
}
