package agent

import (
	"context"
	"encoding/json"
	"time"

	"github.com/platform/backend/commands/timers"
	domain "github.com/platform/backend/domain/agent"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
)

// RegisterTimers registers the agent's timer kinds: a flow's schedule and a
// run's approval expiry. Both are durable timers on their stream, fired
// once by the store in their command's transaction, late after downtime
// rather than never.
func (h *Handlers) RegisterTimers(r *timers.Registry) error {
	if err := r.Register(domain.TimerSchedule, h.fireSchedule); err != nil {
		return err
	}
	return r.Register(domain.TimerApprovalExpiry, h.fireExpiry)
}

// fireSchedule records the due run on the flow and starts it (the runs
// reactor starts it too, from flow.triggered, should this process stop
// between the two).
func (h *Handlers) fireSchedule(ctx context.Context, f timers.Fire) error {
	var p domain.ScheduleTimer
	if err := json.Unmarshal(f.Payload, &p); err != nil {
		return errs.InvalidField("/payload", "not a schedule timer")
	}
	now := h.now()
	fired := false
	res, err := h.onFlow(ctx, f.Meta, f.StreamID, func(fl *domain.Flow) ([]event.Change, error) {
		changes := fl.Fire(p.DueAt, now)
		fired = len(changes) > 0
		return changes, nil
	}, f.Option())
	if err != nil || res.Replayed || !fired {
		return err
	}
	fl := res.Value
	runID := domain.ScheduledRunID(fl.ID, p.DueAt)
	if _, err := h.start(ctx, derived(f.Meta, "start"), runID, &fl, scheduleTrigger(p.DueAt, now), 0); err != nil {
		h.log.Warn("agent: a scheduled run did not start yet; the runs reactor will", "flow", fl.ID, "run", runID, "err", err)
	}
	return nil
}

// fireExpiry ends a run whose approval was not decided in time.
func (h *Handlers) fireExpiry(ctx context.Context, f timers.Fire) error {
	var p domain.ApprovalTimer
	if err := json.Unmarshal(f.Payload, &p); err != nil {
		return errs.InvalidField("/payload", "not an approval timer")
	}
	now := h.now()
	_, err := h.onRun(ctx, f.Meta, f.StreamID, func(r *domain.Run) ([]event.Change, error) { return r.Expire(p.Step, now), nil }, f.Option())
	return err
}

// scheduleTrigger is what a scheduled run's steps see as /trigger.
func scheduleTrigger(due, now time.Time) domain.TriggerData {
	data, _ := json.Marshal(map[string]time.Time{"dueAt": due.UTC()})
	return domain.TriggerData{Type: domain.TriggerSchedule, Data: data, At: now}
}
