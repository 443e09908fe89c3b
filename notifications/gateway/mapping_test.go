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
