package status_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/domain/event/eventtest"
	"github.com/platform/backend/domain/status"
)

// snapshotOf is what the event store saves: the model's state as JSON, as
// a Recorded of type event.SnapshotType at the history's last version.
func snapshotOf(t *testing.T, state any, version int64) event.Recorded {
	t.Helper()
	raw, err := json.Marshal(state)
	if err != nil {
		t.Fatal(err)
	}
	return event.Recorded{Type: event.SnapshotType, SchemaVersion: status.SnapshotSchema, Version: version, Payload: raw}
}

// A model loaded from its snapshot plus the events after it must decide
// exactly as the model folded from the whole stream: same state, same
// events for the same next command.
func TestSnapshotsRestoreTheWholeWriteModel(t *testing.T) {
	host, name := "api.example.com", "API"
	t.Run("incident", func(t *testing.T) {
		full := eventtest.History(t, event.New(status.IncidentCreated, status.IncidentCreatedV1{IncidentID: "i1", Title: "Down", Message: "m",
			Severity: "major", Status: "investigating", Revision: 1, ComponentHost: &host, ComponentName: &name, OccurredAt: t0}))
		inc, err := status.LoadIncident(full)
		if err != nil {
			t.Fatal(err)
		}
		changes, err := inc.Update(status.IncidentUpdate{Status: "identified", Message: "found"}, t0.Add(60e9))
		if err != nil {
			t.Fatal(err)
		}
		full = eventtest.Append(t, full, changes)
		whole, _ := status.LoadIncident(full)
		restored, err := status.LoadIncident([]event.Recorded{snapshotOf(t, whole.State(), 2)})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(whole.State(), restored.State()) {
			t.Fatalf("restored %+v, want %+v", restored.State(), whole.State())
		}
		next := status.IncidentUpdate{Status: "resolved", Message: "fixed"}
		a, errA := whole.Update(next, t0.Add(120e9))
		b, errB := restored.Update(next, t0.Add(120e9))
		if !reflect.DeepEqual(a, b) || errA != nil || errB != nil {
			t.Fatalf("decisions differ: %+v (%v) vs %+v (%v)", a, errA, b, errB)
		}
	})
	t.Run("maintenance", func(t *testing.T) {
		var mw status.Maintenance
		changes, err := mw.Schedule(status.NewMaintenance{ID: "m1", Title: "DB", Message: "upgrade",
			ScheduledStart: t0.Add(3600e9), ScheduledEnd: t0.Add(7200e9)}, t0)
		if err != nil {
			t.Fatal(err)
		}
		full := eventtest.Append(t, nil, changes)
		whole, _ := status.LoadMaintenance(full)
		restored, err := status.LoadMaintenance([]event.Recorded{snapshotOf(t, whole.State(), 1)})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(whole.State(), restored.State()) {
			t.Fatalf("restored %+v, want %+v", restored.State(), whole.State())
		}
		a, errA := whole.Advance("in_progress", "started", t0.Add(3600e9))
		b, errB := restored.Advance("in_progress", "started", t0.Add(3600e9))
		if !reflect.DeepEqual(a, b) || errA != nil || errB != nil {
			t.Fatalf("decisions differ: %+v (%v) vs %+v (%v)", a, errA, b, errB)
		}
	})
	t.Run("component", func(t *testing.T) {
		var c status.Component
		changes, err := c.Define(status.ComponentDefinedV1{ComponentID: "c1", Host: host, Name: name, CheckURL: "https://api.example.com/health"})
		if err != nil {
			t.Fatal(err)
		}
		full := eventtest.Append(t, nil, changes)
		for i := 0; i < 2; i++ { // two failures: one more degrades
			model, _ := status.LoadComponent(full)
			ch, err := model.RecordCheck(500, "boom", t0)
			if err != nil {
				t.Fatal(err)
			}
			full = eventtest.Append(t, full, ch)
		}
		whole, _ := status.LoadComponent(full)
		restored, err := status.LoadComponent([]event.Recorded{snapshotOf(t, whole.State(), int64(len(full)))})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(whole.State(), restored.State()) {
			t.Fatalf("restored %+v, want %+v", restored.State(), whole.State())
		}
		a, errA := whole.RecordCheck(500, "boom", t0)
		b, errB := restored.RecordCheck(500, "boom", t0)
		if !reflect.DeepEqual(a, b) || errA != nil || errB != nil || len(a) == 0 {
			t.Fatalf("decisions differ: %+v (%v) vs %+v (%v)", a, errA, b, errB)
		}
	})
}

// Continue (commands.Continuable) leaves each status model as loading the
// whole history again would: the model a decision acted on, with the
// decision's events folded in, is the one Execute answers from.
func TestContinueFoldsAsLoad(t *testing.T) {
	host, name := "api.example.com", "API"
	incident := eventtest.History(t, event.New(status.IncidentCreated, status.IncidentCreatedV1{IncidentID: "i1", Title: "Down", Message: "m",
		Severity: "major", Status: "investigating", Revision: 1, ComponentHost: &host, ComponentName: &name, OccurredAt: t0}))
	inc, _ := status.LoadIncident(incident)
	changes, err := inc.Update(status.IncidentUpdate{Status: "identified", Message: "found", Severity: "critical", Title: "Down hard"}, t0.Add(60e9))
	if err != nil {
		t.Fatal(err)
	}
	incident = eventtest.Append(t, incident, changes)
	inc, _ = status.LoadIncident(incident)
	if changes, err = inc.Update(status.IncidentUpdate{Status: "resolved", Message: "fixed"}, t0.Add(120e9)); err != nil {
		t.Fatal(err)
	}
	incident = eventtest.Append(t, incident, changes)
	// From a snapshot too: the first record of a history loaded from one.
	whole, _ := status.LoadIncident(incident[:2])
	fromSnapshot := append([]event.Recorded{snapshotOf(t, whole.State(), 2)}, incident[2:]...)
	for _, h := range [][]event.Recorded{incident, fromSnapshot} {
		for k := 1; k < len(h); k++ {
			want, _ := status.LoadIncident(h)
			got, _ := status.LoadIncident(h[:k])
			if err := got.Continue(h[k:]); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(want.State(), got.State()) {
				t.Fatalf("incident after %d of %d: continued %+v, want %+v", k, len(h), got.State(), want.State())
			}
		}
	}

	var mw status.Maintenance
	if changes, err = mw.Schedule(status.NewMaintenance{ID: "m1", Title: "DB", Message: "upgrade",
		ScheduledStart: t0.Add(3600e9), ScheduledEnd: t0.Add(7200e9)}, t0); err != nil {
		t.Fatal(err)
	}
	maintenance := eventtest.Append(t, nil, changes)
	m, _ := status.LoadMaintenance(maintenance)
	if changes, err = m.Advance("in_progress", "started", t0.Add(3600e9)); err != nil {
		t.Fatal(err)
	}
	maintenance = eventtest.Append(t, maintenance, changes)
	for k := 1; k < len(maintenance); k++ {
		want, _ := status.LoadMaintenance(maintenance)
		got, _ := status.LoadMaintenance(maintenance[:k])
		if err := got.Continue(maintenance[k:]); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(want.State(), got.State()) {
			t.Fatalf("maintenance after %d: continued %+v, want %+v", k, got.State(), want.State())
		}
	}

	var c status.Component
	if changes, err = c.Define(status.ComponentDefinedV1{ComponentID: "c1", Host: host, Name: name, CheckURL: "https://api.example.com/health"}); err != nil {
		t.Fatal(err)
	}
	component := eventtest.Append(t, nil, changes)
	for range 3 {
		cm, _ := status.LoadComponent(component)
		if changes, err = cm.RecordCheck(503, "down", t0); err != nil {
			t.Fatal(err)
		}
		component = eventtest.Append(t, component, changes)
	}
	for k := 1; k < len(component); k++ {
		want, _ := status.LoadComponent(component)
		got, _ := status.LoadComponent(component[:k])
		if err := got.Continue(component[k:]); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(want.State(), got.State()) {
			t.Fatalf("component after %d: continued %+v, want %+v", k, got.State(), want.State())
		}
	}
}
