package status

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/event"
	domain "github.com/platform/backend/domain/status"
)

// ScheduleMaintenance is maintenance.schedule.
type ScheduleMaintenance struct {
	Title          string    `json:"title"`
	Message        string    `json:"message"`
	ScheduledStart time.Time `json:"scheduledStart"`
	ScheduledEnd   time.Time `json:"scheduledEnd"`
	// AutoStart and AutoComplete: the window starts (completes) by itself
	// at scheduledStart (scheduledEnd), through durable timers.
	AutoStart    bool `json:"autoStart"`
	AutoComplete bool `json:"autoComplete"`
}

func (h *Handlers) ScheduleMaintenance(ctx context.Context, m commands.Meta, in ScheduleMaintenance) (commands.Result[domain.MaintenanceState], error) {
	id := uuid.Must(uuid.NewV7()).String()
	return run(ctx, h, m, domain.StreamMaintenance, id,
		domain.LoadMaintenance, func(mw *domain.Maintenance) ([]event.Change, error) {
			return mw.Schedule(domain.NewMaintenance{ID: id, Title: in.Title, Message: in.Message,
				ScheduledStart: in.ScheduledStart, ScheduledEnd: in.ScheduledEnd,
				AutoStart: in.AutoStart, AutoComplete: in.AutoComplete}, h.now())
		}, (*domain.Maintenance).State)
}
