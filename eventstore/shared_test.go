package eventstore_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/platform/backend/eventstore"
)

// counted counts its decodes.
type counted struct{ N int }

var countedDecodes int

func (c *counted) UnmarshalJSON(b []byte) error {
	countedDecodes++
	var v struct{ N int }
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	c.N = v.N
	return nil
}

// TestSharingDecodesDecodesOncePerType: an event shared by several readers
// (the projections' live group) has its payload decoded once a type,
// every copy of it answering the same value; a type the payload does not
// decode into is tried again by each reader (its own error), another
// payload in a copy is decoded on its own, and an event not shared decodes
// each time, as before.
func TestSharingDecodesDecodesOncePerType(t *testing.T) {
	e := eventstore.Event{Type: "x.y.happened", Payload: []byte(`{"N":7}`)}
	shared := e.SharingDecodes()
	copyOf := shared // a reader's copy, as Reduce(e) takes it
	countedDecodes = 0
	for i, ev := range []eventstore.Event{shared, copyOf, shared} {
		p, err := eventstore.Decode[counted](ev)
		if err != nil || p.N != 7 {
			t.Fatalf("read %d: %+v %v, want N 7", i, p, err)
		}
	}
	if countedDecodes != 1 {
		t.Fatalf("%d decodes for three readers of a shared event, want 1", countedDecodes)
	}
	// Another type of the same payload: its own decode, once.
	for range 2 {
		if m, err := eventstore.Decode[map[string]any](copyOf); err != nil || m["N"] != float64(7) {
			t.Fatalf("as a map: %v %v", m, err)
		}
		if v, err := eventstore.Decode[any](copyOf); err != nil || fmt.Sprint(v) != "map[N:7]" {
			t.Fatalf("as any: %v %v (an interface type is not answered with another type's value)", v, err)
		}
	}
	if countedDecodes != 1 {
		t.Fatalf("%d decodes of counted, want 1", countedDecodes)
	}
	// A failure is not remembered: each reader gets its own error.
	for range 2 {
		if _, err := eventstore.Decode[[]int](shared); err == nil {
			t.Fatal("an object decoded into a slice, want an error")
		}
	}
	// A copy whose payload was replaced reads its own payload.
	redacted := copyOf
	redacted.Payload = []byte(`{"N":8}`)
	if p, err := eventstore.Decode[counted](redacted); err != nil || p.N != 8 {
		t.Fatalf("replaced payload: %+v %v, want N 8", p, err)
	}
	// Not shared: decoded by every reader.
	countedDecodes = 0
	for range 2 {
		if _, err := eventstore.Decode[counted](e); err != nil {
			t.Fatal(err)
		}
	}
	if countedDecodes != 2 {
		t.Fatalf("%d decodes for two readers of an event not shared, want 2", countedDecodes)
	}
}
