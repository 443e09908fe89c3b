package gateway

import (
	"reflect"
	"testing"
	"time"

	"github.com/google/uuid"

	domain "github.com/platform/backend/domain/gateway"
	"github.com/platform/backend/eventstore"
)

// TestUsageEventDecodedOnce: a usage event is applied by two areas (the
// usage rows and totals, the key's health) from one decode of its payload:
// reducing it allocates what one decode and the two areas' statements do,
// not a decode more (measured in allocations), and gives the statements
// both areas give, in area order.
func TestUsageEventDecodedOnce(t *testing.T) {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	payload := []byte(fullUsageText) // as the event store gives it
	e := eventstore.Event{ID: uuid.New(), Type: domain.UsageRecorded, SchemaVersion: 1, StreamType: domain.StreamUsage, StreamID: "usage:r",
		StreamVersion: 1, OrganizationID: "org-1", OccurredAt: now, RecordedAt: now, Payload: payload}
	p, err := decodeUsage(e)
	if err != nil {
		t.Fatal(err)
	}
	usage, err := usageRecorded(e, p)
	if err != nil {
		t.Fatal(err)
	}
	health, err := keyAttempt(e, p)
	if err != nil {
		t.Fatal(err)
	}
	got, err := reducers.Reduce(e)
	if err != nil {
		t.Fatal(err)
	}
	if want := append(usage, health...); !reflect.DeepEqual(got, want) {
		t.Fatalf("reduced to %d statements, want the usage area's %d then the health area's %d", len(got), len(usage), len(health))
	}
	decode := testing.AllocsPerRun(200, func() { _, _ = decodeUsage(e) })
	apply := testing.AllocsPerRun(200, func() {
		u, _ := usageRecorded(e, p)
		h, _ := keyAttempt(e, p)
		_ = append(u, h...)
	})
	reduce := testing.AllocsPerRun(200, func() { _, _ = reducers.Reduce(e) })
	if reduce > decode+apply+2 {
		t.Fatalf("reducing a usage event allocates %.0f times; one decode (%.0f) and the areas' statements (%.0f) allocate %.0f: decoded more than once?",
			reduce, decode, apply, decode+apply)
	}
}
