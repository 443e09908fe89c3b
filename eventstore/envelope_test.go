package eventstore_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/IBM/sarama"
	"github.com/google/uuid"

	"github.com/platform/backend/eventstore"
)

func TestEnvelopeRoundTrip(t *testing.T) {
	e := eventstore.Event{ID: uuid.Must(uuid.NewV7()), Type: "test.thing.happened", SchemaVersion: 1, StreamType: "test.thing",
		StreamID: "s1", StreamVersion: 3, OrganizationID: "o1", Actor: eventstore.Actor{ID: "a", Type: "user"},
		OccurredAt: time.Unix(10, 0).UTC(), RecordedAt: time.Unix(11, 0).UTC(), CorrelationID: "c", Payload: json.RawMessage(`{"x":1}`)}
	msg, err := e.ToMessage("topic")
	if err != nil {
		t.Fatal(err)
	}
	if k, _ := msg.Key.Encode(); string(k) != "s1" {
		t.Fatalf("key %q, want the stream id", k)
	}
	headers := map[string]string{}
	for _, h := range msg.Headers {
		headers[string(h.Key)] = string(h.Value)
	}
	if headers[eventstore.HeaderEventID] != e.ID.String() || headers[eventstore.HeaderStreamVersion] != "3" {
		t.Fatalf("headers %v", headers)
	}
	value, _ := msg.Value.Encode()
	got, err := eventstore.DecodeEvent(value)
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != e.ID || got.StreamVersion != 3 || string(got.Payload) != `{"x":1}` || got.Actor != e.Actor {
		t.Fatalf("round trip: %+v", got)
	}
	var _ *sarama.ProducerMessage = msg
}

func TestDecodeRejectsIncompleteEnvelopes(t *testing.T) {
	for _, v := range []string{`not json`, `{}`, `{"event_id":"` + uuid.NewString() + `","type":"x","stream_id":"s"}`} {
		if _, err := eventstore.DecodeEvent([]byte(v)); err == nil {
			t.Fatalf("%s: want an error", v)
		}
	}
}

// Old payload versions are upcast on read, step by step, to the newest.
func TestUpcastChain(t *testing.T) {
	typ := "test.upcast." + uuid.NewString()
	eventstore.RegisterUpcaster(typ, 1, func(p json.RawMessage) (json.RawMessage, error) {
		var v map[string]any
		_ = json.Unmarshal(p, &v)
		v["name"] = v["title"]
		delete(v, "title")
		return json.Marshal(v)
	})
	eventstore.RegisterUpcaster(typ, 2, func(p json.RawMessage) (json.RawMessage, error) {
		var v map[string]any
		_ = json.Unmarshal(p, &v)
		v["tags"] = []string{}
		return json.Marshal(v)
	})
	got, err := eventstore.Upcast(eventstore.Event{Type: typ, SchemaVersion: 1, Payload: json.RawMessage(`{"title":"a"}`)})
	if err != nil {
		t.Fatal(err)
	}
	if got.SchemaVersion != 3 || string(got.Payload) != `{"name":"a","tags":[]}` {
		t.Fatalf("got v%d %s", got.SchemaVersion, got.Payload)
	}
}

func TestPosition(t *testing.T) {
	p, err := eventstore.ParsePosition("component:org@x:api@12")
	if err != nil || p.StreamID != "component:org@x:api" || p.Version != 12 {
		t.Fatalf("%+v %v", p, err)
	}
	for _, bad := range []string{"", "abc", "@3", "s@0", "s@-1", "s@x"} {
		if _, err := eventstore.ParsePosition(bad); err == nil {
			t.Fatalf("%q: want an error", bad)
		}
	}
}

// TestPositions: a command's positions are written as an HTTP list and read
// back; one position reads as it always did; a stream named twice keeps its
// later version.
func TestPositions(t *testing.T) {
	ps := eventstore.Positions{{StreamID: "a", Version: 2}}.Add(eventstore.Position{StreamID: "component:org@x:api", Version: 3}).
		Add(eventstore.Position{StreamID: "a", Version: 5}).Add(eventstore.Position{StreamID: "a", Version: 1})
	if got := ps.String(); got != "a@5, component:org@x:api@3" {
		t.Fatalf("written %q", got)
	}
	back, err := eventstore.ParsePositions(ps.String())
	if err != nil || len(back) != 2 || back[0] != ps[0] || back[1] != ps[1] {
		t.Fatalf("read back %+v %v", back, err)
	}
	if one, err := eventstore.ParsePositions("s@7"); err != nil || len(one) != 1 || one[0] != (eventstore.Position{StreamID: "s", Version: 7}) {
		t.Fatalf("one position: %+v %v", one, err)
	}
	for _, bad := range []string{"", "a@1,", "a@1,,b@2", "a@1, b", strings.Repeat("a@1,", eventstore.MaxPositions) + "a@1"} {
		if _, err := eventstore.ParsePositions(bad); err == nil {
			t.Fatalf("%q: want an error", bad)
		}
	}
}

// TestEnvelopeSplicesThePayload: the relay's encoding is json.Marshal's for
// a compact payload, and any payload PostgreSQL gives (jsonb's text has
// blanks) reads back the same.
func TestEnvelopeSplicesThePayload(t *testing.T) {
	value := func(e eventstore.Event) []byte {
		m, err := e.ToMessage("t")
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := m.Value.Encode()
		return raw
	}
	e := eventstore.Event{ID: uuid.Must(uuid.NewV7()), Type: "status.incident.created", SchemaVersion: 1, StreamType: "status.incident",
		StreamID: "s", StreamVersion: 1, OrganizationID: "o", Payload: json.RawMessage(`{"a":[1,2],"b":"x"}`)}
	want, _ := json.Marshal(e)
	if got := value(e); string(got) != string(want) {
		t.Fatalf("encoded %s, json.Marshal %s", got, want)
	}
	e.Payload = json.RawMessage(`{"a": [1, 2], "b": "x"}`)
	back, err := eventstore.DecodeEvent(value(e))
	if err != nil || string(back.Payload) != string(e.Payload) || back.ID != e.ID {
		t.Fatalf("decoded %+v %v", back, err)
	}
	e.Payload = nil
	if got := value(e); !strings.HasSuffix(string(got), `"payload":null}`) {
		t.Fatalf("no payload: %s", got)
	}
}
