package studio

import (
	"context"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/domain/principal"
	domain "github.com/platform/backend/domain/studio"
	"github.com/platform/backend/eventstore"
)

// ProjectRef names a project of a workspace (paths with both ids).
type ProjectRef struct {
	WorkspaceSlug string `json:"workspaceSlug"`
	ProjectID     string `json:"projectId"`
}

// DeleteProject is projects.delete: the project leaves every read and its
// workspace's count (its compositions, jobs and assets stay records; the
// assets stay in the workspace).
func (h *Handlers) DeleteProject(ctx context.Context, m commands.Meta, p principal.Principal, in ProjectRef) (commands.Result[domain.Project], error) {
	ws, err := h.Enter(ctx, p, in.WorkspaceSlug, PermWorkspaceWrite)
	if err != nil {
		return commands.Result[domain.Project]{}, err
	}
	g := &guard{Registry: registry, Org: p.OrganizationID, Workspace: ws.ID, Object: in.ProjectID}
	return h.project(in.ProjectID, g).WithWrites(func(pr domain.Project) []eventstore.Write {
		return []eventstore.Write{registry.Retire(pr.ProjectID)}
	}).Run(ctx, h.store, meta(m, p), func(pm *domain.ProjectModel) ([]event.Change, error) {
		if err := pm.In(ws.ID); err != nil {
			return nil, err
		}
		return pm.Delete(h.now())
	})
}
