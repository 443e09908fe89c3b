package brands

import (
	"context"

	"github.com/platform/backend/commands"
	domain "github.com/platform/backend/domain/brands"
	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/domain/principal"
)

// RemoveFont is brand_kits.fonts.delete: the font leaves the draft; the
// versions that hold it keep it, and so does its file.
func (h *Handlers) RemoveFont(ctx context.Context, m commands.Meta, p principal.Principal, in FileRef) (commands.Result[domain.Kit], error) {
	return h.onKit(ctx, m, p, in.KitID, PermKitsWrite, func(km *domain.KitModel) ([]event.Change, error) {
		return km.RemoveFont(in.FileID, h.now())
	})
}
