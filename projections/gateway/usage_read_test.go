package gateway

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	domain "github.com/platform/backend/domain/gateway"
	"github.com/platform/backend/domain/gateway/prices"
	"github.com/platform/backend/eventstore"
)

// fullUsage has every member of UsageRecordedV1 and of its units set (a
// test checks so): a member added to either shows in its layout.
func fullUsage() domain.UsageRecordedV1 {
	return domain.UsageRecordedV1{RequestID: "0e0c8a0e-8f9b-4a57-9d53-7e2f3c1d9b10", PrincipalID: "key-1", PrincipalType: "api_key", UserID: "user-1",
		AppID: "app", UseCase: "chat", Action: "ai.completions", Provider: "ai_provider_1", Model: "gpt-4o-mini", Operation: prices.OpChat,
		ConnectionID: "sandbox", BYOK: true, Units: prices.Units{InputTokens: 12, OutputTokens: 64, Characters: 3, Messages: 4, AudioMS: 5,
			Images: 6, Calls: 7}, Estimated: true, LatencyMS: 3, Outcome: domain.OutcomeOK, Error: "timeout", ProviderRequestID: "req-9",
		ProviderCost: 4200, ServiceFee: 42, Cost: 4242, Reserved: 9000, PriceVersion: "2026-11", Month: "2026-11",
		OccurredAt: time.Date(2026, 11, 27, 12, 0, 0, 123456789, time.FixedZone("", 3600))}
}

// fullUsageText is fullUsage's payload as the event store gives it: the
// text of its jsonb (PostgreSQL 15; TestReadUsageReadsJSONBText checks it
// against the server).
const fullUsageText = `{"byok": true, "error": "timeout", "model": "gpt-4o-mini", "month": "2026-11", "units": {"calls": 7, "images": 6, "audio_ms": 5, "messages": 4, "characters": 3, "input_tokens": 12, "output_tokens": 64}, "action": "ai.completions", "app_id": "app", "outcome": "ok", "user_id": "user-1", "provider": "ai_provider_1", "use_case": "chat", "estimated": true, "operation": "chat", "latency_ms": 3, "request_id": "0e0c8a0e-8f9b-4a57-9d53-7e2f3c1d9b10", "occurred_at": "2026-11-27T12:00:00.123456789+01:00", "principal_id": "key-1", "connection_id": "sandbox", "price_version": "2026-11", "principal_type": "api_key", "cost_microcents": 4242, "provider_request_id": "req-9", "reserved_microcents": 9000, "service_fee_microcents": 42, "provider_cost_microcents": 4200}`

// Whatever readUsage does not read as json.Marshal lays it out goes to
// json.Unmarshal: decodeUsage gives what it gives, error or value.
func TestDecodeUsageIsUnmarshal(t *testing.T) {
	doc := fullUsageText
	for _, tc := range []struct {
		name, payload string
		read          bool // read member by member
	}{
		{"as written", doc, true},
		{"as json.Marshal writes it", mustMarshal(t, fullUsage()), false},
		{"no blank after a comma", strings.Replace(doc, `, "app_id"`, `,"app_id"`, 1), false},
		{"members reordered", `{"principal_id": "p", ` + strings.Replace(doc[1:], `, "principal_id": "key-1"`, ``, 1), false},
		{"an unknown member", strings.Replace(doc, `, "month"`, `, "extra": [1, 2], "month"`, 1), false},
		{"an omitempty member absent", strings.Replace(doc, `"error": "timeout", `, ``, 1), true},
		{"every omitempty member absent", strings.NewReplacer(`"error": "timeout", `, ``, `"user_id": "user-1", `, ``,
			`"provider_request_id": "req-9", `, ``).Replace(doc), true},
		{"a key in another case", strings.Replace(doc, `"model"`, `"Model"`, 1), false},
		{"an escaped string", strings.Replace(doc, `"gpt-4o-mini"`, `"gpt-4o\u002dmini"`, 1), false},
		{"a non-ASCII string", strings.Replace(doc, `"gpt-4o-mini"`, `"gpt-4o-mini-é"`, 1), false},
		{"a null member", strings.Replace(doc, `"model": "gpt-4o-mini"`, `"model": null`, 1), false},
		{"a fraction", strings.Replace(doc, `"latency_ms": 3`, `"latency_ms": 3.5`, 1), false},
		{"an exponent", strings.Replace(doc, `"latency_ms": 3`, `"latency_ms": 3e2`, 1), false},
		{"19 digits", strings.Replace(doc, `"latency_ms": 3`, `"latency_ms": 1234567890123456789`, 1), false},
		{"a leading zero", strings.Replace(doc, `"latency_ms": 3`, `"latency_ms": 03`, 1), false},
		{"a string for a number", strings.Replace(doc, `"latency_ms": 3`, `"latency_ms": "3"`, 1), false},
		{"a bad time", strings.Replace(doc, `"occurred_at": "2026-11-27`, `"occurred_at": "2026-13-27`, 1), false},
		{"trailing bytes", doc + `x`, false},
		{"trailing blank", doc + ` `, false},
		{"cut short", doc[:len(doc)-2], false},
		{"empty object", `{}`, false},
		{"null", `null`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, ok := readUsage([]byte(tc.payload)); ok != tc.read {
				t.Fatalf("read member by member: %v, want %v", ok, tc.read)
			}
			e := eventstore.Event{Type: domain.UsageRecorded, Payload: []byte(tc.payload)}
			got, gotErr := decodeUsage(e)
			var want domain.UsageRecordedV1
			wantErr := json.Unmarshal([]byte(tc.payload), &want)
			if (gotErr != nil) != (wantErr != nil) || gotErr == nil && !reflect.DeepEqual(got, want) {
				t.Fatalf("decodeUsage: %+v, %v\njson.Unmarshal: %+v, %v", got, gotErr, want, wantErr)
			}
		})
	}
}

// Fuzz: whatever readUsage reads, json.Unmarshal reads to the same value.
func FuzzReadUsage(f *testing.F) {
	f.Add([]byte(fullUsageText))
	f.Add([]byte(mustMarshal(f, fullUsage())))
	f.Fuzz(func(t *testing.T, b []byte) {
		got, ok := readUsage(b)
		if !ok {
			return
		}
		var want domain.UsageRecordedV1
		if err := json.Unmarshal(b, &want); err != nil {
			t.Fatalf("read %q, which json.Unmarshal refuses: %v", b, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("read %q as %+v, json.Unmarshal as %+v", b, got, want)
		}
	})
}

// The read model reads a usage payload member by member: a reduction
// allocates less than one decode by reflection and the statements.
func TestUsageReducerReadsWithoutReflection(t *testing.T) {
	b := []byte(fullUsageText)
	e := eventstore.Event{ID: uuid.New(), Type: domain.UsageRecorded, SchemaVersion: 1, StreamType: domain.StreamUsage, StreamID: "usage:r",
		StreamVersion: 1, OrganizationID: "org-1", Payload: b}
	p, err := decodeUsage(e)
	if err != nil {
		t.Fatal(err)
	}
	reflected := testing.AllocsPerRun(200, func() { _, _ = eventstore.Decode[domain.UsageRecordedV1](e) })
	read := testing.AllocsPerRun(200, func() { _, _ = decodeUsage(e) })
	apply := testing.AllocsPerRun(200, func() {
		u, _ := usageRecorded(e, p)
		h, _ := keyAttempt(e, p)
		_ = append(u, h...)
	})
	reduce := testing.AllocsPerRun(200, func() { _, _ = reducers.Reduce(e) })
	t.Logf("allocations: decode by reflection %.0f, read %.0f, statements %.0f, reduce %.0f", reflected, read, apply, reduce)
	if reduce >= reflected+apply {
		t.Fatalf("reducing a usage event allocates %.0f times, as much as a decode by reflection (%.0f) and the statements (%.0f)",
			reduce, reflected, apply)
	}
}

func mustMarshal(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
