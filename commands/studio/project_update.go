package studio

import (
	"context"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/domain/principal"
	domain "github.com/platform/backend/domain/studio"
)

// UpdateProject is projects.update: nil keeps a member, "" clears a
// nullable one.
type UpdateProject struct {
	WorkspaceSlug string  `json:"workspaceSlug"`
	ProjectID     string  `json:"projectId"`
	Title         *string `json:"title"`
	Objective     *string `json:"objective"`
	TemplateID    *string `json:"templateId"`
	BrandKitID    *string `json:"brandKitId"`
}

func (h *Handlers) UpdateProject(ctx context.Context, m commands.Meta, p principal.Principal, in UpdateProject) (commands.Result[domain.Project], error) {
	ws, err := h.Enter(ctx, p, in.WorkspaceSlug, PermWorkspaceWrite)
	if err != nil {
		return commands.Result[domain.Project]{}, err
	}
	kit, err := h.brandKit(ctx, p, in.BrandKitID)
	if err != nil {
		return commands.Result[domain.Project]{}, err
	}
	g := &guard{Registry: registry, Org: p.OrganizationID, Workspace: ws.ID, Object: in.ProjectID}
	if kit != nil {
		g.Outside = append(g.Outside, *kit)
	}
	if in.TemplateID != nil && *in.TemplateID != "" {
		g.Ref("/templateId", KindTemplate, *in.TemplateID)
	}
	return h.project(in.ProjectID, g).Run(ctx, h.store, meta(m, p), func(pm *domain.ProjectModel) ([]event.Change, error) {
		if err := pm.In(ws.ID); err != nil {
			return nil, err
		}
		return pm.Update(domain.ProjectChange{Title: in.Title, Objective: in.Objective, TemplateID: in.TemplateID, BrandKitID: in.BrandKitID}, h.now())
	})
}
