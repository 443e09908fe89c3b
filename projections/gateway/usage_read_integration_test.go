package gateway

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	domain "github.com/platform/backend/domain/gateway"
	"github.com/platform/backend/internal/testenv"
)

// The event store's payloads are the text of a jsonb column (the relay and
// the stream reads select payload::text): every one PostgreSQL writes for a
// usage event is read member by member, to what json.Unmarshal gives. A
// member added to the struct, or a key order other than jsonb's, fails here
// until readUsage reads it.
func TestReadUsageReadsJSONBText(t *testing.T) {
	full := fullUsage()
	for _, v := range []reflect.Value{reflect.ValueOf(full), reflect.ValueOf(full.Units)} {
		for i := range v.NumField() {
			if v.Field(i).IsZero() {
				t.Fatalf("fullUsage leaves %s.%s zero: set it", v.Type().Name(), v.Type().Field(i).Name)
			}
		}
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, testenv.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	negative := full
	negative.Units.InputTokens, negative.LatencyMS, negative.Cost = -1, -999999999999999999, 999999999999999999
	escaped := full
	escaped.Model, escaped.Error = `<gpt & "4o">`, "tab\there"
	for _, tc := range []struct {
		name string
		v    domain.UsageRecordedV1
		read bool // member by member
	}{
		{"every member", full, true},
		{"omitempty members empty, zero values", domain.UsageRecordedV1{OccurredAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}, true},
		{"negative and 18-digit numbers", negative, true},
		{"strings jsonb escapes (json.Unmarshal reads them)", escaped, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var text string
			if err := conn.QueryRow(ctx, `SELECT $1::jsonb::text`, mustMarshal(t, tc.v)).Scan(&text); err != nil {
				t.Fatal(err)
			}
			got, ok := readUsage([]byte(text))
			if ok != tc.read {
				t.Fatalf("read member by member: %v, want %v: %s", ok, tc.read, text)
			}
			var want domain.UsageRecordedV1
			if err := json.Unmarshal([]byte(text), &want); err != nil {
				t.Fatal(err)
			}
			if ok && !reflect.DeepEqual(got, want) {
				t.Fatalf("read %+v\nwant %+v", got, want)
			}
		})
	}
	var text string
	if err := conn.QueryRow(ctx, `SELECT $1::jsonb::text`, mustMarshal(t, full)).Scan(&text); err != nil {
		t.Fatal(err)
	}
	if text != fullUsageText {
		t.Fatalf("the server's text of fullUsage:\n%s\nfullUsageText:\n%s", text, fullUsageText)
	}
}
