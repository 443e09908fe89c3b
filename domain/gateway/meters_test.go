package gateway

import (
	"slices"
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
		if got := crossings(changes); !slices.Equal(got, s.want) {
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
	if got := crossings(changes); !slices.Equal(got, []int{50}) {
		t.Fatalf("crossed %v", got)
	}
	_, m = fold(t, nil, changes)
	rec.Cost = 3_000_000 // 9 cents: lands on 90%
	changes, _ = m.Consume("e", rec, caps, t0)
	if got := crossings(changes); !slices.Equal(got, []int{90}) {
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

// TestSoftCapThresholdsAtFractionalEdges: a soft cap's thresholds are
// reached exactly when spend (micro-cents) crosses percent x cap, whatever
// the cap's fraction of a cent, and the crossing says so truthfully:
// included_units is the cap in micro-cents (>= 1), consumed_units the spend,
// and consumed x 100 >= threshold x included. Issue #18: a 1.9-cent cap was
// floored to 1 cent, so 50% and 100% both fired at 55% of the cap, and a
// notification read "0 of 1 included units".
func TestSoftCapThresholdsAtFractionalEdges(t *testing.T) {
	type step struct {
		spend int64 // micro-cents added by this call
		want  []int
	}
	cases := []struct {
		name       string
		cents      float64
		thresholds []float64
		included   int64 // the cap in micro-cents; 0: no meter at all
		steps      []step
	}{
		{"1.9 cents, just below 50% then at it", 1.9, []float64{50, 100}, 1_900_000,
			[]step{{949_999, nil}, {1, []int{50}}, {949_999, nil}, {1, []int{100}}, {1, nil}}},
		{"1.9 cents, just above each", 1.9, []float64{50, 100}, 1_900_000,
			[]step{{950_001, []int{50}}, {950_000, []int{100}}}},
		{"1.9 cents: 55% crosses 50% only (the floored cap crossed both)", 1.9, []float64{50, 100}, 1_900_000,
			[]step{{1_045_000, []int{50}}}},
		{"1.9 cents, one call over both", 1.9, []float64{50, 100}, 1_900_000, []step{{1_900_000, []int{50, 100}}}},
		{"0.5 cents", 0.5, []float64{50, 100}, 500_000,
			[]step{{249_999, nil}, {1, []int{50}}, {249_999, nil}, {2, []int{100}}}},
		{"fractional thresholds notify at the next whole percent", 1.9, []float64{33.3, 33.9, 0.4}, 1_900_000,
			// 1% of 1.9 cents is 19,000; 34% is 646,000 (33.3 and 33.9 are one threshold)
			[]step{{18_999, nil}, {1, []int{1}}, {626_999, nil}, {1, []int{34}}}},
		{"a threshold between two micro-cents rounds up", 0.000003, []float64{50}, 3, // 50% of 3 is 1.5
			[]step{{1, nil}, {1, []int{50}}}},
		{"past 100%", 1.9, []float64{150}, 1_900_000, []step{{2_849_999, nil}, {1, []int{150}}}},
		{"0 cents: nothing is a share of it", 0, []float64{50, 100}, 0, []step{{1, nil}, {5_000_000, nil}}},
		{"less than a micro-cent rounds to 0", 0.0000004, []float64{50}, 0, []step{{1, nil}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			caps := []SpendCap{{ID: "c", ScopeType: ScopeOrganization, MonthlyCapCents: c.cents, CapMode: CapSoft, IsActive: true,
				NotifyThresholds: c.thresholds}}
			m, _ := LoadMeters(nil)
			if defs := m.Definitions(caps); (len(defs) == 1) != (c.included > 0) || (len(defs) == 1 && defs[0].Included != c.included) {
				t.Fatalf("definitions %+v, want included %d", defs, c.included)
			}
			var history []event.Recorded
			total := int64(0)
			for i, s := range c.steps {
				rec := usage(1)
				rec.Cost = s.spend
				changes, err := m.Consume("e", rec, caps, t0)
				if err != nil {
					t.Fatal(err)
				}
				before := total
				total += s.spend
				if got := crossings(changes); !slices.Equal(got, s.want) {
					t.Fatalf("step %d (%d -> %d micro-cents of %d): crossed %v, want %v", i, before, total, c.included, got, s.want)
				}
				for _, ch := range changes {
					p, ok := ch.Payload.(MeterThresholdCrossedV1)
					if !ok {
						continue
					}
					pct := int64(p.ThresholdPercentage)
					switch {
					case p.IncludedUnits != c.included || p.ConsumedUnits != total || p.Unit != UnitMicrocents:
						t.Fatalf("crossing %+v: want %d of %d micro-cents", p, total, c.included)
					case p.ConsumedUnits*100 < pct*p.IncludedUnits:
						t.Fatalf("crossing %+v says %d%% before it was reached", p, pct)
					case before*100 >= pct*p.IncludedUnits:
						t.Fatalf("crossing %+v: %d%% was reached by an earlier call (%d)", p, pct, before)
					}
				}
				history, m = fold(t, history, changes)
			}
		})
	}
}

// TestThresholdUnitsExact: ceil(percent x included / 100), without
// overflow where percent x included passes int64 (a 1e12-cent cap is 1e18
// micro-cents, thresholds reach 1000%).
func TestThresholdUnitsExact(t *testing.T) {
	for _, c := range []struct {
		percent  int
		included int64
		want     int64
	}{
		{50, 1_900_000, 950_000}, {50, 3, 2}, {1, 1, 1}, {100, 1, 1}, {33, 100, 33}, {34, 1_900_000, 646_000},
		{1000, 1e17, 1e18}, {99, 1e18, 99e16},
		{1000, 1e18, 1<<63 - 1}, // 1e19 passes int64: saturates, never reached
	} {
		if got := ThresholdUnits(c.percent, c.included); got != c.want {
			t.Errorf("%d%% of %d: %d, want %d", c.percent, c.included, got, c.want)
		}
	}
}
