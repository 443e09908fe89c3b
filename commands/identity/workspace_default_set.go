package identity

import (
	"context"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/event"
	domain "github.com/platform/backend/domain/identity"
)

// SetDefaultWorkspace is workspaces.default.set.
type SetDefaultWorkspace struct {
	WorkspaceSlug string `json:"workspaceSlug"`
}

// SetDefaultWorkspace makes a workspace the organization's default.
func (a *Access) SetDefaultWorkspace(ctx context.Context, m commands.Meta, in SetDefaultWorkspace) (commands.Result[domain.WorkspaceList], error) {
	ws, err := a.resolveWorkspace(ctx, m.OrganizationID, in.WorkspaceSlug)
	if err != nil {
		return commands.Result[domain.WorkspaceList]{}, err
	}
	return a.workspaceCommand(ctx, m, func(w *domain.Workspaces) ([]event.Change, error) {
		return w.SetDefault(ws.WorkspaceID, a.now())
	})
}
