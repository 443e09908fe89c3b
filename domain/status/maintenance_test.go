package status_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/domain/event/eventtest"
	"github.com/platform/backend/domain/status"
)

const mntID = "mnt_01"

var (
	mntStart = time.Date(2026, 5, 10, 2, 0, 0, 0, time.UTC)
	mntEnd   = time.Date(2026, 5, 10, 4, 0, 0, 0, time.UTC)
)

func mntScheduled() event.Change {
	return event.New(status.MaintenanceScheduled, status.MaintenanceScheduledV1{
		MaintenanceID: mntID, Title: "Database upgrade", Message: "Short read-only window.",
		ScheduledStart: mntStart, ScheduledEnd: mntEnd, Status: status.Scheduled, Revision: 1, OccurredAt: t0.Add(-24 * time.Hour),
	})
}

func mntStarted() event.Change {
	return event.New(status.MaintenanceStarted, status.MaintenanceProgressedV1{
		MaintenanceID: mntID, Status: status.InProgress, Message: "started", Revision: 2, OccurredAt: mntStart,
		Title: "Database upgrade", ScheduledStart: mntStart, ScheduledEnd: mntEnd,
	})
}

func mntCompleted() event.Change {
	return event.New(status.MaintenanceCompleted, status.MaintenanceProgressedV1{
		MaintenanceID: mntID, Status: status.Completed, Message: "done", Revision: 3, OccurredAt: mntEnd,
		Title: "Database upgrade", ScheduledStart: mntStart, ScheduledEnd: mntEnd,
	})
}

func TestMaintenanceSchedule(t *testing.T) {
	valid := status.NewMaintenance{
		ID: mntID, Title: "Database upgrade", Message: "Short read-only window.",
		ScheduledStart: mntStart, ScheduledEnd: mntEnd,
	}
	with := func(f func(*status.NewMaintenance)) status.NewMaintenance {
		n := valid
		f(&n)
		return n
	}
	cest := time.FixedZone("CEST", 2*60*60)
	tests := []struct {
		name  string
		given []event.Recorded
		when  status.NewMaintenance
		then  eventtest.Then
	}{
		{
			name: "new window is scheduled at revision 1",
			when: valid,
			then: eventtest.Events(event.New("status.maintenance.scheduled", status.MaintenanceScheduledV1{
				MaintenanceID: mntID, Title: "Database upgrade", Message: "Short read-only window.",
				ScheduledStart: mntStart, ScheduledEnd: mntEnd, Status: "scheduled", Revision: 1, OccurredAt: t0,
			})),
		},
		{
			name: "window times are stored in UTC",
			when: with(func(n *status.NewMaintenance) {
				n.ScheduledStart, n.ScheduledEnd = mntStart.In(cest), mntEnd.In(cest)
			}),
			then: eventtest.Events(event.New("status.maintenance.scheduled", status.MaintenanceScheduledV1{
				MaintenanceID: mntID, Title: "Database upgrade", Message: "Short read-only window.",
				ScheduledStart: mntStart, ScheduledEnd: mntEnd, Status: "scheduled", Revision: 1, OccurredAt: t0,
			})),
		},
		{
			name: "one nanosecond long window is accepted",
			when: with(func(n *status.NewMaintenance) { n.ScheduledEnd = mntStart.Add(time.Nanosecond) }),
			then: eventtest.Events(event.New("status.maintenance.scheduled", status.MaintenanceScheduledV1{
				MaintenanceID: mntID, Title: "Database upgrade", Message: "Short read-only window.",
				ScheduledStart: mntStart, ScheduledEnd: mntStart.Add(time.Nanosecond), Status: "scheduled", Revision: 1, OccurredAt: t0,
			})),
		},
		{name: "end equal to start", when: with(func(n *status.NewMaintenance) { n.ScheduledEnd = mntStart }), then: eventtest.Invalid("/scheduledEnd")},
		{name: "end before start", when: with(func(n *status.NewMaintenance) { n.ScheduledEnd = mntStart.Add(-time.Minute) }), then: eventtest.Invalid("/scheduledEnd")},
		{name: "missing times", when: with(func(n *status.NewMaintenance) { n.ScheduledStart, n.ScheduledEnd = time.Time{}, time.Time{} }), then: eventtest.Invalid("/scheduledStart", "/scheduledEnd")},
		{name: "empty title", when: with(func(n *status.NewMaintenance) { n.Title = " " }), then: eventtest.Invalid("/title")},
		{name: "empty message", when: with(func(n *status.NewMaintenance) { n.Message = "" }), then: eventtest.Invalid("/message")},
		{
			name: "every invalid member is reported",
			when: status.NewMaintenance{ID: mntID, ScheduledStart: mntEnd, ScheduledEnd: mntStart},
			then: eventtest.Invalid("/title", "/message", "/scheduledEnd"),
		},
		// A window is announced ahead: one that started in the past (beyond
		// the grace for clock skew and a form sent "now") is refused.
		{
			name: "start in the past",
			when: with(func(n *status.NewMaintenance) {
				n.ScheduledStart, n.ScheduledEnd = t0.Add(-time.Hour), t0.Add(time.Hour)
			}),
			then: eventtest.Invalid("/scheduledStart"),
		},
		{
			name: "start just past the grace",
			when: with(func(n *status.NewMaintenance) {
				n.ScheduledStart, n.ScheduledEnd = t0.Add(-status.MaintenanceStartGrace-time.Second), t0.Add(time.Hour)
			}),
			then: eventtest.Invalid("/scheduledStart"),
		},
		{
			name: "whole window in the past",
			when: with(func(n *status.NewMaintenance) {
				n.ScheduledStart, n.ScheduledEnd = t0.Add(-2*time.Hour), t0.Add(-time.Hour)
			}),
			then: eventtest.Invalid("/scheduledStart"),
		},
		{
			name: "start within the grace is accepted",
			when: with(func(n *status.NewMaintenance) {
				n.ScheduledStart, n.ScheduledEnd = t0.Add(-status.MaintenanceStartGrace), t0.Add(time.Hour)
			}),
			then: eventtest.Events(event.New("status.maintenance.scheduled", status.MaintenanceScheduledV1{
				MaintenanceID: mntID, Title: "Database upgrade", Message: "Short read-only window.",
				ScheduledStart: t0.Add(-status.MaintenanceStartGrace), ScheduledEnd: t0.Add(time.Hour), Status: "scheduled", Revision: 1, OccurredAt: t0,
			})),
		},
		{
			name: "start in the past and end before it name both members",
			when: with(func(n *status.NewMaintenance) {
				n.ScheduledStart, n.ScheduledEnd = t0.Add(-time.Hour), t0.Add(-2*time.Hour)
			}),
			then: eventtest.Invalid("/scheduledStart", "/scheduledEnd"),
		},
		{name: "title too long", when: with(func(n *status.NewMaintenance) { n.Title = strings.Repeat("t", 201) }), then: eventtest.Invalid("/title")},
		{name: "title with a tab", when: with(func(n *status.NewMaintenance) { n.Title = "a\tb" }), then: eventtest.Invalid("/title")},
		{name: "message too long", when: with(func(n *status.NewMaintenance) { n.Message = strings.Repeat("m", 10001) }), then: eventtest.Invalid("/message")},
		{name: "message with NUL", when: with(func(n *status.NewMaintenance) { n.Message = "a\x00b" }), then: eventtest.Invalid("/message")},
		{name: "schedule twice", given: eventtest.History(t, mntScheduled()), when: valid, then: eventtest.Conflict("maintenance_exists")},
		{name: "schedule over a completed window", given: eventtest.History(t, mntScheduled(), mntStarted(), mntCompleted()), when: valid, then: eventtest.Conflict("maintenance_exists")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := status.LoadMaintenance(tt.given)
			if err != nil {
				t.Fatalf("load: %v", err)
			}
			got, err := m.Schedule(tt.when, t0)
			eventtest.Check(t, got, err, tt.then)
		})
	}
}

func TestMaintenanceAdvance(t *testing.T) {
	scheduled := eventtest.History(t, mntScheduled())
	inProgress := eventtest.History(t, mntScheduled(), mntStarted())
	completed := eventtest.History(t, mntScheduled(), mntStarted(), mntCompleted())

	type tc struct {
		name  string
		given []event.Recorded
		to    string
		then  eventtest.Then
	}
	tests := []tc{
		{
			name: "start a scheduled window", given: scheduled, to: "in_progress",
			then: eventtest.Events(event.New("status.maintenance.started", status.MaintenanceProgressedV1{
				MaintenanceID: mntID, Status: "in_progress", Message: "note", Revision: 2, OccurredAt: t0,
				Title: "Database upgrade", ScheduledStart: mntStart, ScheduledEnd: mntEnd,
			})),
		},
		{
			name: "complete a window in progress", given: inProgress, to: "completed",
			then: eventtest.Events(event.New("status.maintenance.completed", status.MaintenanceProgressedV1{
				MaintenanceID: mntID, Status: "completed", Message: "note", Revision: 3, OccurredAt: t0,
				Title: "Database upgrade", ScheduledStart: mntStart, ScheduledEnd: mntEnd,
			})),
		},
		{name: "complete a scheduled window", given: scheduled, to: "completed", then: eventtest.Conflict("invalid_transition")},
		{name: "start twice", given: inProgress, to: "in_progress", then: eventtest.Conflict("invalid_transition")},
		{name: "start a completed window", given: completed, to: "in_progress", then: eventtest.Conflict("invalid_transition")},
		{name: "complete twice", given: completed, to: "completed", then: eventtest.Conflict("invalid_transition")},
		{name: "start a missing window", to: "in_progress", then: eventtest.NotFound()},
		{name: "complete a missing window", to: "completed", then: eventtest.NotFound()},
	}
	for _, to := range []string{"scheduled", "cancelled", "resolved", "", "IN_PROGRESS"} {
		for name, h := range map[string][]event.Recorded{"scheduled": scheduled, "in_progress": inProgress, "completed": completed} {
			tests = append(tests, tc{
				name: fmt.Sprintf("unknown target %q from %s", to, name), given: h, to: to, then: eventtest.Invalid("/status"),
			})
		}
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := status.LoadMaintenance(tt.given)
			if err != nil {
				t.Fatalf("load: %v", err)
			}
			got, err := m.Advance(tt.to, "note", t0)
			eventtest.Check(t, got, err, tt.then)
		})
	}
}

// TestMaintenanceLifecycle runs the whole window through decisions read back
// from their own events: scheduled 1, in_progress 2, completed 3.
func TestMaintenanceLifecycle(t *testing.T) {
	m, err := status.LoadMaintenance(nil)
	if err != nil {
		t.Fatal(err)
	}
	if m.Exists() {
		t.Fatal("empty history must not exist")
	}
	changes, err := m.Schedule(status.NewMaintenance{ID: mntID, Title: "T", Message: "M", ScheduledStart: mntStart, ScheduledEnd: mntEnd}, t0)
	if err != nil {
		t.Fatal(err)
	}
	history := eventtest.Append(t, nil, changes)
	steps := []struct {
		to, typ  string
		revision int
	}{
		{"in_progress", "status.maintenance.started", 2},
		{"completed", "status.maintenance.completed", 3},
	}
	for _, s := range steps {
		m, err := status.LoadMaintenance(history)
		if err != nil {
			t.Fatal(err)
		}
		got, err := m.Advance(s.to, "m", t0)
		eventtest.Check(t, got, err, eventtest.Events(event.New(s.typ, status.MaintenanceProgressedV1{
			MaintenanceID: mntID, Status: s.to, Message: "m", Revision: s.revision, OccurredAt: t0,
			Title: "T", ScheduledStart: mntStart, ScheduledEnd: mntEnd,
		})))
		history = eventtest.Append(t, history, got)
	}
	m, err = status.LoadMaintenance(history)
	if err != nil {
		t.Fatal(err)
	}
	if !m.Exists() || m.Status() != "completed" {
		t.Fatalf("want an existing completed window, got exists=%v status=%q", m.Exists(), m.Status())
	}
}

func TestMaintenanceState(t *testing.T) {
	base := status.MaintenanceState{
		MaintenanceID: mntID, Title: "Database upgrade", ScheduledStart: mntStart, ScheduledEnd: mntEnd,
	}
	state := func(st, message string, revision int, updated time.Time) status.MaintenanceState {
		s := base
		s.Status, s.Message, s.Revision, s.UpdatedAt = st, message, revision, updated
		return s
	}
	tests := []struct {
		name  string
		given []event.Recorded
		then  status.MaintenanceState
	}{
		{name: "no history", then: status.MaintenanceState{}},
		{name: "scheduled", given: eventtest.History(t, mntScheduled()), then: state("scheduled", "Short read-only window.", 1, t0.Add(-24*time.Hour))},
		{name: "in progress", given: eventtest.History(t, mntScheduled(), mntStarted()), then: state("in_progress", "started", 2, mntStart)},
		{name: "completed", given: eventtest.History(t, mntScheduled(), mntStarted(), mntCompleted()), then: state("completed", "done", 3, mntEnd)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := status.LoadMaintenance(tt.given)
			if err != nil {
				t.Fatalf("load: %v", err)
			}
			if got := m.State(); !reflect.DeepEqual(got, tt.then) {
				t.Fatalf("state:\nwant %+v\ngot  %+v", tt.then, got)
			}
		})
	}
}
