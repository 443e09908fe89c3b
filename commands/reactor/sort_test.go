package reactor

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/IBM/sarama"
	"github.com/google/uuid"

	"github.com/platform/backend/eventstore"
)

// kinds is a Selector of two types (plain: the same without Select).
type kinds struct {
	selects map[string]bool
	err     error
	asked   [][]string // with record
	record  bool
}

func (*kinds) Name() string                                  { return "rtest.kinds" }
func (*kinds) Contexts() []string                            { return []string{"rtest"} }
func (*kinds) Types() []string                               { return []string{"rtest.a.done", "rtest.b.done"} }
func (*kinds) React(context.Context, eventstore.Event) error { return nil }
func (k *kinds) Select(_ context.Context, types []string) (map[string]bool, error) {
	if k.record {
		k.asked = append(k.asked, append([]string(nil), types...))
	}
	return k.selects, k.err
}

type plain struct{}

func (plain) Name() string                                  { return "rtest.plain" }
func (plain) Contexts() []string                            { return []string{"rtest"} }
func (plain) Types() []string                               { return []string{"rtest.a.done", "rtest.b.done"} }
func (plain) React(context.Context, eventstore.Event) error { return nil }

func handlerOf(re Reactor) *handler {
	types := map[string]string{}
	for _, t := range re.Types() {
		types[t] = t
	}
	return &handler{re: re, types: types}
}

// record is the consumer's view of an event the relay published; with
// untyped, without its type header (a record written before the headers).
func record(t *testing.T, typ string, offset int64, untyped bool) *sarama.ConsumerMessage {
	t.Helper()
	e := eventstore.Event{ID: uuid.Must(uuid.NewV7()), Type: typ, SchemaVersion: 1, StreamType: "rtest.thing", StreamID: "s1",
		StreamVersion: offset + 1, OrganizationID: "o1", Actor: eventstore.Actor{ID: "a", Type: "user"},
		OccurredAt: time.Unix(10, 0).UTC(), RecordedAt: time.Unix(11, 0).UTC(), Payload: json.RawMessage(`{"x":1}`)}
	pm, err := e.ToMessage("rtest")
	if err != nil {
		t.Fatal(err)
	}
	value, _ := pm.Value.Encode()
	msg := &sarama.ConsumerMessage{Topic: "rtest", Offset: offset, Value: value}
	for _, hd := range pm.Headers {
		if untyped && string(hd.Key) == eventstore.HeaderEventType {
			continue
		}
		msg.Headers = append(msg.Headers, &hd)
	}
	return msg
}

// A batch is sorted as the records' type headers say: other types pass
// undecoded, the reactor's are decoded (for a Selector, those it selected
// for the batch, asked once with the batch's types of the reactor's), a
// record without the header is decoded to tell, an unreadable one is
// handed on to be parked; a failed Select takes every type.
func TestSortTakesTheReactorsSelectedTypes(t *testing.T) {
	batch := []*sarama.ConsumerMessage{record(t, "rtest.other.done", 0, false), record(t, "rtest.a.done", 1, false),
		record(t, "rtest.b.done", 2, false), record(t, "rtest.b.done", 3, true), record(t, "rtest.other.done", 4, true),
		record(t, "rtest.a.done", 5, false)}
	broken := record(t, "rtest.a.done", 6, false)
	broken.Value = []byte("not json")
	batch = append(batch, broken)
	offsets := func(s *sorted) (handled, mine []int64) {
		for _, d := range s.records {
			handled = append(handled, d.msg.Offset)
			if d.mine != (d.err == nil && (d.ev.Type == "rtest.a.done" || d.ev.Type == "rtest.b.done")) {
				t.Fatalf("record %d: mine %v for %s", d.msg.Offset, d.mine, d.ev.Type)
			}
		}
		for _, e := range s.mine {
			mine = append(mine, e.StreamVersion-1)
		}
		return handled, mine
	}
	for _, c := range []struct {
		name          string
		re            Reactor
		handled, mine []int64
	}{
		{"every type", plain{}, []int64{1, 2, 3, 4, 5, 6}, []int64{1, 2, 3, 5}},
		{"selected a", &kinds{selects: map[string]bool{"rtest.a.done": true}, record: true}, []int64{1, 3, 4, 5, 6}, []int64{1, 3, 5}},
		{"selected none", &kinds{selects: nil, record: true}, []int64{3, 4}, []int64{3}},
		{"failed select", &kinds{err: errors.New("down"), record: true}, []int64{1, 2, 3, 4, 5, 6}, []int64{1, 2, 3, 5}},
	} {
		var s sorted
		h := handlerOf(c.re)
		for range 2 { // the buffers kept from one batch to the next change nothing
			s.sort(context.Background(), h, batch)
			handled, mine := offsets(&s)
			if !slices.Equal(handled, c.handled) || !slices.Equal(mine, c.mine) {
				t.Fatalf("%s: handled %v, mine %v; want %v, %v", c.name, handled, mine, c.handled, c.mine)
			}
			s.release()
		}
		if k, ok := c.re.(*kinds); ok {
			if len(k.asked) != 2 {
				t.Fatalf("%s: asked %d times for 2 batches", c.name, len(k.asked))
			}
			for _, asked := range k.asked {
				if !slices.Equal(asked, []string{"rtest.a.done", "rtest.b.done"}) {
					t.Fatalf("%s: asked %v", c.name, asked)
				}
			}
		}
	}
}

// Every reactor reads every record of its topics, and most are of other
// types (the status topic's incident updates for the auto-incident reactor
// and for the event triggers when no flow names them): telling so costs no
// allocation, a batch's buffers are the claim's.
func TestSortPassesOtherTypesWithoutAllocating(t *testing.T) {
	batch := make([]*sarama.ConsumerMessage, 50)
	for i := range batch {
		batch[i] = record(t, "rtest.other.done", int64(i), false)
	}
	selector := &kinds{selects: map[string]bool{}}
	unselected := make([]*sarama.ConsumerMessage, 50)
	for i := range unselected {
		unselected[i] = record(t, "rtest.b.done", int64(i), false)
	}
	for _, c := range []struct {
		name  string
		re    Reactor
		batch []*sarama.ConsumerMessage
	}{
		{"other types", plain{}, batch},
		{"other types, a selector", selector, batch},
		{"types the selector did not select", selector, unselected},
	} {
		h := handlerOf(c.re)
		var s sorted
		s.sort(context.Background(), h, c.batch)
		s.release()
		if n := testing.AllocsPerRun(100, func() {
			s.sort(context.Background(), h, c.batch)
			s.release()
		}); n != 0 || len(s.records) != 0 {
			t.Fatalf("%s: %.1f allocations a batch of %d records, %d to handle", c.name, n, len(c.batch), len(s.records))
		}
	}
}
