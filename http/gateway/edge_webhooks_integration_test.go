package gateway_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	gatewaycmd "github.com/platform/backend/commands/gateway"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/platform/backend/internal/apptest"
	gatewaymod "github.com/platform/backend/internal/modules/gateway"
	"github.com/platform/backend/providers/email/resend"
	"github.com/platform/backend/providers/message/whatsapp"
	"github.com/platform/backend/providers/payments/stripe"
)

// target is an app's webhook endpoint: it fails the first calls it is
// told to (500), then answers 204, and keeps what it received.
type target struct {
	*httptest.Server
	mu       sync.Mutex
	fail     int
	received []received
}

type received struct {
	header http.Header
	body   []byte
}

func newTarget(t *testing.T, fail int) *target {
	tg := &target{fail: fail}
	tg.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		tg.mu.Lock()
		tg.received = append(tg.received, received{header: r.Header.Clone(), body: body})
		n := len(tg.received)
		tg.mu.Unlock()
		if n <= tg.fail {
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(tg.Close)
	return tg
}

func (tg *target) calls() []received {
	tg.mu.Lock()
	defer tg.mu.Unlock()
	return append([]received(nil), tg.received...)
}

// hook posts a webhook to the gateway as a provider would.
func hook(t *testing.T, h *apptest.Harness, path string, body []byte, headers ...string) apptest.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, h.URLs["gateway"]+path, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	res, err := h.Client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	return apptest.Response{Status: res.StatusCode, Header: res.Header, Body: raw}
}

func stripeEvent(id string, at time.Time) []byte {
	b, _ := json.Marshal(map[string]any{"id": id, "object": "event", "type": "checkout.session.completed", "created": at.Unix(),
		"api_version": stripe.DefaultAPIVersion, "livemode": false,
		"data": map[string]any{"object": map[string]any{"id": "cs_test_1", "object": "checkout.session", "customer_email": "buyer@example.com"}}})
	return b
}

func receivedWebhooks(t *testing.T, h *apptest.Harness) int64 {
	return h.Count(t, `SELECT count(*) FROM es_events WHERE event_type = 'gateway.webhook.received' AND organization_id = $1`, h.OrgID)
}

// TestWebhookSignatures: each provider's webhook route verifies with the
// connection's secret: a valid one is recorded once (its repeat answered
// as a duplicate, nothing new), a wrong, missing or stale signature is 400
// with nothing stored, a route of another provider or connection is 404;
// WhatsApp's GET handshake echoes the challenge for the right verify token.
func TestWebhookSignatures(t *testing.T) {
	h := startEdge(t, edgeOptions{})
	stripeID, _ := createConnection(t, h, "", map[string]any{"provider": "payments_provider_a", "name": "Stripe",
		"credentials": map[string]any{"secret_key": "sk_test_hooks", "webhook_secret": "whsec_stripe_hooks"}})
	path := "/webhooks/stripe/" + stripeID
	now := time.Now()
	payload := stripeEvent("evt_hooks_1", now)
	first := hook(t, h, path, payload, "Stripe-Signature", stripe.SignWebhook("whsec_stripe_hooks", payload, now))
	apptest.Must(t, first, http.StatusOK, "valid stripe webhook")
	again := hook(t, h, path, payload, "Stripe-Signature", stripe.SignWebhook("whsec_stripe_hooks", payload, now.Add(time.Second)))
	apptest.Must(t, again, http.StatusOK, "repeated stripe webhook")
	if !strings.Contains(string(first.Body), `"duplicate":false`) || !strings.Contains(string(again.Body), `"duplicate":true`) {
		t.Fatalf("first %s, again %s", first.Body, again.Body)
	}
	for name, c := range map[string]struct {
		path, code string
		headers    []string
		body       []byte
	}{
		"wrong secret": {path, "webhook_unverified", []string{"Stripe-Signature", stripe.SignWebhook("whsec_other", payload, now)}, payload},
		"tampered":     {path, "webhook_unverified", []string{"Stripe-Signature", stripe.SignWebhook("whsec_stripe_hooks", payload, now)}, stripeEvent("evt_hooks_2", now)},
		"missing":      {path, "webhook_unverified", nil, payload},
		"stale (replayed later)": {path, "webhook_stale", []string{"Stripe-Signature",
			stripe.SignWebhook("whsec_stripe_hooks", stripeEvent("evt_hooks_3", now), now.Add(-10*time.Minute))}, stripeEvent("evt_hooks_3", now)},
	} {
		res := hook(t, h, c.path, c.body, c.headers...)
		if res.Status != http.StatusBadRequest || !strings.Contains(string(res.Body), `"code":"`+c.code+`"`) ||
			res.Header.Get("Content-Type") != "application/problem+json" {
			t.Errorf("%s: %d %s", name, res.Status, res.Body)
		}
	}
	for _, p := range []string{"/webhooks/resend/" + stripeID, "/webhooks/stripe/conn_0000", "/webhooks/paypal/" + stripeID} {
		if res := hook(t, h, p, payload, "Stripe-Signature", stripe.SignWebhook("whsec_stripe_hooks", payload, now)); res.Status != http.StatusNotFound {
			t.Errorf("%s: %d %s", p, res.Status, res.Body)
		}
	}
	if n := receivedWebhooks(t, h); n != 1 {
		t.Fatalf("%d webhooks recorded, want 1 (refused and repeated ones record nothing)", n)
	}
	if n := h.Count(t, `SELECT count(*) FROM gateway_webhook_bodies`); n != 1 {
		t.Fatalf("%d bodies kept, want 1", n)
	}
	// No Idempotency-Key: a provider dedupes by its event id, so a key sent
	// anyway is ignored, unchecked (one past the kernel's 255 characters is
	// no reason to refuse a verified delivery) and never replayed (two
	// events under one key are two webhooks).
	for i, key := range []string{strings.Repeat("k", 300), "key-of-a-proxy", "key-of-a-proxy"} {
		ev := stripeEvent(fmt.Sprintf("evt_hooks_key_%d", i), now)
		res := hook(t, h, path, ev, "Stripe-Signature", stripe.SignWebhook("whsec_stripe_hooks", ev, now), "Idempotency-Key", key)
		apptest.Must(t, res, http.StatusOK, "a verified webhook with an Idempotency-Key")
		if !strings.Contains(string(res.Body), `"duplicate":false`) {
			t.Fatalf("event %d under key %.20q: %s", i, key, res.Body)
		}
	}
	if n := receivedWebhooks(t, h); n != 4 {
		t.Fatalf("%d webhooks recorded, want 4 (the Idempotency-Key is no webhook's identity)", n)
	}

	// WhatsApp: X-Hub-Signature-256 and the GET handshake.
	waID, _ := createConnection(t, h, "", map[string]any{"provider": "message_provider_a", "name": "WhatsApp",
		"settings":    map[string]any{"phone_number_id": "106540352242922"},
		"credentials": map[string]any{"access_token": "wa_token_hooks", "app_secret": "wa_app_secret_hooks", "verify_token": "wa_verify_hooks"}})
	waPath := "/webhooks/whatsapp/" + waID
	body := []byte(`{"object":"whatsapp_business_account","entry":[]}`)
	apptest.Must(t, hook(t, h, waPath, body, whatsapp.SignatureHeader, whatsapp.Webhook{AppSecret: "wa_app_secret_hooks"}.Sign(body)),
		http.StatusOK, "signed whatsapp webhook")
	if res := hook(t, h, waPath, body, whatsapp.SignatureHeader, whatsapp.Webhook{AppSecret: "other"}.Sign(body)); res.Status != http.StatusBadRequest {
		t.Fatalf("wrong whatsapp signature: %d", res.Status)
	}
	challenge := func(token string) apptest.Response {
		return h.Do(t, "gateway", http.MethodGet, waPath+"?hub.mode=subscribe&hub.verify_token="+token+"&hub.challenge=4242", "-", nil)
	}
	if res := challenge("wa_verify_hooks"); res.Status != http.StatusOK || string(res.Body) != "4242" {
		t.Fatalf("handshake: %d %s", res.Status, res.Body)
	}
	if res := challenge("wrong"); res.Status != http.StatusBadRequest || strings.Contains(string(res.Body), "4242") {
		t.Fatalf("handshake with a wrong token: %d %s", res.Status, res.Body)
	}

	// Resend: Svix headers with a timestamp.
	secret := "whsec_" + b64("resend-webhook-secret-of-the-test")
	rsID, _ := createConnection(t, h, "", map[string]any{"provider": "email_provider_b", "name": "Resend",
		"credentials": map[string]any{"api_key": "re_hooks", "webhook_secret": secret}})
	rsBody := []byte(`{"type":"email.opened","created_at":"2026-04-18T10:00:00Z","data":{"email_id":"x"}}`)
	signed := resend.Webhook{Secret: secret}.Sign("msg_hooks_1", time.Now(), rsBody)
	res := hook(t, h, "/webhooks/resend/"+rsID, rsBody, resend.HeaderID, signed.Get(resend.HeaderID), resend.HeaderTimestamp,
		signed.Get(resend.HeaderTimestamp), resend.HeaderSignature, signed.Get(resend.HeaderSignature))
	apptest.Must(t, res, http.StatusOK, "signed resend webhook")
	stale := resend.Webhook{Secret: secret}.Sign("msg_hooks_2", time.Now().Add(-time.Hour), rsBody)
	res = hook(t, h, "/webhooks/resend/"+rsID, rsBody, resend.HeaderID, stale.Get(resend.HeaderID), resend.HeaderTimestamp,
		stale.Get(resend.HeaderTimestamp), resend.HeaderSignature, stale.Get(resend.HeaderSignature))
	if res.Status != http.StatusBadRequest || !strings.Contains(string(res.Body), "webhook_stale") {
		t.Fatalf("stale resend webhook: %d %s", res.Status, res.Body)
	}
	// Postmark: the URL's Basic credentials; a connection without them verifies nothing.
	pmID, _ := createConnection(t, h, "", map[string]any{"provider": "email_provider_a", "name": "Postmark",
		"credentials": map[string]any{"server_token": "pm_hooks"}})
	pmBody := []byte(`{"RecordType":"Open","MessageID":"m"}`)
	req := func(user, pass string) apptest.Response {
		r, _ := http.NewRequest(http.MethodPost, h.URLs["gateway"]+"/webhooks/postmark/"+pmID, bytes.NewReader(pmBody))
		r.Header.Set("Content-Type", "application/json")
		r.SetBasicAuth(user, pass)
		resp, err := h.Client.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		return apptest.Response{Status: resp.StatusCode, Body: raw}
	}
	if r := req("any", "thing"); r.Status != http.StatusBadRequest {
		t.Fatalf("postmark without webhook credentials: %d %s", r.Status, r.Body)
	}
	apptest.Must(t, h.Do(t, "gateway", http.MethodPut, "/api/connections/"+pmID+"/credentials", "", map[string]any{"credentials": map[string]any{
		"server_token": "pm_hooks", "webhook_username": "pm_user", "webhook_password": "pm_pass"}}), http.StatusOK, "postmark webhook credentials")
	if r := req("pm_user", "wrong"); r.Status != http.StatusBadRequest {
		t.Fatalf("postmark with a wrong password: %d", r.Status)
	}
	apptest.Must(t, req("pm_user", "pm_pass"), http.StatusOK, "postmark with its credentials")
	if n := receivedWebhooks(t, h); n != 7 {
		t.Fatalf("%d webhooks recorded, want 7", n)
	}
	// Deleted: the route is gone.
	apptest.Must(t, h.Do(t, "gateway", http.MethodDelete, "/api/connections/"+stripeID, "", nil), http.StatusOK, "delete")
	if res := hook(t, h, path, stripeEvent("evt_hooks_9", now), "Stripe-Signature",
		stripe.SignWebhook("whsec_stripe_hooks", stripeEvent("evt_hooks_9", now), now)); res.Status != http.StatusNotFound {
		t.Fatalf("a deleted connection's webhook: %d", res.Status)
	}
}

// TestWebhookRelay: a verified webhook is relayed to the connection's
// webhook URL by the relay reactor through the outbound client, body and
// content type as they came; failures are retried with backoff (durable
// timers) until it lands; an endpoint that never takes it gets exactly the
// configured attempts, then gateway.webhook.failed, once and valid.
func TestWebhookRelay(t *testing.T) {
	flaky, dead := newTarget(t, 2), newTarget(t, 1000)
	h := startEdge(t, edgeOptions{gateway: func(g *gatewaymod.Config) { g.Edge.RelayAttempts = 3 }})
	connect := func(url, secret string) string {
		id, _ := createConnection(t, h, "", map[string]any{"provider": "payments_provider_a", "name": "relay", "webhook_url": url,
			"credentials": map[string]any{"secret_key": "sk_test_relay", "webhook_secret": secret}})
		return id
	}
	flakyID, deadID := connect(flaky.URL+"/hooks", "whsec_flaky"), connect(dead.URL, "whsec_dead")
	now := time.Now()
	payload := stripeEvent("evt_relay_1", now)
	first := hook(t, h, "/webhooks/stripe/"+flakyID, payload, "Stripe-Signature", stripe.SignWebhook("whsec_flaky", payload, now))
	apptest.Must(t, first, http.StatusOK, "webhook")
	var ans struct {
		WebhookID string `json:"webhook_id"`
	}
	first.JSON(t, &ans)
	apptest.Eventually(t, 30*time.Second, "the relay lands on its third attempt", func() bool { return len(flaky.calls()) >= 3 })
	calls := flaky.calls()
	last := calls[len(calls)-1]
	if !bytes.Equal(last.body, payload) || last.header.Get("X-Platform-Webhook-Id") != ans.WebhookID ||
		last.header.Get("X-Platform-Provider") != "payments_provider_a" || last.header.Get("X-Platform-Attempt") != "3" {
		t.Fatalf("relayed %s with %v", last.body, last.header)
	}
	// Every attempt is signed with the flaky connection's secret, at its
	// time; the dead connection's secret verifies none, nor does a changed body.
	secretOf := func(id string) string {
		res := get(t, h, "/api/connections/"+id+"/webhook-secret", "")
		apptest.Must(t, res, http.StatusOK, "relay secret")
		var s gatewaycmd.RelaySecret
		res.JSON(t, &s)
		if s.ConnectionID != id || !strings.HasPrefix(s.Secret, "whsec_") || s.Header != gatewaycmd.RelaySignatureHeader {
			t.Fatalf("relay secret %+v", s)
		}
		return s.Secret
	}
	flakySecret, deadSecret := secretOf(flakyID), secretOf(deadID)
	for i, c := range calls {
		sig := c.header.Get(gatewaycmd.RelaySignatureHeader)
		if err := gatewaycmd.VerifyRelay(flakySecret, sig, c.body, time.Now(), time.Minute); err != nil {
			t.Fatalf("attempt %d: %q does not verify: %v", i+1, sig, err)
		}
		if err := gatewaycmd.VerifyRelay(deadSecret, sig, c.body, time.Now(), time.Minute); err == nil {
			t.Fatalf("attempt %d verifies with another connection's secret", i+1)
		}
		if err := gatewaycmd.VerifyRelay(flakySecret, sig, append([]byte(" "), c.body...), time.Now(), time.Minute); err == nil {
			t.Fatalf("attempt %d verifies a changed body", i+1)
		}
	}
	apptest.Eventually(t, 20*time.Second, "relayed in the read model", func() bool {
		return strings.Contains(string(get(t, h, "/api/webhooks", "").Body), `"relay_status":"relayed"`)
	})
	deadPayload := stripeEvent("evt_relay_2", now)
	deadRes := hook(t, h, "/webhooks/stripe/"+deadID, deadPayload, "Stripe-Signature", stripe.SignWebhook("whsec_dead", deadPayload, now))
	apptest.Must(t, deadRes, http.StatusOK, "webhook to a dead endpoint")
	var deadAns struct {
		WebhookID string `json:"webhook_id"`
	}
	deadRes.JSON(t, &deadAns)
	got := h.Notifications(t, h.OrgID, "gateway.webhook.failed", 1)
	data, ok := got["gateway:webhook-failed:"+deadAns.WebhookID]
	if len(got) != 1 || !ok || data["request_id"] != deadAns.WebhookID || data["error"] != "http_error" {
		t.Fatalf("webhook.failed: %v", got)
	}
	time.Sleep(time.Second) // no attempt after the last
	if n := len(dead.calls()); n != 3 {
		t.Fatalf("the dead endpoint got %d attempts, want 3", n)
	}
	if n := len(flaky.calls()); n != 3 {
		t.Fatalf("the flaky endpoint got %d calls, want 3", n)
	}
	if n := h.Count(t, `SELECT count(*) FROM es_events WHERE event_type = 'gateway.webhook.relay_failed'`); n != 1 {
		t.Fatalf("%d relay failures recorded, want 1", n)
	}
	noInvalidNotifications(t, h)
	_ = fmt.Sprint
	_ = context.Background
}
