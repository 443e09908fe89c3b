package identity

import (
	"context"

	"github.com/google/uuid"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/event"
	domain "github.com/platform/backend/domain/identity"
)

// CreateWorkspace is workspaces.create.
type CreateWorkspace struct {
	Slug string `json:"slug"`
	Name string `json:"name"`
}

// CreateWorkspace adds a workspace to the caller's organization.
func (a *Access) CreateWorkspace(ctx context.Context, m commands.Meta, in CreateWorkspace) (commands.Result[domain.WorkspaceList], error) {
	id := uuid.Must(uuid.NewV7()).String()
	return a.workspaceCommand(ctx, m, func(w *domain.Workspaces) ([]event.Change, error) {
		return w.Create(domain.NewWorkspace{ID: id, Slug: in.Slug, Name: in.Name}, a.now())
	})
}
