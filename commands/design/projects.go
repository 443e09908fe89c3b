package design

import (
	"context"

	"github.com/platform/backend/commands"
	domain "github.com/platform/backend/domain/design"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/domain/principal"
	"github.com/platform/backend/eventstore"
)

// project is a command on a project's stream.
func (h *Handlers) project(id string, g *guard) object[*domain.ProjectModel, domain.Project] {
	return object[*domain.ProjectModel, domain.Project]{StreamType: domain.StreamProject, ID: id, What: "project", Guard: g,
		Load: domain.LoadProject, Answer: (*domain.ProjectModel).State}
}

// CreateProject is projects.create.
type CreateProject struct {
	WorkspaceSlug string  `json:"workspaceSlug"`
	Name          string  `json:"name"`
	Description   *string `json:"description"`
}

func (h *Handlers) CreateProject(ctx context.Context, m commands.Meta, p principal.Principal, in CreateProject) (commands.Result[domain.Project], error) {
	ws, err := h.Enter(ctx, p, in.WorkspaceSlug, PermWorkspaceWrite)
	if err != nil {
		return commands.Result[domain.Project]{}, err
	}
	id := newID()
	o := h.project(id, &guard{Registry: registry, Org: p.OrganizationID, Workspace: ws.ID})
	o.Writes = func(pr domain.Project) []eventstore.Write {
		return []eventstore.Write{register(p.OrganizationID, ws.ID, KindProject, pr.ProjectID, "", "", "")}
	}
	return o.Run(ctx, h.store, meta(m, p), func(pm *domain.ProjectModel) ([]event.Change, error) {
		return pm.Create(domain.NewProject{ID: id, WorkspaceID: ws.ID, Name: in.Name, Description: in.Description, CreatedBy: p.Author()}, h.now())
	})
}

// UpdateProject is projects.update.
type UpdateProject struct {
	WorkspaceSlug string  `json:"workspaceSlug"`
	ProjectID     string  `json:"projectId"`
	Name          *string `json:"name"`
	Description   *string `json:"description"`
}

func (h *Handlers) UpdateProject(ctx context.Context, m commands.Meta, p principal.Principal, in UpdateProject) (commands.Result[domain.Project], error) {
	ws, err := h.Enter(ctx, p, in.WorkspaceSlug, PermWorkspaceWrite)
	if err != nil {
		return commands.Result[domain.Project]{}, err
	}
	g := (&guard{Registry: registry, Org: p.OrganizationID, Workspace: ws.ID}).Read(in.ProjectID)
	return h.project(in.ProjectID, g).Run(ctx, h.store, meta(m, p), func(pm *domain.ProjectModel) ([]event.Change, error) {
		if err := g.Missing(in.ProjectID, KindProject); err != nil {
			return nil, err
		}
		if err := pm.In(ws.ID); err != nil {
			return nil, err
		}
		return pm.Update(in.Name, in.Description, h.now())
	})
}

// ProjectRef names a project of a workspace.
type ProjectRef struct {
	WorkspaceSlug string `json:"workspaceSlug"`
	ProjectID     string `json:"projectId"`
}

// DeleteProject is projects.delete: a project that holds no live design
// (409 project_not_empty otherwise: delete or move them first).
func (h *Handlers) DeleteProject(ctx context.Context, m commands.Meta, p principal.Principal, in ProjectRef) (commands.Result[domain.Project], error) {
	ws, err := h.Enter(ctx, p, in.WorkspaceSlug, PermWorkspaceWrite)
	if err != nil {
		return commands.Result[domain.Project]{}, err
	}
	var designs int
	g := (&guard{Registry: registry, Org: p.OrganizationID, Workspace: ws.ID}).Read(in.ProjectID)
	g.Also = append(g.Also, designsOf(in.ProjectID, &designs))
	o := h.project(in.ProjectID, g)
	o.Writes = func(pr domain.Project) []eventstore.Write { return []eventstore.Write{registry.Retire(pr.ProjectID)} }
	return o.Run(ctx, h.store, meta(m, p), func(pm *domain.ProjectModel) ([]event.Change, error) {
		if err := g.Missing(in.ProjectID, KindProject); err != nil {
			return nil, err
		}
		if err := pm.In(ws.ID); err != nil {
			return nil, err
		}
		if designs > 0 {
			return nil, errs.Conflict("project_not_empty", "the project holds designs: delete them first")
		}
		return pm.Delete(h.now())
	})
}
