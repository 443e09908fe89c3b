package studio

import (
	"context"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/domain/principal"
	domain "github.com/platform/backend/domain/studio"
	"github.com/platform/backend/eventstore"
)

// CreateProject is projects.create.
type CreateProject struct {
	WorkspaceSlug string  `json:"workspaceSlug"`
	Title         string  `json:"title"`
	Objective     *string `json:"objective"`
	TemplateID    *string `json:"templateId"`
	BrandKitID    *string `json:"brandKitId"`
}

// CreateProject starts a project in a workspace. A templateId must name a
// template of the workspace; a brandKitId a brand kit the caller sees (the
// brand service's, SetBrandKits): 422 at the member otherwise.
func (h *Handlers) CreateProject(ctx context.Context, m commands.Meta, p principal.Principal, in CreateProject) (commands.Result[domain.Project], error) {
	ws, err := h.Enter(ctx, p, in.WorkspaceSlug, PermWorkspaceWrite)
	if err != nil {
		return commands.Result[domain.Project]{}, err
	}
	kit, err := h.brandKit(ctx, p, in.BrandKitID)
	if err != nil {
		return commands.Result[domain.Project]{}, err
	}
	id := newID()
	g := &guard{Registry: registry, Org: p.OrganizationID, Workspace: ws.ID}
	if kit != nil {
		g.Outside = append(g.Outside, *kit)
	}
	if in.TemplateID != nil && *in.TemplateID != "" {
		g.Ref("/templateId", KindTemplate, *in.TemplateID)
	}
	return h.project(id, g).WithWrites(func(pr domain.Project) []eventstore.Write {
		return []eventstore.Write{registry.Register(p.OrganizationID, ws.ID, KindProject, pr.ProjectID, "", "")}
	}).Run(ctx, h.store, meta(m, p), func(pm *domain.ProjectModel) ([]event.Change, error) {
		return pm.Create(domain.NewProject{ID: id, WorkspaceID: ws.ID, CreatedBy: p.Author(), Title: in.Title, Objective: in.Objective,
			TemplateID: in.TemplateID, BrandKitID: in.BrandKitID}, h.now())
	})
}

// project is a command on a project's stream.
func (h *Handlers) project(id string, g *guard) object[*domain.ProjectModel, domain.Project] {
	return object[*domain.ProjectModel, domain.Project]{StreamType: domain.StreamProject, ID: id, What: "project", Guard: g,
		Load: domain.LoadProject, Answer: (*domain.ProjectModel).State}
}
