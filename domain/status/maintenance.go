package status

import (
	"time"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
)

// Maintenance is the write model of one maintenance window:
// scheduled (rev 1) -> in_progress (rev 2) -> completed (rev 3). A window may
// start and complete by itself at its scheduled times (autoStart,
// autoComplete): durable timers of the window's stream, moved or cancelled
// by every change of the window.
type Maintenance struct {
	id             string
	status         string
	revision       int
	title          string
	message        string
	scheduledStart time.Time
	scheduledEnd   time.Time
	autoStart      bool
	autoComplete   bool
	updatedAt      time.Time
}

// Timer names of a window's stream and the kinds they issue (the timer
// scheduler maps a kind to its command: commands/status.RegisterTimers).
const (
	TimerStart    = "start"
	TimerComplete = "complete"

	TimerKindMaintenanceStart    = "status.maintenance.start"
	TimerKindMaintenanceComplete = "status.maintenance.complete"
)

// MaintenanceState is the externally visible state of a maintenance window.
// The automation flags are omitted when off (the read model does not keep
// them, and the public page's schema is closed).
type MaintenanceState struct {
	MaintenanceID  string    `json:"maintenance_id"`
	Title          string    `json:"title"`
	Message        string    `json:"message"`
	Status         string    `json:"status"`
	Revision       int       `json:"revision"`
	ScheduledStart time.Time `json:"scheduled_start"`
	ScheduledEnd   time.Time `json:"scheduled_end"`
	AutoStart      bool      `json:"auto_start,omitempty"`
	AutoComplete   bool      `json:"auto_complete,omitempty"`
	UpdatedAt      time.Time `json:"updated_at"`
}

func (m *Maintenance) State() MaintenanceState {
	return MaintenanceState{MaintenanceID: m.id, Title: m.title, Message: m.message, Status: m.status, Revision: m.revision,
		ScheduledStart: m.scheduledStart, ScheduledEnd: m.scheduledEnd, AutoStart: m.autoStart, AutoComplete: m.autoComplete,
		UpdatedAt: m.updatedAt}
}

func LoadMaintenance(history []event.Recorded) (*Maintenance, error) {
	return maintenanceFold.Load(&Maintenance{}, history)
}

// Continue folds events after the history the model was loaded from
// (commands.Continuable): its decisions never change it.
func (m *Maintenance) Continue(more []event.Recorded) error {
	_, err := maintenanceFold.Load(m, more)
	return err
}

var maintenanceFold = event.Fold[*Maintenance]{
	event.SnapshotType: event.Apply(func(m *Maintenance, st MaintenanceState) {
		m.id, m.status, m.revision, m.title, m.message = st.MaintenanceID, st.Status, st.Revision, st.Title, st.Message
		m.scheduledStart, m.scheduledEnd, m.updatedAt = st.ScheduledStart, st.ScheduledEnd, st.UpdatedAt
		m.autoStart, m.autoComplete = st.AutoStart, st.AutoComplete
	}),
	MaintenanceScheduled: event.Apply(func(m *Maintenance, p MaintenanceScheduledV1) {
		m.id, m.status, m.revision, m.title, m.message, m.updatedAt = p.MaintenanceID, p.Status, p.Revision, p.Title, p.Message, p.OccurredAt
		m.scheduledStart, m.scheduledEnd, m.autoStart, m.autoComplete = p.ScheduledStart, p.ScheduledEnd, p.AutoStart, p.AutoComplete
	}),
	// Status, revision and message stay: a reschedule is not a transition
	// and carries no note.
	MaintenanceRescheduled: event.Apply(func(m *Maintenance, p MaintenanceRescheduledV1) {
		m.scheduledStart, m.scheduledEnd, m.autoStart, m.autoComplete = p.ScheduledStart, p.ScheduledEnd, p.AutoStart, p.AutoComplete
		m.updatedAt = p.OccurredAt
	}),
	MaintenanceStarted:   event.Apply((*Maintenance).progressed),
	MaintenanceCompleted: event.Apply((*Maintenance).progressed),
}

func (m *Maintenance) progressed(p MaintenanceProgressedV1) {
	m.id, m.status, m.revision, m.message, m.updatedAt = p.MaintenanceID, p.Status, p.Revision, p.Message, p.OccurredAt
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
	AutoStart      bool // start by itself at ScheduledStart
	AutoComplete   bool // complete by itself at ScheduledEnd (once started)
}

// windowFields checks a window's times: a start not in the past (beyond
// the grace) when it is being set, an end after the start.
func windowFields(fields []errs.Field, start, end time.Time, checkStart bool, now time.Time) []errs.Field {
	// Pointers name the members of the HTTP input (scheduledStart, scheduledEnd).
	if checkStart && start.Before(now.Add(-MaintenanceStartGrace)) {
		fields = append(fields, errs.Field{Pointer: "/scheduledStart", Detail: "must not be in the past"})
	}
	if !end.After(start) {
		fields = append(fields, errs.Field{Pointer: "/scheduledEnd", Detail: "must be after scheduledStart"})
	}
	return fields
}

func (m *Maintenance) Schedule(n NewMaintenance, now time.Time) ([]event.Change, error) {
	fields := windowFields(titleAndMessage(n.Title, n.Message), n.ScheduledStart, n.ScheduledEnd, true, now)
	if len(fields) > 0 {
		return nil, errs.Invalid(fields...)
	}
	if m.Exists() {
		return nil, errs.Conflict("maintenance_exists", "the maintenance window already exists")
	}
	c := event.New(MaintenanceScheduled, MaintenanceScheduledV1{
		MaintenanceID: n.ID, Title: n.Title, Message: n.Message,
		ScheduledStart: n.ScheduledStart.UTC(), ScheduledEnd: n.ScheduledEnd.UTC(),
		AutoStart: n.AutoStart, AutoComplete: n.AutoComplete,
		Status: Scheduled, Revision: 1, OccurredAt: now,
	})
	if n.AutoStart {
		c.Timers = append(c.Timers, event.ScheduleTimer(TimerStart, TimerKindMaintenanceStart, n.ScheduledStart.UTC(), nil))
	}
	if n.AutoComplete {
		c.Timers = append(c.Timers, event.ScheduleTimer(TimerComplete, TimerKindMaintenanceComplete, n.ScheduledEnd.UTC(), nil))
	}
	return []event.Change{c}, nil
}

// MaintenanceChange is the schedule part of maintenance.update: nil members
// keep their value.
type MaintenanceChange struct {
	ScheduledStart *time.Time
	ScheduledEnd   *time.Time
	AutoStart      *bool
	AutoComplete   *bool
}

func (c MaintenanceChange) empty() bool {
	return c.ScheduledStart == nil && c.ScheduledEnd == nil && c.AutoStart == nil && c.AutoComplete == nil
}

// Reschedule moves a window that has not ended, or turns its automation on
// or off; its timers move or are cancelled with it. The start and autoStart
// change only before the window started; the end and autoComplete until it
// completed. A change to the values the window has already appends nothing.
func (m *Maintenance) Reschedule(c MaintenanceChange, now time.Time) ([]event.Change, error) {
	if !m.Exists() {
		return nil, errs.NotFound("maintenance")
	}
	start, end, autoStart, autoComplete := m.scheduledStart, m.scheduledEnd, m.autoStart, m.autoComplete
	if c.ScheduledStart != nil {
		start = c.ScheduledStart.UTC()
	}
	if c.ScheduledEnd != nil {
		end = c.ScheduledEnd.UTC()
	}
	if c.AutoStart != nil {
		autoStart = *c.AutoStart
	}
	if c.AutoComplete != nil {
		autoComplete = *c.AutoComplete
	}
	startChanged := !start.Equal(m.scheduledStart) || autoStart != m.autoStart
	endChanged := !end.Equal(m.scheduledEnd) || autoComplete != m.autoComplete
	if !startChanged && !endChanged {
		return nil, nil
	}
	switch {
	case m.status == Completed:
		return nil, errs.Conflict("invalid_transition", "a completed maintenance window cannot be rescheduled")
	case startChanged && m.status != Scheduled:
		return nil, errs.Conflict("invalid_transition", "a maintenance window that started keeps its start")
	}
	if fields := windowFields(nil, start, end, !start.Equal(m.scheduledStart), now); len(fields) > 0 {
		return nil, errs.Invalid(fields...)
	}
	ch := event.New(MaintenanceRescheduled, MaintenanceRescheduledV1{
		MaintenanceID: m.id, Title: m.title, ScheduledStart: start, ScheduledEnd: end,
		AutoStart: autoStart, AutoComplete: autoComplete, Status: m.status, Revision: m.revision, OccurredAt: now,
	})
	if m.status == Scheduled {
		ch.Timers = append(ch.Timers, timer(autoStart, TimerStart, TimerKindMaintenanceStart, start))
	}
	ch.Timers = append(ch.Timers, timer(autoComplete, TimerComplete, TimerKindMaintenanceComplete, end))
	return []event.Change{ch}, nil
}

// timer schedules a window's timer when its automation is on, and cancels
// it otherwise (a no-op when there is none).
func timer(on bool, name, kind string, at time.Time) event.Timer {
	if on {
		return event.ScheduleTimer(name, kind, at, nil)
	}
	return event.CancelTimer(name)
}

// Update is maintenance.update: a schedule change, then a transition
// (status), in one command; at least one of them is required.
func (m *Maintenance) Update(c MaintenanceChange, to, message string, now time.Time) ([]event.Change, error) {
	if c.empty() && to == "" {
		return nil, errs.InvalidField("/status", "status or a schedule change (scheduledStart, scheduledEnd, autoStart, autoComplete) is required")
	}
	changes, err := m.Reschedule(c, now)
	if err != nil || to == "" {
		return changes, err
	}
	after := *m
	if err := maintenanceFold.ApplyChanges(&after, changes); err != nil {
		return nil, err
	}
	more, err := after.Advance(to, message, now)
	if err != nil {
		return nil, err
	}
	return append(changes, more...), nil
}

// Advance moves the window to in_progress or completed, one step at a time.
// A manual start cancels the start timer; completion cancels the complete
// timer (each only when its automation is on: otherwise there is none).
func (m *Maintenance) Advance(to, message string, now time.Time) ([]event.Change, error) {
	if !m.Exists() {
		return nil, errs.NotFound("maintenance")
	}
	var typ string
	var timers []event.Timer
	switch {
	case to == InProgress && m.status == Scheduled:
		typ = MaintenanceStarted
		if m.autoStart {
			timers = append(timers, event.CancelTimer(TimerStart))
		}
	case to == Completed && m.status == InProgress:
		typ = MaintenanceCompleted
		if m.autoComplete {
			timers = append(timers, event.CancelTimer(TimerComplete))
		}
	case to != InProgress && to != Completed:
		return nil, errs.InvalidField("/status", "must be in_progress or completed")
	default:
		return nil, errs.Conflict("invalid_transition", "maintenance cannot move from "+m.status+" to "+to)
	}
	c := event.New(typ, MaintenanceProgressedV1{
		MaintenanceID: m.id, Status: to, Message: message, Revision: m.revision + 1, OccurredAt: now,
		Title: m.title, ScheduledStart: m.scheduledStart, ScheduledEnd: m.scheduledEnd,
	})
	c.Timers = timers
	return []event.Change{c}, nil
}

// Messages of the transitions a window's timers make (the notifications
// show them as the body).
const (
	AutoStartMessage    = "Maintenance started at its scheduled time."
	AutoCompleteMessage = "Maintenance completed at its scheduled end."
)

// AutoAdvance is what a window's timer does at its time: start a scheduled
// window (autoStart) or complete one in progress (autoComplete). The timer
// names the time it was set for (due); a window whose automation was turned
// off, whose time moved, or which already made that step decides nothing. A
// window that never started is not completed by its end timer: nobody
// started the work, so nobody says it is done.
func (m *Maintenance) AutoAdvance(to string, due, now time.Time) ([]event.Change, error) {
	if !m.Exists() {
		return nil, errs.NotFound("maintenance")
	}
	switch {
	case to == InProgress && m.status == Scheduled && m.autoStart && sameInstant(m.scheduledStart, due):
		return m.Advance(InProgress, AutoStartMessage, now)
	case to == Completed && m.status == InProgress && m.autoComplete && sameInstant(m.scheduledEnd, due):
		return m.Advance(Completed, AutoCompleteMessage, now)
	case to != InProgress && to != Completed:
		return nil, errs.InvalidField("/status", "must be in_progress or completed")
	}
	return nil, nil
}

// sameInstant compares at PostgreSQL's precision: a timer's time comes back
// from the database in microseconds, a window's from an event in whatever
// precision the client sent.
func sameInstant(a, b time.Time) bool { return a.Sub(b).Abs() < time.Microsecond }
