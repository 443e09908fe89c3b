package dashboard

import (
	"context"
	"time"

	"github.com/platform/backend/commands"
	domain "github.com/platform/backend/domain/dashboard"
	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/domain/principal"
)

// InstallApp is apps.install: the app joins the caller's active context's
// dashboard (its widget is fetched from then on).
func (h *Handlers) InstallApp(ctx context.Context, m commands.Meta, p principal.Principal, in AppInput) (commands.Result[domain.Installation], error) {
	return h.onContext(ctx, m, p, in.Context, func(i *domain.Installations, c domain.Context, now time.Time) ([]event.Change, domain.Installation, error) {
		return i.Install(c, in.AppID, h.catalog(), now)
	})
}
