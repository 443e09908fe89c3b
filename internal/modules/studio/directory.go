package studio

import (
	"context"

	"github.com/platform/backend/commands"
	identitycmd "github.com/platform/backend/commands/identity"
	studiocmd "github.com/platform/backend/commands/studio"
	"github.com/platform/backend/commands/workspace"
)

// directory is identity's answer to the studio (studiocmd.Directory): the
// organization's workspaces (identity's workspace.Directory), its members
// from identity's write side, and a workspace's deletion with the studio's
// guard in its transaction.
type directory struct {
	workspace.Directory
	access *identitycmd.Access
}

var _ studiocmd.Directory = directory{}

func (d directory) ActiveMember(ctx context.Context, organizationID, userID string) (bool, error) {
	return d.access.ActiveMember(ctx, organizationID, userID)
}

func (d directory) DeleteWorkspace(ctx context.Context, m commands.Meta, slug string, g studiocmd.WorkspaceGuard) ([]studiocmd.Workspace, error) {
	res, err := d.access.DeleteWorkspace(ctx, m, slug, identitycmd.WorkspaceGuard{Prepare: g.Prepare, Writes: g.Writes})
	if err != nil {
		return nil, err
	}
	out := make([]studiocmd.Workspace, len(res.Value.Workspaces))
	for i, w := range res.Value.Workspaces {
		out[i] = studiocmd.Workspace{ID: w.WorkspaceID, Slug: w.Slug, Name: w.Name, Default: w.Default}
	}
	return out, nil
}
