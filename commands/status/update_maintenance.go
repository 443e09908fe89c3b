package status

import (
	"context"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/event"
	domain "github.com/platform/backend/domain/status"
)

// UpdateMaintenance is maintenance.update: start (in_progress) or complete.
type UpdateMaintenance struct {
	MaintenanceID string `json:"maintenanceId"`
	Status        string `json:"status"`
	Message       string `json:"message"`
}

func (h *Handlers) UpdateMaintenance(ctx context.Context, m commands.Meta, in UpdateMaintenance) (commands.Result[domain.MaintenanceState], error) {
	return run(ctx, h, m, domain.StreamMaintenance, in.MaintenanceID,
		domain.LoadMaintenance, func(mw *domain.Maintenance) ([]event.Change, error) {
			return mw.Advance(in.Status, in.Message, h.now())
		}, (*domain.Maintenance).State)
}
