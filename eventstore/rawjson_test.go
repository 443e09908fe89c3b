package eventstore_test

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/platform/backend/eventstore"
)

// encodeCases are values a decision may hold: json.RawMessages at the edges
// of what json.Marshal leaves unchanged, and values it encodes itself.
var encodeCases = []any{
	json.RawMessage(`{"incident_id":"inc-1","message":"Fixing it, step 2: the database","revision":2,"host":null}`),
	json.RawMessage(`{"a": 1}`), json.RawMessage(" {\"a\":1}"), json.RawMessage("{\"a\":1}\n"), json.RawMessage("[1,\t2]"),
	json.RawMessage("{\"a\":\r1}"), json.RawMessage(`"a b  c"`), json.RawMessage(`["\\", 1]`), json.RawMessage(`["\\",1]`),
	json.RawMessage(`["\"", 1]`), json.RawMessage(`["\" ",1]`), json.RawMessage(`"\u0022 "`), json.RawMessage(`{"\\":" "}`),
	json.RawMessage(`"<b>"`), json.RawMessage(`"a & b"`), json.RawMessage(`"a>b"`), json.RawMessage(`"\u003c"`),
	json.RawMessage("\"\u2028\""), json.RawMessage("\"\u2029\""), json.RawMessage("\"\u2027\u202a\u20ac\""),
	json.RawMessage("\"\xe2\x80\""), json.RawMessage("\"\xff\xfe\""), json.RawMessage("\"é\""),
	json.RawMessage(`{`), json.RawMessage(`{"a":1}x`), json.RawMessage(`nul`), json.RawMessage(``), json.RawMessage(nil),
	json.RawMessage(`null`), json.RawMessage(`1e5`), json.RawMessage(`-0.5`), json.RawMessage(`true`), json.RawMessage(`[]`),
	map[string]any{"b": "<x>", "a": 1}, struct {
		At time.Time `json:"at"`
	}{time.Date(2026, 11, 28, 3, 0, 0, 0, time.UTC)}, "a < b", nil, []byte("bytes"),
}

// TestEncodeJSONIsMarshal: the store's encoding of a decision's values is
// json.Marshal's, bytes and verdict, whether or not it passes a
// json.RawMessage through.
func TestEncodeJSONIsMarshal(t *testing.T) {
	for _, v := range encodeCases {
		got, gotErr := eventstore.EncodeJSON(v)
		want, wantErr := json.Marshal(v)
		if (gotErr == nil) != (wantErr == nil) || !bytes.Equal(got, want) {
			t.Errorf("%#v: got %q, %v; json.Marshal %q, %v", v, got, gotErr, want, wantErr)
		}
	}
}

// TestEncodeJSONPassesARawMessageThrough: an already encoded value (what
// commands.Run hands the store) is neither scanned by encoding/json nor
// copied.
func TestEncodeJSONPassesARawMessageThrough(t *testing.T) {
	raw := json.RawMessage(`{"incident_id":"inc-1","message":"Fixing it, step 2","revision":2,"host":null}`)
	var got []byte
	var v any = raw // as a Decision holds it
	if allocs := testing.AllocsPerRun(100, func() { got, _ = eventstore.EncodeJSON(v) }); allocs != 0 {
		t.Errorf("%v allocations an encoding, want 0", allocs)
	}
	if &got[0] != &raw[0] {
		t.Error("the encoding is a copy, not the value's bytes")
	}
}

// FuzzEncodeJSONIsMarshal: json.Marshal's bytes and verdict for any bytes
// as a json.RawMessage.
func FuzzEncodeJSONIsMarshal(f *testing.F) {
	for _, v := range encodeCases {
		if raw, ok := v.(json.RawMessage); ok {
			f.Add([]byte(raw))
		}
	}
	for _, c := range validCases {
		if len(c) < 100 {
			f.Add([]byte(c))
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, gotErr := eventstore.EncodeJSON(json.RawMessage(b))
		want, wantErr := json.Marshal(json.RawMessage(b))
		if (gotErr == nil) != (wantErr == nil) || !bytes.Equal(got, want) {
			t.Fatalf("%q: got %q, %v; json.Marshal %q, %v", b, got, gotErr, want, wantErr)
		}
	})
}

// BenchmarkEncodeResult is the store's encoding of an incident update's
// answer, already encoded by commands.Run: json.Marshal against encodeJSON.
func BenchmarkEncodeResult(b *testing.B) {
	raw := json.RawMessage(`{"incident_id":"0193a6a0-7c1e-7b7e-9d1a-5a7f3c2b1e00","title":"Errors on the API","message":"Update 17 of the load",` +
		`"severity":"major","status":"identified","revision":17,"component_host":"api.example.com","component_name":null,` +
		`"created_at":"2026-11-27T21:40:01.123456Z","updated_at":"2026-11-27T21:42:11.654321Z"}`)
	var v any = raw
	for _, c := range []struct {
		name   string
		encode func(any) ([]byte, error)
	}{{"json.Marshal", json.Marshal}, {"encodeJSON", eventstore.EncodeJSON}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.encode(v); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
