package identity

import (
	"context"

	identitycmd "github.com/platform/backend/commands/identity"
	"github.com/platform/backend/commands/workspace"
)

// workspaces is identity's answer to the contexts that enter its workspaces
// (workspace.Directory, provided to later modules): the organization's
// workspaces from identity's write side.
type workspaces struct{ access *identitycmd.Access }

var _ workspace.Directory = workspaces{}

func (d workspaces) Workspaces(ctx context.Context, organizationID string) ([]workspace.Workspace, error) {
	if organizationID == "" {
		return nil, nil
	}
	ws, err := d.access.Workspaces(ctx, organizationID)
	if err != nil {
		return nil, err
	}
	list := ws.List()
	out := make([]workspace.Workspace, len(list))
	for i, w := range list {
		out[i] = workspace.Workspace{ID: w.WorkspaceID, Slug: w.Slug, Name: w.Name, Default: w.Default}
	}
	return out, nil
}
