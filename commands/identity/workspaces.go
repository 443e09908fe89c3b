package identity

import (
	"context"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	domain "github.com/platform/backend/domain/identity"
)

// Workspaces loads an organization's workspaces from the write side (one
// short stream): services resolve a workspace slug with it on every call, so
// a workspace created, renamed or deleted a moment ago is seen at once.
func (a *Access) Workspaces(ctx context.Context, organizationID string) (*domain.Workspaces, error) {
	history, err := a.load(ctx, domain.WorkspacesStreamID(organizationID))
	if err != nil {
		return nil, err
	}
	return domain.LoadWorkspaces(organizationID)(commands.Recorded(history))
}

// ListWorkspaces is workspaces.list: the caller's organization's workspaces.
func (a *Access) ListWorkspaces(ctx context.Context, p domain.Principal) (domain.WorkspaceList, error) {
	if p.OrganizationID == "" {
		return domain.WorkspaceList{}, errs.NotFound("organization")
	}
	ws, err := a.Workspaces(ctx, p.OrganizationID)
	if err != nil {
		return domain.WorkspaceList{}, err
	}
	return ws.State(), nil
}

// resolveWorkspace finds a workspace of the organization by slug (404 otherwise).
func (a *Access) resolveWorkspace(ctx context.Context, organizationID, slug string) (domain.WorkspaceInfo, error) {
	ws, err := a.Workspaces(ctx, organizationID)
	if err != nil {
		return domain.WorkspaceInfo{}, err
	}
	info, ok := ws.BySlug(slug)
	if !ok {
		return domain.WorkspaceInfo{}, errs.NotFound("workspace")
	}
	return info, nil
}

// workspaceCommand runs one decision on the organization's workspaces stream.
func (a *Access) workspaceCommand(ctx context.Context, m commands.Meta, act func(*domain.Workspaces) ([]event.Change, error),
	opts ...commands.Option) (commands.Result[domain.WorkspaceList], error) {
	if m.OrganizationID == "" {
		return commands.Result[domain.WorkspaceList]{}, errs.NotFound("organization")
	}
	return commands.Execute(ctx, a.h.store, m, domain.StreamWorkspaces, domain.WorkspacesStreamID(m.OrganizationID),
		domain.LoadWorkspaces(m.OrganizationID), act, (*domain.Workspaces).State, opts...)
}

// ActiveMember reports whether a user is an active member of an active
// organization (write side): a studio reviewer must be one. An id that is
// not a user's, or another organization's user, is simply not a member.
func (a *Access) ActiveMember(ctx context.Context, organizationID, userID string) (bool, error) {
	org, err := a.h.loadOrganization(ctx, organizationID)
	if err != nil || !org.Active() {
		return false, err
	}
	if _, ok := org.Member(userID); !ok {
		return false, nil
	}
	u, err := a.h.loadUser(ctx, userID)
	if err != nil {
		return false, err
	}
	return u.Active(), nil
}
