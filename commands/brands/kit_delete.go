package brands

import (
	"context"

	"github.com/platform/backend/commands"
	domain "github.com/platform/backend/domain/brands"
	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/domain/principal"
)

// KitRef names a kit.
type KitRef struct {
	KitID string `json:"kitId"`
}

// DeleteKit is brand_kits.delete (kits:manage): the kit leaves every list
// and takes no new design; designs pinned to its versions keep them.
func (h *Handlers) DeleteKit(ctx context.Context, m commands.Meta, p principal.Principal, in KitRef) (commands.Result[domain.Kit], error) {
	return h.onKit(ctx, m, p, in.KitID, PermKitsManage, func(km *domain.KitModel) ([]event.Change, error) {
		return km.Delete(h.now())
	})
}
