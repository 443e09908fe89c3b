package gateway_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/domain/gateway"
)

var t0 = time.Date(2026, 4, 18, 12, 0, 0, 0, time.UTC)

// fold applies changes to a history and loads the model again.
func fold[M any](t *testing.T, history []event.Recorded, changes []event.Change, load func([]event.Recorded) (M, error)) ([]event.Recorded, M) {
	t.Helper()
	all, err := event.Append(history, changes)
	if err != nil {
		t.Fatal(err)
	}
	m, err := load(all)
	if err != nil {
		t.Fatal(err)
	}
	return all, m
}

func types(changes []event.Change) []string {
	var out []string
	for _, c := range changes {
		out = append(out, c.Type)
	}
	return out
}

func TestConnectionDecisions(t *testing.T) {
	name := "Stripe"
	c := &gateway.Connection{}
	exp := t0.Add(3 * 24 * time.Hour)
	changes, err := c.Create("conn_1", "cred_1", "k1", gateway.ConnectionInput{Provider: gateway.ProviderPaymentsA, Name: &name,
		SetExpiry: true, TokenExpiresAt: &exp, SecretMembers: []string{"secret_key"}}, true, t0)
	if err != nil {
		t.Fatal(err)
	}
	if got := types(changes); len(got) != 3 || got[2] != gateway.ConnectionExpiring {
		t.Fatalf("a token inside the window warns at create: %v", got)
	}
	history, c := fold(t, nil, changes, gateway.LoadConnection)
	if c.State.Credential.Version != 1 || c.State.Credential.KeyID != "k1" || c.State.WarnedExpiry == nil {
		t.Fatalf("%+v", c.State)
	}
	if w := c.WarnExpiring(t0.Add(time.Hour)); len(w) != 0 {
		t.Fatal("warned twice for one expiry")
	}
	// Refusals: unknown members, a missing required one, a bad setting.
	for _, in := range []gateway.ConnectionInput{
		{Provider: "nope", Name: &name, SecretMembers: []string{"api_key"}},
		{Provider: gateway.ProviderEmailA, Name: &name, SecretMembers: []string{"webhook_username"}},
		{Provider: gateway.ProviderPaymentsA, Name: &name, SecretMembers: []string{"secret_key", "password"}},
		{Provider: gateway.ProviderMessageA, Name: &name, SecretMembers: []string{"access_token"}, Settings: map[string]string{"phone_number_id": "12a"}},
		{Provider: "ai_provider_5", Name: &name, SecretMembers: []string{"api_key"}},
	} {
		if _, err := (&gateway.Connection{}).Create("conn_2", "cred_2", "k1", in, true, t0); errs.KindOf(err) != errs.KindInvalidInput {
			t.Errorf("%+v: %v", in, err)
		}
	}
	// Disconnect, again (nothing), reconnect by credentials, rotate, delete (final).
	ch, _ := c.Disconnect(gateway.StatusDisconnected, "", t0)
	history, c = fold(t, history, ch, gateway.LoadConnection)
	if again, _ := c.Disconnect(gateway.StatusDisconnected, "", t0); len(again) != 0 {
		t.Fatal("the same status twice")
	}
	ch, err = c.SetCredential("k2", []string{"secret_key"}, t0)
	if err != nil || len(ch) != 2 {
		t.Fatalf("reconnect: %v %v", types(ch), err)
	}
	history, c = fold(t, history, ch, gateway.LoadConnection)
	if c.State.Status != gateway.StatusActive || c.State.Credential.Version != 2 {
		t.Fatalf("%+v", c.State)
	}
	if _, err := c.Rotate(1, "k3", t0); errs.KindOf(err) != errs.KindConflict {
		t.Fatalf("a rotation of an old version: %v", err)
	}
	if same, _ := c.Rotate(2, "k2", t0); len(same) != 0 {
		t.Fatal("rotated to the key it is under")
	}
	ch, _ = c.Rotate(2, "k3", t0)
	history, c = fold(t, history, ch, gateway.LoadConnection)
	if c.State.Credential.KeyID != "k3" || c.State.Credential.Version != 3 {
		t.Fatalf("%+v", c.State.Credential)
	}
	// The canary: once per version and key.
	ch = c.ReportUndecryptable("org", 3, "k3", t0)
	history, c = fold(t, history, ch, gateway.LoadConnection)
	if len(ch) != 1 || len(c.ReportUndecryptable("org", 3, "k3", t0)) != 0 || len(c.ReportUndecryptable("org", 2, "k2", t0)) != 0 {
		t.Fatal("the canary reports once per credential version and key")
	}
	ch, _ = c.Disconnect(gateway.StatusDeleted, "", t0)
	_, c = fold(t, history, ch, gateway.LoadConnection)
	if _, err := c.SetCredential("k1", []string{"secret_key"}, t0); errs.KindOf(err) != errs.KindConflict {
		t.Fatalf("a deleted connection took credentials: %v", err)
	}
	if again, _ := c.Disconnect(gateway.StatusDeauthorized, "", t0); len(again) != 0 {
		t.Fatal("deleted is final")
	}
}

func TestDeliveryRounds(t *testing.T) {
	d := &gateway.Delivery{}
	req := gateway.DeliveryRequestedV1{DeliveryID: "d1", RequestHash: "h1", At: t0}
	ch, _ := d.Request(req)
	history, d := fold(t, nil, ch, gateway.LoadDelivery)
	if _, err := d.Request(req); errs.KindOf(err) != errs.KindConflict {
		t.Fatalf("a running round: %v", err)
	}
	other := req
	other.RequestHash = "h2"
	if _, err := d.Request(other); errs.KindOf(err) != errs.KindIdempotencyMismatch {
		t.Fatalf("another request under the key: %v", err)
	}
	ch, _ = d.Finish(gateway.DeliveryStatusFailed, gateway.DeliveryOutcomeV1{Attempts: 3, Outcome: "provider_error", At: t0})
	history, d = fold(t, history, ch, gateway.LoadDelivery)
	ch, err := d.Request(req)
	if err != nil || len(ch) != 1 {
		t.Fatalf("a failed round admits another: %v", err)
	}
	history, d = fold(t, history, ch, gateway.LoadDelivery)
	ch, _ = d.Finish(gateway.DeliveryStatusSent, gateway.DeliveryOutcomeV1{MessageID: "m1", RequestID: "r1", Attempts: 1, At: t0})
	history, d = fold(t, history, ch, gateway.LoadDelivery)
	if _, err := d.Request(req); err != gateway.ErrReplay || d.State.Round != 2 {
		t.Fatalf("a sent delivery replays: %v (round %d)", err, d.State.Round)
	}
	bounce := gateway.DeliveryReceiptV1{Kind: gateway.ReceiptBounced, RecipientHash: "a", OccurredAt: t0}
	ch = d.Receive(bounce)
	_, d = fold(t, history, ch, gateway.LoadDelivery)
	if len(ch) != 1 || d.State.Status != gateway.DeliveryStatusBounced || len(d.Receive(bounce)) != 0 {
		t.Fatalf("a bounce once: %+v", d.State)
	}
}

func TestWebhookRelayAttempts(t *testing.T) {
	w := &gateway.Webhook{}
	ch := w.Receive(gateway.WebhookReceivedV1{WebhookID: "w1", Relay: true, ReceivedAt: t0})
	history, w := fold(t, nil, ch, gateway.LoadWebhook)
	if len(w.Receive(gateway.WebhookReceivedV1{WebhookID: "w1"})) != 0 {
		t.Fatal("a repeat recorded")
	}
	next := t0.Add(time.Second)
	if len(w.RelayAttempt(2, false, 500, "http_error", 3, next, t0)) != 0 {
		t.Fatal("an attempt out of turn recorded")
	}
	ch = w.RelayAttempt(1, false, 500, "http_error", 3, next, t0)
	if len(ch) != 1 || len(ch[0].Timers) != 1 || !ch[0].Timers[0].At.Equal(next) {
		t.Fatalf("a failed attempt schedules the next: %+v", ch)
	}
	history, w = fold(t, history, ch, gateway.LoadWebhook)
	ch = w.RelayAttempt(2, false, 0, "refused", 3, next, t0)
	history, w = fold(t, history, ch, gateway.LoadWebhook)
	ch = w.RelayAttempt(3, false, 500, "http_error", 3, next, t0)
	if got := types(ch); len(got) != 2 || got[1] != gateway.WebhookRelayFailed || len(ch[0].Timers) != 0 {
		t.Fatalf("the last attempt fails the relay: %v", got)
	}
	_, w = fold(t, history, ch, gateway.LoadWebhook)
	if w.Relay != gateway.RelayFailed || len(w.RelayAttempt(4, true, 200, "", 3, next, t0)) != 0 {
		t.Fatal("a failed relay takes no more attempts")
	}
}

func TestEmailProfilesOneDefault(t *testing.T) {
	p := &gateway.EmailProfiles{}
	yes, conn, name, from := true, "conn_1", "Shop", "shop@example.com"
	in := gateway.ProfileInput{ConnectionID: &conn, ProfileName: &name, FromName: &name, FromEmail: &from, IsDefault: &yes}
	ch, _ := p.Create("ep_1", in, t0)
	history, p := fold(t, nil, ch, gateway.LoadEmailProfiles)
	ch, _ = p.Create("ep_2", in, t0)
	_, p = fold(t, history, ch, gateway.LoadEmailProfiles)
	d, ok := p.Default()
	if !ok || d.ProfileID != "ep_2" || p.Profiles[0].IsDefault {
		t.Fatalf("one default: %+v", p.Profiles)
	}
	bad := "not an address"
	if _, err := p.Update("ep_1", gateway.ProfileInput{FromEmail: &bad}, t0); errs.KindOf(err) != errs.KindInvalidInput {
		t.Fatalf("%v", err)
	}
	if same, _ := p.Update("ep_1", gateway.ProfileInput{ProfileName: &name}, t0); len(same) != 0 {
		t.Fatal("the same members changed something")
	}
}

// TestConnectionChoice: a connection created while none of its provider is
// in use is chosen at once, another is not; choosing records when; an
// inactive or deleted connection cannot be chosen; updates keep the
// choice; a connection recorded before choices existed (its created event
// has no choice) counts as chosen when it was created, and says so from
// then on.
func TestConnectionChoice(t *testing.T) {
	name := "Postmark"
	in := gateway.ConnectionInput{Provider: gateway.ProviderEmailA, Name: &name, SecretMembers: []string{"server_token"}}
	first, err := (&gateway.Connection{}).Create("conn_1", "cred_1", "k1", in, true, t0)
	if err != nil {
		t.Fatal(err)
	}
	_, c1 := fold(t, nil, first, gateway.LoadConnection)
	if at := c1.State.Chosen(); at == nil || !at.Equal(t0) {
		t.Fatalf("the first connection is not chosen: %+v", c1.State.Choice)
	}
	second, _ := (&gateway.Connection{}).Create("conn_2", "cred_2", "k1", in, false, t0.Add(time.Minute))
	history, c2 := fold(t, nil, second, gateway.LoadConnection)
	if c2.State.Chosen() != nil {
		t.Fatalf("a second connection was chosen at create: %+v", c2.State.Choice)
	}
	later := t0.Add(time.Hour)
	ch, err := c2.Choose(later)
	if err != nil || len(ch) != 1 || ch[0].Type != gateway.ConnectionChosen {
		t.Fatalf("choose: %v %v", ch, err)
	}
	history, c2 = fold(t, history, ch, gateway.LoadConnection)
	if at := c2.State.Chosen(); at == nil || !at.Equal(later) {
		t.Fatalf("chosen at %v", at)
	}
	renamed := "Renamed"
	up, _ := c2.Update(gateway.ConnectionInput{Name: &renamed}, later.Add(time.Minute))
	history, c2 = fold(t, history, up, gateway.LoadConnection)
	if at := c2.State.Chosen(); at == nil || !at.Equal(later) {
		t.Fatalf("an update lost the choice: %v", at)
	}
	off, _ := c2.Disconnect(gateway.StatusDisconnected, "", later)
	_, c2 = fold(t, history, off, gateway.LoadConnection)
	if _, err := c2.Choose(later); errs.KindOf(err) != errs.KindConflict {
		t.Fatalf("a disconnected connection was chosen: %v", err)
	}
	if _, err := (&gateway.Connection{}).Choose(later); errs.KindOf(err) != errs.KindNotFound {
		t.Fatalf("a missing connection: %v", err)
	}

	// Recorded before choices: no choice member in its events.
	legacy := c1.State
	legacy.Choice = nil
	raw, _ := json.Marshal(legacy)
	if strings.Contains(string(raw), `"choice"`) {
		t.Fatalf("a connection without a choice writes one: %s", raw)
	}
	old := []event.Recorded{{Type: gateway.ConnectionCreated, SchemaVersion: 1, Version: 1, Payload: raw}}
	loaded, err := gateway.LoadConnection(old)
	if err != nil {
		t.Fatal(err)
	}
	if loaded.State.Choice == nil || loaded.State.Choice.ChosenAt == nil || !loaded.State.Choice.ChosenAt.Equal(legacy.CreatedAt) {
		t.Fatalf("a connection recorded before choices: %+v", loaded.State.Choice)
	}
}
