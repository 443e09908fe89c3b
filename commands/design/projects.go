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
	return object[*domain.ProjectModel, domain.Project]{streamType: domain.StreamProject, id: id, what: "project", guard: g,
		load: domain.LoadProject, answer: (*domain.ProjectModel).State}
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
	o := h.project(id, &guard{org: p.OrganizationID, workspace: ws.ID})
	o.writes = func(pr domain.Project) []eventstore.Write {
		return []eventstore.Write{register(p.OrganizationID, ws.ID, KindProject, pr.ProjectID, "", "", "")}
	}
	return o.run(ctx, h, meta(m, p), func(pm *domain.ProjectModel) ([]event.Change, error) {
		return pm.Create(domain.NewProject{ID: id, WorkspaceID: ws.ID, Name: in.Name, Description: in.Description, CreatedBy: Actor(p)}, h.now())
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
	g := (&guard{org: p.OrganizationID, workspace: ws.ID}).name(in.ProjectID)
	return h.project(in.ProjectID, g).run(ctx, h, meta(m, p), func(pm *domain.ProjectModel) ([]event.Change, error) {
		if err := g.missing(in.ProjectID, KindProject); err != nil {
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
	g := (&guard{org: p.OrganizationID, workspace: ws.ID, designsOf: in.ProjectID}).name(in.ProjectID)
	o := h.project(in.ProjectID, g)
	o.writes = func(pr domain.Project) []eventstore.Write { return []eventstore.Write{retire(pr.ProjectID)} }
	return o.run(ctx, h, meta(m, p), func(pm *domain.ProjectModel) ([]event.Change, error) {
		if err := g.missing(in.ProjectID, KindProject); err != nil {
			return nil, err
		}
		if err := pm.In(ws.ID); err != nil {
			return nil, err
		}
		if g.designs > 0 {
			return nil, errs.Conflict("project_not_empty", "the project holds designs: delete them first")
		}
		return pm.Delete(h.now())
	})
}
