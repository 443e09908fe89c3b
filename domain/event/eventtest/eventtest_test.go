package eventtest_test

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/domain/event/eventtest"
)

// door is a toy write model: open or closed.
type door struct{ open bool }

type openedV1 struct {
	By string `json:"by"`
}

var doorFold = event.Fold[*door]{
	"door.opened": event.Apply(func(d *door, _ openedV1) { d.open = true }),
	"door.closed": event.Mark(func(d *door) { d.open = false }),
}

func loadDoor(h []event.Recorded) (*door, error) { return doorFold.Load(&door{}, h) }

func (d *door) Open(by string) ([]event.Change, error) {
	switch {
	case by == "":
		return nil, errs.InvalidField("/by", "who opens the door")
	case d.open:
		return nil, nil
	}
	return []event.Change{event.New("door.opened", openedV1{By: by})}, nil
}

func (d *door) Close() ([]event.Change, error) {
	if !d.open {
		return nil, errs.Conflict("door_closed", "the door is closed")
	}
	return []event.Change{event.New("door.closed", struct{}{})}, nil
}

func TestGivenWhenThen(t *testing.T) {
	opened := event.New("door.opened", openedV1{By: "ann"})
	tests := []struct {
		name  string
		given []event.Change
		when  func(*door) ([]event.Change, error)
		then  eventtest.Then
	}{
		{name: "opening a closed door", when: func(d *door) ([]event.Change, error) { return d.Open("ann") }, then: eventtest.Events(opened)},
		{name: "opening an open door", given: []event.Change{opened}, when: func(d *door) ([]event.Change, error) { return d.Open("bob") },
			then: eventtest.NoEvents()},
		{name: "nobody opens", when: func(d *door) ([]event.Change, error) { return d.Open("") }, then: eventtest.Invalid("/by")},
		{name: "closing a closed door", when: (*door).Close, then: eventtest.Conflict("door_closed")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			eventtest.Given(t, loadDoor, tt.given...).When(tt.when).Then(tt.then)
		})
	}
}

func TestOutcomeHistoryGoesOn(t *testing.T) {
	first := eventtest.Given(t, loadDoor).When(func(d *door) ([]event.Change, error) { return d.Open("ann") })
	history := first.History()
	if len(history) != 1 || history[0].Version != 1 || string(history[0].Payload) != `{"by":"ann"}` {
		t.Fatalf("history %+v", history)
	}
	next := eventtest.GivenHistory(t, loadDoor, history)
	if !next.Model().open {
		t.Fatal("the next decision starts from the first one's events")
	}
	next.When((*door).Close).Then(eventtest.Events(event.New("door.closed", struct{}{})))
}

// recorder is a testing.TB that keeps what a check reports.
type recorder struct {
	testing.TB
	failures []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.failures = append(r.failures, fmt.Sprintf(format, args...))
}
func (r *recorder) Fatalf(format string, args ...any) {
	r.Errorf(format, args...)
	runtime.Goexit()
}

// failures runs a check and returns what it reported.
func failures(check func(testing.TB)) []string {
	r := &recorder{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		check(r)
	}()
	<-done
	return r.failures
}

func TestChecksReportMismatches(t *testing.T) {
	opened := event.New("door.opened", openedV1{By: "ann"})
	tests := []struct {
		name string
		got  []event.Change
		err  error
		want eventtest.Then
		says string
	}{
		{name: "other payload", got: []event.Change{event.New("door.opened", openedV1{By: "bob"})}, want: eventtest.Events(opened), says: "events:"},
		{name: "events where none are expected", got: []event.Change{opened}, want: eventtest.NoEvents(), says: "want no events"},
		{name: "an error where events are expected", err: errs.Conflict("x", "x"), want: eventtest.Events(opened), says: "want no error"},
		{name: "no error where one is expected", got: []event.Change{opened}, want: eventtest.Conflict("door_closed"), says: "want error door_closed"},
		{name: "another code", err: errs.Conflict("other", "x"), want: eventtest.Conflict("door_closed"), says: `code "door_closed"`},
		{name: "other pointers", err: errs.InvalidField("/name", "x"), want: eventtest.Invalid("/by"), says: "pointers"},
		{name: "an untyped error", err: fmt.Errorf("boom"), want: eventtest.NotFound(), says: "typed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := failures(func(tb testing.TB) { eventtest.Check(tb, tt.got, tt.err, tt.want) })
			if len(got) == 0 || !strings.Contains(strings.Join(got, "\n"), tt.says) {
				t.Fatalf("want a failure saying %q, got %q", tt.says, got)
			}
		})
	}
}
