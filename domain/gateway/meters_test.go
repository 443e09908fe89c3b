package gateway

import (
	"testing"
	"time"

	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/domain/gateway/prices"
)

var t0 = time.Date(2026, 4, 18, 10, 0, 0, 0, time.UTC)

func usage(tokens int64) UsageRecordedV1 {
	return UsageRecordedV1{Action: "ai.completions", AppID: "studio", Outcome: OutcomeOK, OccurredAt: t0,
		Units: prices.Units{InputTokens: tokens}}
}

// fold applies changes to a meters model as the store would.
func fold(t *testing.T, history []event.Recorded, changes []event.Change) ([]event.Recorded, *Meters) {
	t.Helper()
	all, err := event.Append(history, changes)
	if err != nil {
		t.Fatal(err)
	}
	m, err := LoadMeters(all)
	if err != nil {
		t.Fatal(err)
	}
	return all, m
}

func crossings(changes []event.Change) []int {
	var out []int
	for _, c := range changes {
		if c.Type == MeterThresholdCrossed {
			out = append(out, c.Payload.(MeterThresholdCrossedV1).ThresholdPercentage)
		}
	}
	return out
}

// TestThresholdCrossings: previous < t <= current, once per meter,
// threshold and period; a jump crosses each threshold it passes; landing
// exactly on one crosses it once; a new month starts over.
func TestThresholdCrossings(t *testing.T) {
	m, _ := LoadMeters(nil)
	def, err := m.Define(MeterInput{MeterID: "tokens", MeterKey: KeyAITokens, IncludedUnits: 100, Thresholds: []int{50, 80, 100}}, t0)
	if err != nil {
		t.Fatal(err)
	}
	history, m := fold(t, nil, def)
	steps := []struct {
		tokens int64
		at     time.Time
		want   []int
	}{
		{49, t0, nil},
		{1, t0, []int{50}},                   // lands exactly on 50
		{0, t0, nil},                         // nothing counted
		{10, t0, nil},                        // 60
		{45, t0, []int{80, 100}},             // 105: a jump over two
		{500, t0, nil},                       // past every threshold: nothing again
		{50, t0.AddDate(0, 1, 0), []int{50}}, // next month starts over
	}
	for i, s := range steps {
		rec := usage(s.tokens)
		rec.OccurredAt = s.at
		changes, err := m.Consume("e", rec, nil, s.at)
		if err != nil {
			t.Fatal(err)
		}
		if got := crossings(changes); !equalInts(got, s.want) {
			t.Fatalf("step %d (%d tokens): crossed %v, want %v", i, s.tokens, got, s.want)
		}
		history, m = fold(t, history, changes)
	}
	// A redefinition does not cross again what this period crossed.
	redef, _ := m.Define(MeterInput{MeterID: "tokens", MeterKey: KeyAITokens, IncludedUnits: 10, Thresholds: []int{50}}, t0)
	history, m = fold(t, history, redef)
	rec := usage(1)
	rec.OccurredAt = t0.AddDate(0, 1, 0)
	changes, _ := m.Consume("e", rec, nil, t0)
	if got := crossings(changes); len(got) != 0 {
		t.Fatalf("redefined meter crossed %v again", got)
	}
	_ = history
}

// TestSoftCapThresholdsAreSpendMeters: a soft cap's notifyThresholds cross
// on the scope's spend in micro-cents.
func TestSoftCapThresholdsAreSpendMeters(t *testing.T) {
	m, _ := LoadMeters(nil)
	caps := []SpendCap{{ID: "c1", ScopeType: ScopeOrganization, MonthlyCapCents: 10, CapMode: CapSoft, IsActive: true, NotifyThresholds: []float64{50, 90}}}
	rec := usage(1)
	rec.Cost = 6_000_000 // 6 cents of 10
	changes, err := m.Consume("e", rec, caps, t0)
	if err != nil {
		t.Fatal(err)
	}
	if got := crossings(changes); !equalInts(got, []int{50}) {
		t.Fatalf("crossed %v", got)
	}
	_, m = fold(t, nil, changes)
	rec.Cost = 3_000_000 // 9 cents: lands on 90%
	changes, _ = m.Consume("e", rec, caps, t0)
	if got := crossings(changes); !equalInts(got, []int{90}) {
		t.Fatalf("crossed %v", got)
	}
	hard := []SpendCap{{ID: "c2", ScopeType: ScopeOrganization, MonthlyCapCents: 10, CapMode: CapHard, IsActive: true, NotifyThresholds: []float64{50}}}
	if changes, _ := (&Meters{Defined: map[string]MeterDefinedV1{}, Counters: map[string]counter{}}).Consume("e", rec, hard, t0); len(changes) != 0 {
		t.Fatal("a hard cap's thresholds counted as a soft cap's")
	}
}

// TestMeterKeysCountTheirUnits: an app filter and unit keys.
func TestMeterKeysCountTheirUnits(t *testing.T) {
	rec := usage(7)
	rec.Units.OutputTokens = 3
	rec.Units.AudioMS = 1500
	for key, want := range map[string]int64{KeyAITokens: 10, KeyAIInputTokens: 7, KeyAIOutputTokens: 3, KeyAIRequests: 1, KeyAIAudioSeconds: 2,
		KeyEmailMessages: 0} {
		if got := UnitsFor(key, rec); got != want {
			t.Errorf("%s: %d, want %d", key, got, want)
		}
	}
	m, _ := LoadMeters(nil)
	other := "other-app"
	def, _ := m.Define(MeterInput{MeterID: "a", MeterKey: KeyAITokens, AppID: &other, IncludedUnits: 1}, t0)
	_, m = fold(t, nil, def)
	if changes, _ := m.Consume("e", rec, nil, t0); len(changes) != 0 {
		t.Fatal("a meter of another app counted the call")
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
