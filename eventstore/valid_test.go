package eventstore_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/platform/backend/eventstore"
)

// validCases are inputs at the edges of the grammar: the check must give
// json.Valid's verdict on each (the fuzz test's seeds).
var validCases = []string{
	``, ` `, `{}`, ` {} `, `{`, `}`, `[]`, `[`, `[1,]`, `[,1]`, `[1 2]`, `{"a":1}`, `{"a":1,}`, `{"a" 1}`, `{a:1}`, `{"a":}`,
	`{"a":1 "b":2}`, `{"a":[1,{"b":null}],"c":"d"}`, `{"a":1}x`, `{"a":1}{}`, `{"a":1} `, "{\"a\":1}\n", "\t[\r\n1\n]\t",
	`"x"`, `"`, `"\"`, `"\\"`, `"\/\b\f\n\r\t"`, `"\u00e9\uD83D\uDE00"`, `"\u00g0"`, `"\u00e"`, `"\x"`, `"\'"`, "\"\x00\"", "\"\x1f\"",
	"\"\x7f\"", "\"\xff\xfe\"", "\"é\"", "\"\u2028\"",
	`0`, `-0`, `00`, `01`, `-`, `-a`, `1.`, `1.5`, `.5`, `1e`, `1e+`, `1e5`, `1E-5`, `1.5e+10`, `-1.0e0`, `1.e5`, `+1`, `0x10`, `1_000`,
	`12345678901234567890123456789`, `1e999`, `-0.0000`, `0e`, `Infinity`, `NaN`,
	`true`, `false`, `null`, `tru`, `nul`, `nulll`, `True`, `[true,false,null]`, `{"a":tru}`,
	strings.Repeat("[", 10000) + strings.Repeat("]", 10000), strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
	strings.Repeat(`{"a":`, 10000) + "1" + strings.Repeat("}", 10000), strings.Repeat(`{"a":`, 10001) + "1" + strings.Repeat("}", 10001),
	strings.Repeat("[", 5) + strings.Repeat("]", 4),
}

// TestValidJSONIsJSONValid: the envelope decoder's payload check gives
// json.Valid's verdict on the grammar's edges and on real payloads.
func TestValidJSONIsJSONValid(t *testing.T) {
	for _, c := range validCases {
		if got, want := eventstore.ValidJSON([]byte(c)), json.Valid([]byte(c)); got != want {
			t.Errorf("%.60q: got %v, json.Valid %v", c, got, want)
		}
	}
}

// FuzzValidJSON: the same verdict as json.Valid for any input.
func FuzzValidJSON(f *testing.F) {
	for _, c := range validCases {
		if len(c) < 100 { // not the deep nests: the fuzzer's mutations of them crawl
			f.Add([]byte(c))
		}
	}
	f.Add([]byte(`{"incident_id":"inc-1","incident_status":"identified","message":"Fixing \"it\" \u00e9","severity":"major","revision":2,` +
		`"occurred_at":"2026-05-02T10:00:00.123456789Z","component_host":null,"weights":[1.5,-2e-3,0]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := eventstore.ValidJSON(b), json.Valid(b); got != want {
			t.Fatalf("%q: got %v, json.Valid %v", b, got, want)
		}
	})
}

// BenchmarkValidPayload is the check of an incident update's payload (the
// envelope decoder's, once an event in the projections' live group):
// encoding/json's scanner against validJSON.
func BenchmarkValidPayload(b *testing.B) {
	payload := []byte(`{"incident_id":"0193a6a0-7c1e-7b7e-9d1a-5a7f3c2b1e00","incident_status":"identified","message":"Update 17 of the load",` +
		`"severity":"major","title":"Errors on the API","revision":17,"occurred_at":"2026-11-27T21:40:01.123456Z","component_host":"api.example.com",` +
		`"component_name":null}`)
	for _, c := range []struct {
		name  string
		valid func([]byte) bool
	}{{"json.Valid", json.Valid}, {"validJSON", eventstore.ValidJSON}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if !c.valid(payload) {
					b.Fatal("invalid")
				}
			}
		})
	}
}
