package dashboard

import (
	"context"
	"time"

	"github.com/platform/backend/commands"
	domain "github.com/platform/backend/domain/dashboard"
	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/domain/principal"
)

// UninstallApp is apps.uninstall: the app leaves the caller's active
// context's dashboard (it stays available in the catalog).
func (h *Handlers) UninstallApp(ctx context.Context, m commands.Meta, p principal.Principal, in AppInput) (commands.Result[domain.Installation], error) {
	return h.onContext(ctx, m, p, in.Context, func(i *domain.Installations, c domain.Context, now time.Time) ([]event.Change, domain.Installation, error) {
		return i.Uninstall(c, in.AppID, h.catalog(), now)
	})
}
