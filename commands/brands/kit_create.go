package brands

import (
	"context"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/commands/workspace"
	domain "github.com/platform/backend/domain/brands"
	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/domain/principal"
	"github.com/platform/backend/eventstore"
)

// CreateKit is brand_kits.create: a kit of the organization, or of one of
// its workspaces (workspaceSlug), with a draft palette.
type CreateKit struct {
	Name               string          `json:"name"`
	WorkspaceSlug      *string         `json:"workspaceSlug"`
	Colours            []domain.Colour `json:"colours"`
	AvailableForDesign *bool           `json:"availableForDesign"`
}

// CreateKit starts a kit: kits:write in the workspace it names, or a
// credential of the whole organization for an organization's kit.
func (h *Handlers) CreateKit(ctx context.Context, m commands.Meta, p principal.Principal, in CreateKit) (commands.Result[domain.Kit], error) {
	var none commands.Result[domain.Kit]
	var ws *string
	if in.WorkspaceSlug != nil {
		w, err := workspace.Enter(ctx, h.dir, p, *in.WorkspaceSlug, PermKitsWrite)
		if err != nil {
			return none, err
		}
		ws = &w.ID
	} else if err := allowed(p, nil, PermKitsWrite); err != nil {
		return none, err
	}
	n := domain.NewKit{ID: newID(), OrganizationID: p.OrganizationID, WorkspaceID: ws, Name: in.Name, Colours: in.Colours,
		AvailableForDesign: in.AvailableForDesign == nil || *in.AvailableForDesign, CreatedBy: p.Author()}
	return commands.Execute(ctx, h.store, meta(m, p), domain.StreamKit, n.ID, domain.LoadKit, func(km *domain.KitModel) ([]event.Change, error) {
		return km.Create(n, h.now())
	}, (*domain.KitModel).State, commands.Also(func(k domain.Kit) []eventstore.Write { return []eventstore.Write{registered(k)} }))
}
