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
	g := &guard{org: p.OrganizationID, workspace: ws.ID}
	if kit != nil {
		g.outside = append(g.outside, *kit)
	}
	if in.TemplateID != nil && *in.TemplateID != "" {
		g.name("/templateId", KindTemplate, *in.TemplateID)
	}
	return h.project(id, g).withWrites(func(pr domain.Project) []eventstore.Write {
		return []eventstore.Write{register(p.OrganizationID, ws.ID, KindProject, pr.ProjectID, "", "")}
	}).run(ctx, h, meta(m, p), func(pm *domain.ProjectModel) ([]event.Change, error) {
		return pm.Create(domain.NewProject{ID: id, WorkspaceID: ws.ID, CreatedBy: Actor(p), Title: in.Title, Objective: in.Objective,
			TemplateID: in.TemplateID, BrandKitID: in.BrandKitID}, h.now())
	})
}

// project is a command on a project's stream.
func (h *Handlers) project(id string, g *guard) object[*domain.ProjectModel, domain.Project] {
	return object[*domain.ProjectModel, domain.Project]{streamType: domain.StreamProject, id: id, what: "project", guard: g,
		load: domain.LoadProject, answer: (*domain.ProjectModel).State}
}

// withWrites adds the registry writes of a command.
func (o object[M, T]) withWrites(w func(T) []eventstore.Write) object[M, T] {
	o.writes = w
	return o
}
