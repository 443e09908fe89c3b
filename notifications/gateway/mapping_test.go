package gateway

import (
	"testing"

	domain "github.com/platform/backend/domain/gateway"
)

// The notification projector passes over the silent streams without
// decoding them: every event a usage stream can hold must emit nothing.
func TestSilentStreamsEmitNothing(t *testing.T) {
	if len(SilentStreams) != 1 || SilentStreams[0] != domain.StreamUsage {
		t.Fatalf("silent streams %v: this test knows the usage stream only; check the new one's events", SilentStreams)
	}
	changes, err := domain.Settle(nil, domain.UsageRecordedV1{RequestID: "r", Month: "2026-11"})
	if err != nil || len(changes) != 1 {
		t.Fatalf("settle: %v %v", changes, err)
	}
	m := Mapping("http://dashboard")
	for _, typ := range append([]string{changes[0].Type}, domain.UsageEventTypes...) {
		f, ok := m[typ]
		if !ok || f != nil {
			t.Errorf("%s on a usage stream: mapped %v, want declared silent (notifications.Silent)", typ, ok)
		}
	}
}

// TestThresholdBodySaysCents: a spend meter's crossing says exact cents
// (its units are micro-cents); a crossing recorded before spend meters had
// a unit, and every other meter, says its units as counted.
func TestThresholdBodySaysCents(t *testing.T) {
	for _, c := range []struct {
		p    domain.MeterThresholdCrossedV1
		want string
	}{
		{domain.MeterThresholdCrossedV1{MeterKey: "spend.organization", ConsumedUnits: 950_000, IncludedUnits: 1_900_000, Unit: domain.UnitMicrocents},
			"0.95 of the 1.9 cents of the organization soft cap spent this period (950000 of 1900000 micro-cents)."},
		{domain.MeterThresholdCrossedV1{MeterKey: "spend.user:u1", ConsumedUnits: 3, IncludedUnits: 2_000_000, Unit: domain.UnitMicrocents},
			"0.000003 of the 2 cents of the user:u1 soft cap spent this period (3 of 2000000 micro-cents)."},
		{domain.MeterThresholdCrossedV1{MeterKey: "ai.tokens", ConsumedUnits: 120, IncludedUnits: 200},
			"120 of 200 included units of ai.tokens used this period."},
	} {
		if got := thresholdBody(c.p); got != c.want {
			t.Errorf("body %q, want %q", got, c.want)
		}
	}
}
