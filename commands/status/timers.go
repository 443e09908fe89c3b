package status

import (
	"context"
	"time"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/commands/timers"
	"github.com/platform/backend/domain/event"
	domain "github.com/platform/backend/domain/status"
)

// RegisterTimers maps the status service's timer kinds to their commands: a
// maintenance window's start and complete timers (autoStart, autoComplete).
func (h *Handlers) RegisterTimers(r *timers.Registry) error {
	for kind, to := range map[string]string{
		domain.TimerKindMaintenanceStart:    domain.InProgress,
		domain.TimerKindMaintenanceComplete: domain.Completed,
	} {
		if err := r.Register(kind, func(ctx context.Context, f timers.Fire) error {
			_, err := h.AutoAdvanceMaintenance(ctx, f.Meta, f.StreamID, to, f.DueAt, f.Option())
			return err
		}); err != nil {
			return err
		}
	}
	return nil
}

// AutoAdvanceMaintenance is what a window's timer issues at its time: the
// step it was set for, or nothing when the window changed meanwhile (the
// domain re-checks under the stream lock: a timer moved a moment before it
// fired does not start the window on its old time). The window's stream id
// is its id.
func (h *Handlers) AutoAdvanceMaintenance(ctx context.Context, m commands.Meta, maintenanceID, to string, due time.Time,
	opts ...commands.Option) (commands.Result[domain.MaintenanceState], error) {
	return run(ctx, h, m, domain.StreamMaintenance, maintenanceID,
		domain.LoadMaintenance, func(mw *domain.Maintenance) ([]event.Change, error) {
			return mw.AutoAdvance(to, due, h.now())
		}, (*domain.Maintenance).State, opts...)
}
