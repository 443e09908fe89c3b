package gateway

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/domain/gateway/prices"
)

func TestCapsOnePerScope(t *testing.T) {
	b, _ := LoadBilling(nil)
	hard := CapHard
	changes, err := b.UpsertCap("org", CapInput{ScopeType: ScopeOrganization, MonthlyCapCents: 100, CapMode: &hard}, t0)
	if err != nil || len(changes) != 1 {
		t.Fatal(changes, err)
	}
	all, _ := event.Append(nil, changes)
	b, _ = LoadBilling(all)
	if again, _ := b.UpsertCap("org", CapInput{ScopeType: ScopeOrganization, MonthlyCapCents: 100, CapMode: &hard}, t0.Add(1)); len(again) != 0 {
		t.Fatal("an unchanged cap appended", again)
	}
	changes, _ = b.UpsertCap("org", CapInput{ScopeType: ScopeOrganization, MonthlyCapCents: 200, CapMode: &hard}, t0)
	all, _ = event.Append(all, changes)
	b, _ = LoadBilling(all)
	if len(b.State.Caps) != 1 || b.State.Caps[0].MonthlyCapCents != 200 || b.State.Caps[0].CapMicrocents() != 200_000_000 {
		t.Fatalf("caps %+v", b.State.Caps)
	}
	if len(b.State.HardCaps("u1")) != 1 {
		t.Fatal("the organization's hard cap applies to every user")
	}
	for name, in := range map[string]CapInput{
		"user without id":  {ScopeType: ScopeUser, MonthlyCapCents: 1},
		"negative cap":     {ScopeType: ScopeOrganization, MonthlyCapCents: -1},
		"zero threshold":   {ScopeType: ScopeOrganization, MonthlyCapCents: 1, NotifyThresholds: []float64{0}},
		"org with a value": {ScopeType: ScopeOrganization, ScopeValue: new(string), MonthlyCapCents: 1},
	} {
		if _, err := b.UpsertCap("org", in, t0); errs.KindOf(err) != errs.KindInvalidInput {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := b.DeleteCap("nope", t0); errs.KindOf(err) != errs.KindNotFound {
		t.Fatal(err)
	}
}

func TestByokFee(t *testing.T) {
	p := prices.Price{InputPerMillion: prices.USDPerMillion(1)} // 100 micro-cents a token
	platform := Rate(p, prices.Units{InputTokens: 1000}, false, 500)
	if platform.Cost != 100_000 || platform.ServiceFee != 0 {
		t.Fatalf("platform key: %+v", platform)
	}
	own := Rate(p, prices.Units{InputTokens: 1000}, true, 500) // 5%
	if own.ProviderCost != 100_000 || own.ServiceFee != 5_000 || own.Cost != 5_000 {
		t.Fatalf("own key: %+v", own)
	}
	if fee := Rate(p, prices.Units{InputTokens: 1}, true, 0.5).ServiceFee; fee != 1 {
		t.Fatalf("a fractional fee rounds up: %d", fee)
	}
	b, _ := LoadBilling(nil)
	if _, err := b.SetFee(10001, t0); errs.KindOf(err) != errs.KindInvalidInput {
		t.Fatal(err)
	}
}

func TestHealthTransitionsOnly(t *testing.T) {
	h, _ := LoadHealth(nil)
	fail := Attempt{Provider: "p", Error: "status 503", LatencyMS: 12}
	if c := h.Record(Attempt{Provider: "p", OK: true}, t0); c != nil {
		t.Fatal("a success of an unknown provider is no transition")
	}
	c := h.Record(fail, t0)
	if len(c) != 1 || c[0].Type != ProviderDegraded {
		t.Fatal(c)
	}
	h.Status = HealthDegraded
	if c := h.Record(fail, t0); c != nil {
		t.Fatal("degraded twice")
	}
	if c := h.Record(Attempt{Provider: "p", OK: true}, t0); len(c) != 1 || c[0].Type != ProviderRecovered {
		t.Fatal(c)
	}
	if !Disagrees(HealthUnknown, false) || Disagrees(HealthUnknown, true) || !Disagrees(HealthDegraded, true) {
		t.Fatal("disagreement")
	}
	for _, o := range []string{OutcomeCallerCanceled, OutcomeInvalidRequest, OutcomeRateLimited, OutcomeUnauthorized, OutcomeAbandoned} {
		if ProviderCaused(o) {
			t.Errorf("%s counted against the provider", o)
		}
	}
}

func TestSettleOnce(t *testing.T) {
	rec := UsageRecordedV1{RequestID: "r", Month: "2026-04"}
	c, err := Settle(nil, rec)
	if err != nil || len(c) != 1 {
		t.Fatal(c, err)
	}
	all, _ := event.Append(nil, c)
	if again, _ := Settle(all, rec); len(again) != 0 {
		t.Fatal("settled twice")
	}
}

// TestSnapshotsAreTheAnswers: each write model loads its snapshot, which is
// its commands' answer, to the same state as its events.
func TestSnapshotsAreTheAnswers(t *testing.T) {
	o := &Organization{}
	c, _ := o.Provision(ProvisionInput{OrganizationID: "o", Name: "n", Slug: "s"}, t0)
	all, _ := event.Append(nil, c)
	o, _ = LoadOrganization(all)
	snap, _ := json.Marshal(o.State)
	again, _ := LoadOrganization([]event.Recorded{{Type: event.SnapshotType, Version: 1, Payload: snap}})
	if !again.Provisioned() {
		t.Fatal("the organization's snapshot loads unprovisioned")
	}
	if c, _ := again.Provision(ProvisionInput{OrganizationID: "o", Name: "n", Slug: "s"}, t0.Add(time.Hour)); len(c) != 0 {
		t.Fatal("provisioned twice from a snapshot")
	}
	h := &Health{Status: HealthDegraded}
	snap, _ = json.Marshal(*h)
	if back, _ := LoadHealth([]event.Recorded{{Type: event.SnapshotType, Payload: snap}}); back.Status != HealthDegraded {
		t.Fatal("health snapshot")
	}
	b := &Billing{State: BillingState{Caps: []SpendCap{{ID: "x"}}, ServiceFeeBps: 3}}
	snap, _ = json.Marshal(b.State)
	if back, _ := LoadBilling([]event.Recorded{{Type: event.SnapshotType, Payload: snap}}); len(back.State.Caps) != 1 || back.State.ServiceFeeBps != 3 {
		t.Fatal("billing snapshot")
	}
	m := &Meters{Defined: map[string]MeterDefinedV1{"a": {MeterID: "a"}}, Counters: map[string]counter{"a": {PeriodStart: 1, Raw: 5}}, Applied: 2}
	snap, _ = json.Marshal(*m)
	if back, _ := LoadMeters([]event.Recorded{{Type: event.SnapshotType, Payload: snap}}); back.Counters["a"].Raw != 5 || len(back.Defined) != 1 {
		t.Fatal("meters snapshot")
	}
}
