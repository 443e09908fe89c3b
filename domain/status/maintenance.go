package status

import (
	"encoding/json"
	"time"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
)

// Maintenance is the write model of one maintenance window:
// scheduled (rev 1) -> in_progress (rev 2) -> completed (rev 3).
type Maintenance struct {
	id             string
	status         string
	revision       int
	title          string
	message        string
	scheduledStart time.Time
	scheduledEnd   time.Time
	updatedAt      time.Time
}

// MaintenanceState is the externally visible state of a maintenance window.
type MaintenanceState struct {
	MaintenanceID  string    `json:"maintenance_id"`
	Title          string    `json:"title"`
	Message        string    `json:"message"`
	Status         string    `json:"status"`
	Revision       int       `json:"revision"`
	ScheduledStart time.Time `json:"scheduled_start"`
	ScheduledEnd   time.Time `json:"scheduled_end"`
	UpdatedAt      time.Time `json:"updated_at"`
}

func (m *Maintenance) State() MaintenanceState {
	return MaintenanceState{MaintenanceID: m.id, Title: m.title, Message: m.message, Status: m.status, Revision: m.revision,
		ScheduledStart: m.scheduledStart, ScheduledEnd: m.scheduledEnd, UpdatedAt: m.updatedAt}
}

func LoadMaintenance(history []event.Recorded) (*Maintenance, error) {
	m := &Maintenance{}
	for _, r := range history {
		if r.Type == event.SnapshotType {
			var st MaintenanceState
			if err := json.Unmarshal(r.Payload, &st); err != nil {
				return nil, err
			}
			m.id, m.status, m.revision, m.title, m.message = st.MaintenanceID, st.Status, st.Revision, st.Title, st.Message
			m.scheduledStart, m.scheduledEnd, m.updatedAt = st.ScheduledStart, st.ScheduledEnd, st.UpdatedAt
			continue
		}
		if r.Type == MaintenanceScheduled {
			var p MaintenanceScheduledV1
			if err := json.Unmarshal(r.Payload, &p); err != nil {
				return nil, err
			}
			m.title, m.scheduledStart, m.scheduledEnd = p.Title, p.ScheduledStart, p.ScheduledEnd
		}
		var p MaintenanceProgressedV1
		if err := json.Unmarshal(r.Payload, &p); err != nil {
			return nil, err
		}
		m.id, m.status, m.revision, m.message, m.updatedAt = p.MaintenanceID, p.Status, p.Revision, p.Message, p.OccurredAt
	}
	return m, nil
}

func (m *Maintenance) Exists() bool   { return m.revision > 0 }
func (m *Maintenance) Status() string { return m.status }

// MaintenanceStartGrace is how far in the past a new window may start: a
// form that says "now" reaches the server a little later, and clocks differ.
// Anything earlier is not an announcement but a rewrite of the past.
const MaintenanceStartGrace = 5 * time.Minute

// NewMaintenance is the input of maintenance.schedule.
type NewMaintenance struct {
	ID             string
	Title          string
	Message        string
	ScheduledStart time.Time
	ScheduledEnd   time.Time
}

func (m *Maintenance) Schedule(n NewMaintenance, now time.Time) ([]event.Change, error) {
	fields := titleAndMessage(n.Title, n.Message)
	// Pointers name the members of the HTTP input (scheduledStart, scheduledEnd).
	if n.ScheduledStart.Before(now.Add(-MaintenanceStartGrace)) {
		fields = append(fields, errs.Field{Pointer: "/scheduledStart", Detail: "must not be in the past"})
	}
	if !n.ScheduledEnd.After(n.ScheduledStart) {
		fields = append(fields, errs.Field{Pointer: "/scheduledEnd", Detail: "must be after scheduledStart"})
	}
	if len(fields) > 0 {
		return nil, errs.Invalid(fields...)
	}
	if m.Exists() {
		return nil, errs.Conflict("maintenance_exists", "the maintenance window already exists")
	}
	return []event.Change{event.New(MaintenanceScheduled, MaintenanceScheduledV1{
		MaintenanceID: n.ID, Title: n.Title, Message: n.Message,
		ScheduledStart: n.ScheduledStart.UTC(), ScheduledEnd: n.ScheduledEnd.UTC(),
		Status: Scheduled, Revision: 1, OccurredAt: now,
	})}, nil
}

// Advance moves the window to in_progress or completed, one step at a time.
func (m *Maintenance) Advance(to, message string, now time.Time) ([]event.Change, error) {
	if !m.Exists() {
		return nil, errs.NotFound("maintenance")
	}
	var typ string
	switch {
	case to == InProgress && m.status == Scheduled:
		typ = MaintenanceStarted
	case to == Completed && m.status == InProgress:
		typ = MaintenanceCompleted
	case to != InProgress && to != Completed:
		return nil, errs.InvalidField("/status", "must be in_progress or completed")
	default:
		return nil, errs.Conflict("invalid_transition", "maintenance cannot move from "+m.status+" to "+to)
	}
	return []event.Change{event.New(typ, MaintenanceProgressedV1{
		MaintenanceID: m.id, Status: to, Message: message, Revision: m.revision + 1, OccurredAt: now,
		Title: m.title, ScheduledStart: m.scheduledStart, ScheduledEnd: m.scheduledEnd,
	})}, nil
}
