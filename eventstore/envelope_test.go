package eventstore_test

import (
	"encoding/json"
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/IBM/sarama"
	"github.com/google/uuid"

	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/internal/jsonenc/jsonenctest"
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

// TestEnvelopeEncodesAsJSONMarshal: the relay's hand-written encoding of the
// envelope is byte for byte json.Marshal's, whatever the strings hold
// (escapes, HTML characters, non-ASCII, invalid UTF-8, line separators),
// with or without the optional members, for times in any zone.
func TestEnvelopeEncodesAsJSONMarshal(t *testing.T) {
	odd := jsonenctest.NastyStrings()
	zone := time.FixedZone("x", -(3*3600 + 30*60))
	times := []time.Time{time.Unix(10, 0).UTC(), time.Date(2026, 11, 27, 1, 2, 3, 123456789, zone), time.Date(2026, 1, 1, 0, 0, 0, 1000, time.Local), {}}
	for i, s := range odd {
		e := eventstore.Event{ID: uuid.Must(uuid.NewV7()), Type: s, SchemaVersion: i, StreamType: "t." + s, StreamID: s + "-id",
			StreamVersion: int64(i*1000 + 1), OrganizationID: s, Actor: eventstore.Actor{ID: s, Type: "user" + s},
			OccurredAt: times[i%len(times)], RecordedAt: times[(i+1)%len(times)], Payload: json.RawMessage(`{"a":[1,2],"b":"x"}`)}
		if i%2 == 0 {
			e.IdempotencyKey, e.CorrelationID, e.CausationID = s, "c"+s, s+"c"
		}
		want, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		m, err := e.ToMessage("t")
		if err != nil {
			t.Fatal(err)
		}
		got, _ := m.Value.Encode()
		if string(got) != string(want) {
			t.Fatalf("event %d:\nencoded      %s\njson.Marshal %s", i, got, want)
		}
	}
	bad := eventstore.Event{ID: uuid.New(), Type: "x", StreamID: "s", StreamVersion: 1, OccurredAt: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}
	if _, err := json.Marshal(bad); err == nil {
		t.Fatal("json.Marshal took a year past 9999")
	}
	if _, err := bad.ToMessage("t"); err == nil {
		t.Fatal("a year json.Marshal refuses was encoded")
	}
}

// TestDecodeEventAsJSONUnmarshal: DecodeEvent's reading of the envelope's
// own layout gives what json.Unmarshal gives, field for field, for
// envelopes as the relay writes them and for every variation of them
// (bytes changed, cut, blanks added, members moved): either the same event
// or an error in both.
func TestDecodeEventAsJSONUnmarshal(t *testing.T) {
	reference := func(value []byte) (eventstore.Event, error) {
		var e eventstore.Event
		if err := json.Unmarshal(value, &e); err != nil {
			return eventstore.Event{}, err
		}
		if e.ID == uuid.Nil || e.Type == "" || e.StreamID == "" || e.StreamVersion < 1 {
			return eventstore.Event{}, errors.New("incomplete")
		}
		return eventstore.Upcast(e)
	}
	same := func(a, b eventstore.Event) bool {
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		return string(ja) == string(jb) && string(a.Payload) == string(b.Payload) &&
			a.OccurredAt.Location().String() == b.OccurredAt.Location().String()
	}
	var values [][]byte
	zone := time.FixedZone("", 2*3600)
	for i, s := range []string{"plain", "org_01HZX", "with space", "été", `q"uote`, "a<b", "tab\there", "\x7f"} {
		e := eventstore.Event{ID: uuid.Must(uuid.NewV7()), Type: "status.incident.updated", SchemaVersion: 1 + i%2, StreamType: "status.incident",
			StreamID: s + "-id", StreamVersion: int64(i + 1), OrganizationID: s, Actor: eventstore.Actor{ID: s, Type: "api_key"},
			OccurredAt: time.Date(2026, 11, 27, 1, 2, 3, i*1000, zone), RecordedAt: time.Unix(int64(i), 5).UTC(),
			Payload: json.RawMessage(`{"a":[1,2.5,"x"],"b":{"c":null}}`)}
		if i%3 == 0 {
			e.IdempotencyKey, e.CorrelationID = "k"+s, "c"
		}
		if i%3 == 1 {
			e.CausationID = "cause"
		}
		m, err := e.ToMessage("t")
		if err != nil {
			t.Fatal(err)
		}
		v, _ := m.Value.Encode()
		values = append(values, v)
	}
	rnd := rand.New(rand.NewPCG(1, 2))
	variants := slices.Clone(values)
	for _, v := range values {
		for range 300 {
			w := slices.Clone(v)
			switch rnd.IntN(6) {
			case 0:
				w[rnd.IntN(len(w))] = "0123456789\"\\{}[],: -.aeEx\x00\xff"[rnd.IntN(25)]
			case 1:
				w = w[:rnd.IntN(len(w))]
			case 2:
				i := rnd.IntN(len(w))
				w = slices.Insert(w, i, ' ')
			case 3:
				w = append(w, ' ')
			case 4:
				w = []byte(strings.Replace(string(w), `"type":`, `"TYPE":`, 1))
			case 5:
				w = []byte(strings.Replace(string(w), `"stream_version":`, `"stream_version":0`, 1))
			}
			variants = append(variants, w)
		}
	}
	variants = append(variants, []byte(`{"event_id":"`+uuid.NewString()+`","type":"x","schema_version":1,"stream_type":"s","stream_id":"s","stream_version":1,"organization_id":"o","actor":{"id":"a","type":"b"},"occurred_at":"2026-01-01T00:00:00Z","recorded_at":"2026-01-01T00:00:00Z","payload":null}`))
	for i, v := range variants {
		got, gotErr := eventstore.DecodeEvent(v)
		want, wantErr := reference(v)
		if (gotErr == nil) != (wantErr == nil) || !same(got, want) {
			t.Fatalf("variant %d %q:\nDecodeEvent   %+v (%v)\njson.Unmarshal %+v (%v)", i, v, got, gotErr, want, wantErr)
		}
	}
}
