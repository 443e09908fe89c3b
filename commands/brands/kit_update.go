package brands

import (
	"context"

	"github.com/platform/backend/commands"
	domain "github.com/platform/backend/domain/brands"
	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/domain/principal"
)

// UpdateKit is brand_kits.update: the draft's name or palette (kits:write);
// the offer for governed design is a brand manager's (kits:manage).
type UpdateKit struct {
	KitID              string           `json:"kitId"`
	Name               *string          `json:"name"`
	Colours            *[]domain.Colour `json:"colours"`
	AvailableForDesign *bool            `json:"availableForDesign"`
}

func (h *Handlers) UpdateKit(ctx context.Context, m commands.Meta, p principal.Principal, in UpdateKit) (commands.Result[domain.Kit], error) {
	perm := PermKitsWrite
	if in.AvailableForDesign != nil {
		perm = PermKitsManage
	}
	return h.onKit(ctx, m, p, in.KitID, perm, func(km *domain.KitModel) ([]event.Change, error) {
		return km.Update(domain.KitChange{Name: in.Name, Colours: in.Colours, AvailableForDesign: in.AvailableForDesign}, h.now())
	})
}
