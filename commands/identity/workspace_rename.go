package identity

import (
	"context"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/event"
	domain "github.com/platform/backend/domain/identity"
)

// RenameWorkspace is workspaces.rename: a new name, a new slug, or both.
type RenameWorkspace struct {
	WorkspaceSlug string  `json:"workspaceSlug"`
	Slug          *string `json:"slug"`
	Name          *string `json:"name"`
}

// RenameWorkspace renames a workspace of the caller's organization, named
// by its current slug.
func (a *Access) RenameWorkspace(ctx context.Context, m commands.Meta, in RenameWorkspace) (commands.Result[domain.WorkspaceList], error) {
	ws, err := a.resolveWorkspace(ctx, m.OrganizationID, in.WorkspaceSlug)
	if err != nil {
		return commands.Result[domain.WorkspaceList]{}, err
	}
	return a.workspaceCommand(ctx, m, func(w *domain.Workspaces) ([]event.Change, error) {
		return w.Rename(ws.WorkspaceID, in.Slug, in.Name, a.now())
	})
}
