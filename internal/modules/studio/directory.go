package studio

import (
	"context"

	"github.com/platform/backend/commands"
	identitycmd "github.com/platform/backend/commands/identity"
	studiocmd "github.com/platform/backend/commands/studio"
	domain "github.com/platform/backend/domain/identity"
)

// directory is identity's answer to the studio (studiocmd.Directory): the
// organization's workspaces and members from identity's write side, and a
// workspace's deletion with the studio's guard in its transaction.
type directory struct{ access *identitycmd.Access }

var _ studiocmd.Directory = directory{}

func workspaces(list []domain.WorkspaceInfo) []studiocmd.Workspace {
	out := make([]studiocmd.Workspace, len(list))
	for i, w := range list {
		out[i] = studiocmd.Workspace{ID: w.WorkspaceID, Slug: w.Slug, Name: w.Name, Default: w.Default}
	}
	return out
}

func (d directory) Workspaces(ctx context.Context, organizationID string) ([]studiocmd.Workspace, error) {
	if organizationID == "" {
		return nil, nil
	}
	ws, err := d.access.Workspaces(ctx, organizationID)
	if err != nil {
		return nil, err
	}
	return workspaces(ws.List()), nil
}

func (d directory) ActiveMember(ctx context.Context, organizationID, userID string) (bool, error) {
	return d.access.ActiveMember(ctx, organizationID, userID)
}

func (d directory) DeleteWorkspace(ctx context.Context, m commands.Meta, slug string, g studiocmd.WorkspaceGuard) ([]studiocmd.Workspace, error) {
	res, err := d.access.DeleteWorkspace(ctx, m, slug, identitycmd.WorkspaceGuard{Prepare: g.Prepare, Writes: g.Writes})
	if err != nil {
		return nil, err
	}
	return workspaces(res.Value.Workspaces), nil
}
