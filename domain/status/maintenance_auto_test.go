package status_test

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/domain/event/eventtest"
	"github.com/platform/backend/domain/status"
	"github.com/platform/backend/domain/text"
)

func mntScheduledAuto(autoStart, autoComplete bool) event.Change {
	return event.New(status.MaintenanceScheduled, status.MaintenanceScheduledV1{
		MaintenanceID: mntID, Title: "Database upgrade", Message: "Short read-only window.",
		ScheduledStart: mntStart, ScheduledEnd: mntEnd, Status: status.Scheduled, Revision: 1, OccurredAt: t0.Add(-24 * time.Hour),
		AutoStart: autoStart, AutoComplete: autoComplete,
	})
}

func startTimer(at time.Time) event.Timer {
	return event.Timer{Name: "start", Kind: "status.maintenance.start", At: at}
}

func completeTimer(at time.Time) event.Timer {
	return event.Timer{Name: "complete", Kind: "status.maintenance.complete", At: at}
}

func cancel(name string) event.Timer { return event.Timer{Name: name, Cancel: true} }

func withTimers(c event.Change, ts ...event.Timer) event.Change {
	c.Timers = ts
	return c
}

// A window opts in to starting and completing by itself: its scheduled
// event carries the flags and the timers, in UTC.
func TestMaintenanceScheduleAutomation(t *testing.T) {
	cest := time.FixedZone("CEST", 2*60*60)
	scheduled := func(autoStart, autoComplete bool) status.MaintenanceScheduledV1 {
		return status.MaintenanceScheduledV1{MaintenanceID: mntID, Title: "T", Message: "M", ScheduledStart: mntStart, ScheduledEnd: mntEnd,
			Status: "scheduled", Revision: 1, OccurredAt: t0, AutoStart: autoStart, AutoComplete: autoComplete}
	}
	tests := []struct {
		name                    string
		autoStart, autoComplete bool
		then                    eventtest.Then
	}{
		{"no automation: no timer", false, false, eventtest.Events(event.New("status.maintenance.scheduled", scheduled(false, false)))},
		{"auto start", true, false, eventtest.Events(withTimers(event.New("status.maintenance.scheduled", scheduled(true, false)), startTimer(mntStart)))},
		{"auto complete", false, true, eventtest.Events(withTimers(event.New("status.maintenance.scheduled", scheduled(false, true)), completeTimer(mntEnd)))},
		{"both", true, true, eventtest.Events(withTimers(event.New("status.maintenance.scheduled", scheduled(true, true)), startTimer(mntStart), completeTimer(mntEnd)))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, _ := status.LoadMaintenance(nil)
			got, err := m.Schedule(status.NewMaintenance{ID: mntID, Title: "T", Message: "M",
				ScheduledStart: mntStart.In(cest), ScheduledEnd: mntEnd.In(cest), AutoStart: tt.autoStart, AutoComplete: tt.autoComplete}, t0)
			eventtest.Check(t, got, err, tt.then)
		})
	}
}

func TestMaintenanceReschedule(t *testing.T) {
	later, laterEnd := mntStart.Add(time.Hour), mntEnd.Add(time.Hour)
	yes, no := true, false
	at := func(t time.Time) *time.Time { return &t }
	rescheduled := func(start, end time.Time, autoStart, autoComplete bool, st string, rev int) status.MaintenanceRescheduledV1 {
		return status.MaintenanceRescheduledV1{MaintenanceID: mntID, Title: "Database upgrade", ScheduledStart: start, ScheduledEnd: end,
			AutoStart: autoStart, AutoComplete: autoComplete, Status: st, Revision: rev, OccurredAt: t0}
	}
	auto := eventtest.History(t, mntScheduledAuto(true, true))
	autoStarted := eventtest.History(t, mntScheduledAuto(true, true), mntStarted())
	tests := []struct {
		name  string
		given []event.Recorded
		when  status.MaintenanceChange
		then  eventtest.Then
	}{
		{
			name: "moving an automated window moves both timers", given: auto,
			when: status.MaintenanceChange{ScheduledStart: at(later), ScheduledEnd: at(laterEnd)},
			then: eventtest.Events(withTimers(event.New("status.maintenance.rescheduled", rescheduled(later, laterEnd, true, true, "scheduled", 1)),
				startTimer(later), completeTimer(laterEnd))),
		},
		{
			name: "turning automation off cancels the timers", given: auto,
			when: status.MaintenanceChange{AutoStart: &no, AutoComplete: &no},
			then: eventtest.Events(withTimers(event.New("status.maintenance.rescheduled", rescheduled(mntStart, mntEnd, false, false, "scheduled", 1)),
				cancel("start"), cancel("complete"))),
		},
		{
			name: "turning automation on schedules the timers", given: eventtest.History(t, mntScheduled()),
			when: status.MaintenanceChange{AutoStart: &yes, AutoComplete: &yes},
			then: eventtest.Events(withTimers(event.New("status.maintenance.rescheduled", rescheduled(mntStart, mntEnd, true, true, "scheduled", 1)),
				startTimer(mntStart), completeTimer(mntEnd))),
		},
		{
			name: "moving a window without automation cancels nothing that exists", given: eventtest.History(t, mntScheduled()),
			when: status.MaintenanceChange{ScheduledEnd: at(laterEnd)},
			then: eventtest.Events(withTimers(event.New("status.maintenance.rescheduled", rescheduled(mntStart, laterEnd, false, false, "scheduled", 1)),
				cancel("start"), cancel("complete"))),
		},
		{
			name: "extending a window in progress moves only the complete timer", given: autoStarted,
			when: status.MaintenanceChange{ScheduledEnd: at(laterEnd)},
			then: eventtest.Events(withTimers(event.New("status.maintenance.rescheduled", rescheduled(mntStart, laterEnd, true, true, "in_progress", 2)),
				completeTimer(laterEnd))),
		},
		{name: "the same values append nothing", given: auto, when: status.MaintenanceChange{ScheduledStart: at(mntStart), AutoStart: &yes}, then: eventtest.NoEvents()},
		{name: "a started window keeps its start", given: autoStarted, when: status.MaintenanceChange{ScheduledStart: at(later)}, then: eventtest.Conflict("invalid_transition")},
		{name: "a started window keeps its autoStart", given: autoStarted, when: status.MaintenanceChange{AutoStart: &no}, then: eventtest.Conflict("invalid_transition")},
		{name: "a completed window is not rescheduled", given: eventtest.History(t, mntScheduled(), mntStarted(), mntCompleted()),
			when: status.MaintenanceChange{ScheduledEnd: at(laterEnd)}, then: eventtest.Conflict("invalid_transition")},
		{name: "end before start", given: auto, when: status.MaintenanceChange{ScheduledEnd: at(mntStart.Add(-time.Minute))}, then: eventtest.Invalid("/scheduledEnd")},
		{name: "start moved past the end", given: auto, when: status.MaintenanceChange{ScheduledStart: at(mntEnd)}, then: eventtest.Invalid("/scheduledEnd")},
		{name: "start moved into the past", given: auto, when: status.MaintenanceChange{ScheduledStart: at(t0.Add(-time.Hour))}, then: eventtest.Invalid("/scheduledStart")},
		{name: "missing window", when: status.MaintenanceChange{AutoStart: &yes}, then: eventtest.NotFound()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := status.LoadMaintenance(tt.given)
			if err != nil {
				t.Fatal(err)
			}
			got, err := m.Reschedule(tt.when, t0)
			eventtest.Check(t, got, err, tt.then)
		})
	}
}

// A manual transition cancels the timer of the step it makes, only when
// that step was automated (there is no timer otherwise).
func TestMaintenanceManualTransitionCancelsTimers(t *testing.T) {
	started := status.MaintenanceProgressedV1{MaintenanceID: mntID, Status: "in_progress", Message: "by hand", Revision: 2, OccurredAt: t0,
		Title: "Database upgrade", ScheduledStart: mntStart, ScheduledEnd: mntEnd}
	completed := started
	completed.Status, completed.Revision = "completed", 3
	tests := []struct {
		name  string
		given []event.Recorded
		to    string
		then  eventtest.Then
	}{
		{"manual start of an auto-start window", eventtest.History(t, mntScheduledAuto(true, true)), "in_progress",
			eventtest.Events(withTimers(event.New("status.maintenance.started", started), cancel("start")))},
		{"manual start of an auto-complete-only window keeps the complete timer", eventtest.History(t, mntScheduledAuto(false, true)), "in_progress",
			eventtest.Events(event.New("status.maintenance.started", started))},
		{"manual completion of an auto-complete window", eventtest.History(t, mntScheduledAuto(true, true), mntStarted()), "completed",
			eventtest.Events(withTimers(event.New("status.maintenance.completed", completed), cancel("complete")))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, _ := status.LoadMaintenance(tt.given)
			got, err := m.Advance(tt.to, "by hand", t0)
			eventtest.Check(t, got, err, tt.then)
		})
	}
}

// What a window's timer does at its time: the step, or nothing when the
// window changed since the timer was set.
func TestMaintenanceAutoAdvance(t *testing.T) {
	started := status.MaintenanceProgressedV1{MaintenanceID: mntID, Status: "in_progress", Message: status.AutoStartMessage, Revision: 2,
		OccurredAt: t0, Title: "Database upgrade", ScheduledStart: mntStart, ScheduledEnd: mntEnd}
	completed := started
	completed.Status, completed.Revision, completed.Message = "completed", 3, status.AutoCompleteMessage
	tests := []struct {
		name  string
		given []event.Recorded
		to    string
		due   time.Time
		then  eventtest.Then
	}{
		{"starts at its start", eventtest.History(t, mntScheduledAuto(true, true)), "in_progress", mntStart,
			eventtest.Events(withTimers(event.New("status.maintenance.started", started), cancel("start")))},
		{"completes at its end", eventtest.History(t, mntScheduledAuto(true, true), mntStarted()), "completed", mntEnd,
			eventtest.Events(withTimers(event.New("status.maintenance.completed", completed), cancel("complete")))},
		{"already started by hand", eventtest.History(t, mntScheduledAuto(true, true), mntStarted()), "in_progress", mntStart, eventtest.NoEvents()},
		{"automation turned off", eventtest.History(t, mntScheduledAuto(false, false)), "in_progress", mntStart, eventtest.NoEvents()},
		{"start moved since the timer was set", eventtest.History(t, mntScheduledAuto(true, true)), "in_progress", mntStart.Add(-time.Hour), eventtest.NoEvents()},
		{"a window never started is not completed", eventtest.History(t, mntScheduledAuto(false, true)), "completed", mntEnd, eventtest.NoEvents()},
		{"already completed", eventtest.History(t, mntScheduledAuto(true, true), mntStarted(), mntCompleted()), "completed", mntEnd, eventtest.NoEvents()},
		{"due read back from the database in microseconds", eventtest.History(t, event.New(status.MaintenanceScheduled, status.MaintenanceScheduledV1{
			MaintenanceID: mntID, Title: "Database upgrade", Message: "Short read-only window.", Status: status.Scheduled, Revision: 1,
			ScheduledStart: mntStart.Add(999 * time.Nanosecond), ScheduledEnd: mntEnd, AutoStart: true})), "in_progress", mntStart,
			eventtest.Events(withTimers(event.New("status.maintenance.started", func() status.MaintenanceProgressedV1 {
				p := started
				p.ScheduledStart = mntStart.Add(999 * time.Nanosecond)
				return p
			}()), cancel("start")))},
		{"missing window", nil, "in_progress", mntStart, eventtest.NotFound()},
		{"unknown step", eventtest.History(t, mntScheduledAuto(true, true)), "scheduled", mntStart, eventtest.Invalid("/status")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, _ := status.LoadMaintenance(tt.given)
			got, err := m.AutoAdvance(tt.to, tt.due, t0)
			eventtest.Check(t, got, err, tt.then)
		})
	}
}

// Update: a reschedule and a transition in one command, the transition
// decided on the rescheduled window; neither is a 422 on /status.
func TestMaintenanceUpdate(t *testing.T) {
	no := true
	no = !no
	m, _ := status.LoadMaintenance(eventtest.History(t, mntScheduledAuto(true, true)))
	got, err := m.Update(status.MaintenanceChange{AutoComplete: &no}, "in_progress", "now", t0)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Type != status.MaintenanceRescheduled || got[1].Type != status.MaintenanceStarted {
		t.Fatalf("want rescheduled then started, got %s", eventtest.Dump(got))
	}
	// The start happened after autoComplete went off: no complete timer to cancel later.
	after := eventtest.Append(t, eventtest.History(t, mntScheduledAuto(true, true)), got)
	m, _ = status.LoadMaintenance(after)
	if st := m.State(); st.Status != "in_progress" || st.AutoComplete || !st.AutoStart || st.Revision != 2 || st.Message != "now" {
		t.Fatalf("state after update: %+v", st)
	}
	_, err = m.Update(status.MaintenanceChange{}, "", "", t0)
	eventtest.Check(t, nil, err, eventtest.Invalid("/status"))
}

func TestMaintenanceStateKeepsAutomation(t *testing.T) {
	m, _ := status.LoadMaintenance(eventtest.History(t, mntScheduledAuto(true, false)))
	st := m.State()
	if !st.AutoStart || st.AutoComplete {
		t.Fatalf("flags not loaded: %+v", st)
	}
	m, _ = status.LoadMaintenance(eventtest.History(t, event.New(event.SnapshotType, st)))
	if m.State() != st {
		t.Fatalf("snapshot round trip: %+v != %+v", m.State(), st)
	}
}

func TestAutoIncidentTexts(t *testing.T) {
	p := status.ComponentCheckedV1{ComponentID: "api", Host: "api.example.com", Name: "API", HTTPStatus: 503, ConsecutiveFails: 3}
	inc := status.AutoIncident(p)
	if inc.Title != "API is degraded" || inc.Severity != "major" || *inc.ComponentHost != "api.example.com" || *inc.ComponentName != "API" ||
		!strings.Contains(inc.Message, "3 consecutive checks (HTTP 503)") {
		t.Fatalf("incident: %+v", inc)
	}
	p.Error, p.HTTPStatus = "timeout", 0
	if inc := status.AutoIncident(p); !strings.Contains(inc.Message, "(timeout)") {
		t.Fatalf("a check without an answer names the reason word: %s", inc.Message)
	}
	// Titles stay within the bound a person's incident has.
	p.Name = strings.Repeat("é", text.MaxTitle)
	inc = status.AutoIncident(p)
	if n := utf8.RuneCountInString(inc.Title); n > text.MaxTitle {
		t.Fatalf("title of %d characters", n)
	}
	inc.ID = "i"
	if _, err := (&status.Incident{}).Create(inc, t0); err != nil {
		t.Fatalf("the automatic incident must pass the incident's own checks: %v", err)
	}
	res := status.AutoResolution(status.ComponentCheckedV1{Host: "api.example.com", HTTPStatus: 200})
	if res.Status != "resolved" || !strings.Contains(res.Message, "(HTTP 200)") {
		t.Fatalf("resolution: %+v", res)
	}
}

// autoIncident is part of a component's definition: turning it on or off
// is a change, and every check event carries the setting of its time.
func TestComponentAutoIncident(t *testing.T) {
	on := cmpDef()
	on.AutoIncident = true
	c, _ := status.LoadComponent(eventtest.History(t, cmpRegistered()))
	got, err := c.Define(on)
	eventtest.Check(t, got, err, eventtest.Events(event.New("status.component.changed", on)))

	history := eventtest.History(t, event.New(status.ComponentRegistered, on), failed(1), failed(2))
	c, _ = status.LoadComponent(history)
	if got, _ := c.Define(on); got != nil {
		t.Fatalf("the same definition appends nothing, got %s", eventtest.Dump(got))
	}
	got, err = c.RecordCheck(503, "", t0)
	if err != nil || len(got) != 2 || got[1].Type != status.ComponentDegraded {
		t.Fatalf("third failure: %s %v", eventtest.Dump(got), err)
	}
	for _, ch := range got {
		if !ch.Payload.(status.ComponentCheckedV1).AutoIncident {
			t.Fatalf("%s does not carry autoIncident", ch.Type)
		}
	}
	off, _ := status.LoadComponent(eventtest.History(t, cmpRegistered(), failed(1), failed(2)))
	got, _ = off.RecordCheck(503, "", t0)
	if got[1].Payload.(status.ComponentCheckedV1).AutoIncident {
		t.Fatal("a component without autoIncident degrades without it")
	}
}
