package notifications

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"
	"time"

	"github.com/platform/backend/internal/jsonenc/jsonenctest"
)

// TestAppendEnvelopeIsMarshal: the projection's envelope encoding writes
// exactly json.Marshal's bytes for every kind of payload value, and
// refuses what json.Marshal refuses (the caller then takes json.Marshal's
// verdict and error).
func TestAppendEnvelopeIsMarshal(t *testing.T) {
	s := "x<y"
	n := 7
	at := time.Date(2026, 5, 2, 10, 15, 0, 123456789, time.UTC)
	payloads := []map[string]any{
		nil,
		{},
		{"title": "t", "revision": 2, "component_host": (*string)(nil), "component_name": &s, "n": &n, "none": (*int)(nil)},
		{"b": true, "f": false, "i64": int64(math.MinInt64), "i32": int32(-5), "u64": uint64(math.MaxUint64), "nil": nil},
		{"float": 2.5, "big": 1e21, "small": 1e-7, "whole": 3.0, "neg0": math.Copysign(0, -1)},
		{"ids": []string{"a", "b<"}, "none": []string(nil), "empty": []string{}, "any": []any{1, "x", nil, 2.5}},
		{"payload": map[string]any{"z": 1, "a": map[string]any{"deep": "er"}, "nilmap": map[string]any(nil)}},
		{"time": at, "struct": struct {
			A int    `json:"a"`
			B string `json:"b"`
		}{1, "<"}, "raw": json.RawMessage(`{ "spaced" : "<x>" }`), "num": json.Number("12")},
		{"strs": map[string]string{"k": "v"}, "ints": []int{1, 2}},
	}
	for _, str := range jsonenctest.NastyStrings() {
		payloads = append(payloads, map[string]any{str: str, "p": &str, "list": []string{str}})
	}
	envs := []Envelope{
		{Type: "status.incident.updated", Version: 1, IdempotencyKey: "status:incident:inc1:rev:2", OrganizationID: "org-1",
			Recipients: Recipients{Mode: "organization_member", ExternalAddresses: "forbidden"}, DataClassification: "internal",
			SensitiveFields: []string{}, SourceEventID: "0190", EmittedAt: at},
		{Type: "a&b", SensitiveFields: []string{"error", "<x>"}, EmittedAt: time.Date(1, 1, 1, 0, 0, 0, 0, time.FixedZone("", 5*3600+30*60))},
		{SensitiveFields: nil, EmittedAt: time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.FixedZone("", -(23*3600+59*60)))},
	}
	for _, str := range jsonenctest.NastyStrings() {
		envs = append(envs, Envelope{Type: str, IdempotencyKey: str, OrganizationID: str, SourceEventID: str, DataClassification: str,
			Recipients: Recipients{Mode: str, ExternalAddresses: str}, SensitiveFields: []string{str}, EmittedAt: at})
	}
	for _, env := range envs {
		for _, p := range payloads {
			want, err := json.Marshal(outgoing{Envelope: env, Payload: p})
			if err != nil {
				t.Fatal(err)
			}
			got, err := appendEnvelope(nil, &env, p)
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("appendEnvelope: %v\n got %s\nwant %s", err, got, want)
			}
		}
	}

	refused := []struct {
		env     Envelope
		payload map[string]any
	}{
		{Envelope{EmittedAt: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}, nil},
		{Envelope{EmittedAt: time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC)}, nil},
		{Envelope{EmittedAt: time.Date(2026, 1, 1, 0, 0, 0, 0, time.FixedZone("", 24*3600))}, nil},
		{Envelope{EmittedAt: at}, map[string]any{"c": make(chan int)}},
		{Envelope{EmittedAt: at}, map[string]any{"nan": math.NaN()}},
		{Envelope{EmittedAt: at}, map[string]any{"deep": map[string]any{"inf": math.Inf(1)}}},
	}
	for _, r := range refused {
		if _, err := json.Marshal(outgoing{Envelope: r.env, Payload: r.payload}); err == nil {
			t.Fatalf("json.Marshal accepts %+v", r)
		}
		if got, err := appendEnvelope(nil, &r.env, r.payload); err == nil {
			t.Fatalf("appendEnvelope accepts what json.Marshal refuses: %s", got)
		}
	}
}
