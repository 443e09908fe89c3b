package status_test

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
)

// t0 is the fixed "now" of every test; the domain never reads the clock.
var t0 = time.Date(2026, 5, 2, 10, 0, 0, 0, time.UTC)

// rec is one stored event of a given history: the payload struct is
// marshalled exactly as the event store would hold it.
func rec(typ string, payload any) event.Recorded {
	raw, err := json.Marshal(payload)
	if err != nil {
		panic(err)
	}
	return event.Recorded{Type: typ, SchemaVersion: 1, Payload: raw}
}

// given numbers the events of a history from 1, as a stream does.
func given(rs ...event.Recorded) []event.Recorded {
	out := make([]event.Recorded, len(rs))
	for i, r := range rs {
		r.Version = int64(i + 1)
		out[i] = r
	}
	return out
}

// appendChanges records the decided changes after history, as the store
// would, so that the next decision reads them back.
func appendChanges(t *testing.T, history []event.Recorded, changes []event.Change) []event.Recorded {
	t.Helper()
	out := append([]event.Recorded(nil), history...)
	for _, c := range changes {
		raw, err := json.Marshal(c.Payload)
		if err != nil {
			t.Fatalf("marshal %s payload: %v", c.Type, err)
		}
		out = append(out, event.Recorded{
			Type: c.Type, SchemaVersion: c.SchemaVersion, Version: int64(len(out) + 1), Payload: raw,
		})
	}
	return out
}

// then is the expected outcome of one decision: either the changes (nil
// means "no events") or an error of the given kind, code and pointers.
type then struct {
	changes  []event.Change
	kind     errs.Kind
	code     string
	pointers []string
}

func (w then) wantsError() bool { return w.code != "" }

func ok(changes ...event.Change) then { return then{changes: changes} }

func noEvents() then { return then{} }

func invalid(pointers ...string) then {
	return then{kind: errs.KindInvalidInput, code: "invalid_input", pointers: pointers}
}

func conflict(code string) then { return then{kind: errs.KindConflict, code: code} }

func notFound() then { return then{kind: errs.KindNotFound, code: "not_found"} }

func check(t *testing.T, got []event.Change, err error, want then) {
	t.Helper()
	if want.wantsError() {
		if err == nil {
			t.Fatalf("want error %s (kind %d), got no error and changes %s", want.code, want.kind, dump(got))
		}
		if got != nil {
			t.Errorf("want no changes with an error, got %s", dump(got))
		}
		if k := errs.KindOf(err); k != want.kind {
			t.Errorf("kind: want %d, got %d (%v)", want.kind, k, err)
		}
		e, isTyped := errs.As(err)
		if !isTyped {
			t.Fatalf("want a typed *errs.Error, got %T: %v", err, err)
		}
		if e.Code != want.code {
			t.Errorf("code: want %q, got %q (%v)", want.code, e.Code, err)
		}
		var ptrs []string
		for _, f := range e.Fields {
			ptrs = append(ptrs, f.Pointer)
			if f.Detail == "" {
				t.Errorf("field %s has an empty detail", f.Pointer)
			}
		}
		if !reflect.DeepEqual(ptrs, want.pointers) {
			t.Errorf("pointers: want %v, got %v", want.pointers, ptrs)
		}
		return
	}
	if err != nil {
		t.Fatalf("want no error, got %v", err)
	}
	if len(want.changes) == 0 {
		if len(got) != 0 {
			t.Fatalf("want no events, got %s", dump(got))
		}
		return
	}
	if !reflect.DeepEqual(got, want.changes) {
		t.Fatalf("changes:\nwant %s\ngot  %s", dump(want.changes), dump(got))
	}
	for _, c := range got {
		if _, err := json.Marshal(c.Payload); err != nil {
			t.Errorf("%s payload does not marshal: %v", c.Type, err)
		}
	}
}

func dump(cs []event.Change) string {
	if cs == nil {
		return "[]"
	}
	type view struct {
		Type          string
		SchemaVersion int
		PayloadType   string
		Payload       any
	}
	vs := make([]view, len(cs))
	for i, c := range cs {
		vs[i] = view{c.Type, c.SchemaVersion, reflect.TypeOf(c.Payload).String(), c.Payload}
	}
	b, _ := json.Marshal(vs)
	return string(b)
}

func ptr(s string) *string { return &s }

// v1 is an expected change at schema version 1, spelled out rather than
// built with event.New so that the version is checked too.
func v1(typ string, payload any) event.Change {
	return event.Change{Type: typ, SchemaVersion: 1, Payload: payload}
}
