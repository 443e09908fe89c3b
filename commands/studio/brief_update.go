package studio

import (
	"context"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/domain/principal"
	domain "github.com/platform/backend/domain/studio"
)

// UpdateBrief is projects.structured_brief.update (nil keeps, "" clears).
type UpdateBrief struct {
	WorkspaceSlug string  `json:"workspaceSlug"`
	ProjectID     string  `json:"projectId"`
	Title         *string `json:"title"`
	Objective     *string `json:"objective"`
	Audience      *string `json:"audience"`
	StyleNotes    *string `json:"styleNotes"`
}

func (h *Handlers) UpdateBrief(ctx context.Context, m commands.Meta, p principal.Principal, in UpdateBrief) (commands.Result[domain.Project], error) {
	ws, err := h.Enter(ctx, p, in.WorkspaceSlug, PermBriefsWrite)
	if err != nil {
		return commands.Result[domain.Project]{}, err
	}
	g := &guard{Registry: registry, Org: p.OrganizationID, Workspace: ws.ID, Object: in.ProjectID}
	return h.project(in.ProjectID, g).Run(ctx, h.store, meta(m, p), func(pm *domain.ProjectModel) ([]event.Change, error) {
		if err := pm.In(ws.ID); err != nil {
			return nil, err
		}
		return pm.UpdateBrief(domain.BriefChange{Title: in.Title, Objective: in.Objective, Audience: in.Audience, StyleNotes: in.StyleNotes}, h.now())
	})
}
