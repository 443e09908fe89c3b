package event_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/platform/backend/domain/event"
)

// counter is a tiny write model: a name, a total and what happened.
type counter struct {
	name  string
	total int
	log   []string
}

type addedV1 struct {
	By int `json:"by"`
}

type namedV1 struct {
	Name string `json:"name"`
}

var counterFold = event.Fold[*counter]{
	event.SnapshotType: event.Apply(func(c *counter, s struct {
		Name  string `json:"name"`
		Total int    `json:"total"`
	}) {
		c.name, c.total = s.Name, s.Total
	}),
	"counter.named": event.Apply(func(c *counter, p namedV1) { c.name = p.Name }),
	"counter.added": event.Apply(func(c *counter, p addedV1) { c.total += p.By }),
	"counter.reset": event.Mark(func(c *counter) { c.total = 0 }),
}

func recorded(typ string, payload string) event.Recorded {
	return event.Recorded{Type: typ, SchemaVersion: 1, Payload: json.RawMessage(payload)}
}

func TestFoldLoad(t *testing.T) {
	tests := []struct {
		name    string
		history []event.Recorded
		want    counter
		wantErr bool
	}{
		{name: "empty history", want: counter{}},
		{
			name:    "typed payloads in order",
			history: []event.Recorded{recorded("counter.named", `{"name":"a"}`), recorded("counter.added", `{"by":2}`), recorded("counter.added", `{"by":3}`)},
			want:    counter{name: "a", total: 5},
		},
		{
			name:    "a mark does not read its payload",
			history: []event.Recorded{recorded("counter.added", `{"by":2}`), recorded("counter.reset", `not json`)},
			want:    counter{},
		},
		{
			name:    "types the table does not name change nothing",
			history: []event.Recorded{recorded("counter.added", `{"by":2}`), recorded("counter.renamed_elsewhere", `{"by":9}`)},
			want:    counter{total: 2},
		},
		{
			name:    "a snapshot stands for the events before it",
			history: []event.Recorded{recorded(event.SnapshotType, `{"name":"s","total":40}`), recorded("counter.added", `{"by":2}`)},
			want:    counter{name: "s", total: 42},
		},
		{
			name:    "a payload that does not decode fails the load",
			history: []event.Recorded{recorded("counter.added", `{"by":"two"}`)},
			wantErr: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := counterFold.Load(&counter{}, tt.history)
			if tt.wantErr {
				if err == nil || got != nil {
					t.Fatalf("want an error and no model, got %v, %v", got, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(*got, tt.want) {
				t.Fatalf("got %+v, want %+v", *got, tt.want)
			}
		})
	}
}

func TestFoldApplyChanges(t *testing.T) {
	c := &counter{total: 1}
	err := counterFold.ApplyChanges(c, []event.Change{event.New("counter.added", addedV1{By: 4}), event.New("counter.named", namedV1{Name: "b"})})
	if err != nil {
		t.Fatal(err)
	}
	if c.total != 5 || c.name != "b" {
		t.Fatalf("got %+v", *c)
	}
	if err := counterFold.ApplyChanges(c, []event.Change{event.New("counter.added", func() {})}); err == nil {
		t.Fatal("a payload that does not encode is an error")
	}
}

func TestFoldWithRunsBothStepsInOrder(t *testing.T) {
	logged := func(what string) event.Step[*counter] {
		return event.Mark(func(c *counter) { c.log = append(c.log, what) })
	}
	first := event.Fold[*counter]{"x.shared": logged("first"), "x.own": logged("own")}
	second := event.Fold[*counter]{"x.shared": logged("second"), "x.more": logged("more")}
	got, err := first.With(second).Load(&counter{}, []event.Recorded{
		recorded("x.shared", `{}`), recorded("x.own", `{}`), recorded("x.more", `{}`),
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"first", "second", "own", "more"}; !reflect.DeepEqual(got.log, want) {
		t.Fatalf("got %v, want %v", got.log, want)
	}
	if len(first) != 2 || len(second) != 2 {
		t.Fatal("With leaves its operands as they were")
	}
}
