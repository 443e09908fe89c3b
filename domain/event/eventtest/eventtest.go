// Package eventtest is the given/when/then harness of domain tests: given
// recorded events (typed payloads, stored as the event store would store
// them), when a decision of the write model they fold into, then the
// events it decides (types and payloads) or the error it refuses with
// (kind, code and the JSON pointers of the failing members).
//
//	eventtest.Given(t, status.LoadIncident, created, resolved).
//		When(func(i *status.Incident) ([]event.Change, error) { return i.Update(u, now) }).
//		Then(eventtest.Conflict("incident_resolved"))
package eventtest

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
)

// History records changes as a stream holds them: payloads through JSON,
// versions from 1 (a SnapshotType change stands for the events up to it).
func History(t testing.TB, changes ...event.Change) []event.Recorded {
	t.Helper()
	return Append(t, nil, changes)
}

// Append records changes after a history, as the store would, so that the
// next decision reads them back.
func Append(t testing.TB, history []event.Recorded, changes []event.Change) []event.Recorded {
	t.Helper()
	out, err := event.Append(history, changes)
	if err != nil {
		t.Fatalf("record: %v", err)
	}
	return out
}

// Scenario is a write model folded from the given history.
type Scenario[M any] struct {
	t       testing.TB
	history []event.Recorded
	model   M
}

// Given folds the given events with the write model's loader.
func Given[M any](t testing.TB, load func([]event.Recorded) (M, error), given ...event.Change) Scenario[M] {
	t.Helper()
	return GivenHistory(t, load, History(t, given...))
}

// GivenHistory folds a history recorded already (by History, or by a
// decision's outcome: Outcome.History).
func GivenHistory[M any](t testing.TB, load func([]event.Recorded) (M, error), history []event.Recorded) Scenario[M] {
	t.Helper()
	model, err := load(history)
	if err != nil {
		t.Fatalf("given: the history does not load: %v", err)
	}
	return Scenario[M]{t: t, history: history, model: model}
}

// Model is the folded write model, for checks of its state.
func (s Scenario[M]) Model() M { return s.model }

// When runs one decision of the model.
func (s Scenario[M]) When(decide func(M) ([]event.Change, error)) Outcome {
	changes, err := decide(s.model)
	return Outcome{t: s.t, history: s.history, changes: changes, err: err}
}

// Outcome is what a decision returned.
type Outcome struct {
	t       testing.TB
	history []event.Recorded
	changes []event.Change
	err     error
}

// Then checks the outcome against what is expected.
func (o Outcome) Then(want Then) Outcome {
	o.t.Helper()
	Check(o.t, o.changes, o.err, want)
	return o
}

// History is the given history followed by the decided events, to go on
// from (GivenHistory).
func (o Outcome) History() []event.Recorded {
	o.t.Helper()
	return Append(o.t, o.history, o.changes)
}

// Then is the expected outcome of one decision: the events it decides
// (none for NoEvents), or an error of a kind and code with the pointers of
// its failing members.
type Then struct {
	events   []event.Change
	fails    bool
	kind     errs.Kind
	code     string
	pointers []string
}

// Events expects exactly these events, in order.
func Events(changes ...event.Change) Then { return Then{events: changes} }

// NoEvents expects a decision that changes nothing.
func NoEvents() Then { return Then{} }

// Fails expects a refusal of the kind and code, naming these members.
func Fails(kind errs.Kind, code string, pointers ...string) Then {
	return Then{fails: true, kind: kind, code: code, pointers: pointers}
}

// Invalid expects invalid input naming these members, in order.
func Invalid(pointers ...string) Then {
	return Fails(errs.KindInvalidInput, "invalid_input", pointers...)
}

// Conflict expects a conflict of the code.
func Conflict(code string) Then { return Fails(errs.KindConflict, code) }

// NotFound expects a missing object.
func NotFound() Then { return Fails(errs.KindNotFound, "not_found") }

// Check compares a decision's outcome with want: for decisions that are
// not a model's method (a function of several models).
func Check(t testing.TB, got []event.Change, err error, want Then) {
	t.Helper()
	if want.fails {
		checkError(t, got, err, want)
		return
	}
	if err != nil {
		t.Fatalf("want no error, got %v", err)
	}
	if len(want.events) == 0 {
		if len(got) != 0 {
			t.Fatalf("want no events, got %s", Dump(got))
		}
		return
	}
	if !reflect.DeepEqual(got, want.events) {
		t.Fatalf("events:\nwant %s\ngot  %s", Dump(want.events), Dump(got))
	}
	for _, c := range got {
		if _, err := json.Marshal(c.Payload); err != nil {
			t.Errorf("%s payload does not marshal: %v", c.Type, err)
		}
	}
}

func checkError(t testing.TB, got []event.Change, err error, want Then) {
	t.Helper()
	if err == nil {
		t.Fatalf("want error %s, got no error and events %s", want.code, Dump(got))
	}
	if got != nil {
		t.Errorf("want no events with an error, got %s", Dump(got))
	}
	e, typed := errs.As(err)
	if !typed {
		t.Fatalf("want a typed *errs.Error, got %T: %v", err, err)
	}
	if e.Kind != want.kind || e.Code != want.code {
		t.Errorf("want kind %d code %q, got kind %d code %q (%v)", want.kind, want.code, e.Kind, e.Code, err)
	}
	var pointers []string
	for _, f := range e.Fields {
		pointers = append(pointers, f.Pointer)
		if f.Detail == "" {
			t.Errorf("field %s has an empty detail", f.Pointer)
		}
	}
	if !slices.Equal(pointers, want.pointers) {
		t.Errorf("pointers: want %v, got %v", want.pointers, pointers)
	}
}

// Dump shows events with their payloads' Go types, for failure messages.
func Dump(changes []event.Change) string {
	type view struct {
		Type          string
		SchemaVersion int
		PayloadType   string
		Payload       any
		Unique        []event.Unique `json:",omitempty"`
		Timers        []event.Timer  `json:",omitempty"`
	}
	views := make([]view, len(changes))
	for i, c := range changes {
		views[i] = view{c.Type, c.SchemaVersion, fmt.Sprintf("%T", c.Payload), c.Payload, c.Unique, c.Timers}
	}
	b, err := json.Marshal(views)
	if err != nil {
		return err.Error()
	}
	return string(b)
}
