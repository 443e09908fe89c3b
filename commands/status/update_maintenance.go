package status

import (
	"context"
	"time"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/event"
	domain "github.com/platform/backend/domain/status"
)

// UpdateMaintenance is maintenance.update: reschedule (times, automation),
// start (in_progress) or complete, or a reschedule and a transition at once.
// Absent members keep their value.
type UpdateMaintenance struct {
	MaintenanceID  string     `json:"maintenanceId"`
	Status         string     `json:"status"`
	Message        string     `json:"message"`
	ScheduledStart *time.Time `json:"scheduledStart"`
	ScheduledEnd   *time.Time `json:"scheduledEnd"`
	AutoStart      *bool      `json:"autoStart"`
	AutoComplete   *bool      `json:"autoComplete"`
}

func (h *Handlers) UpdateMaintenance(ctx context.Context, m commands.Meta, in UpdateMaintenance) (commands.Result[domain.MaintenanceState], error) {
	change := domain.MaintenanceChange{ScheduledStart: in.ScheduledStart, ScheduledEnd: in.ScheduledEnd,
		AutoStart: in.AutoStart, AutoComplete: in.AutoComplete}
	return run(ctx, h, m, domain.StreamMaintenance, in.MaintenanceID,
		domain.LoadMaintenance, func(mw *domain.Maintenance) ([]event.Change, error) {
			return mw.Update(change, in.Status, in.Message, h.now())
		}, (*domain.Maintenance).State)
}
