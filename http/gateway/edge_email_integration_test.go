package gateway_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/platform/backend/internal/apptest"
	gatewaymod "github.com/platform/backend/internal/modules/gateway"
	"github.com/platform/backend/internal/testenv"
	"github.com/platform/backend/providers/delivery"
	"github.com/platform/backend/providers/email/postmark"
	postmarkfake "github.com/platform/backend/providers/email/postmark/fake"
	"github.com/platform/backend/providers/fakekit"
)

// delivered is a send's answer.
type delivered struct {
	DeliveryID   string `json:"delivery_id"`
	Status       string `json:"status"`
	Provider     string `json:"provider"`
	ConnectionID string `json:"connection_id"`
	MessageID    string `json:"message_id"`
	RequestID    string `json:"request_id"`
	Recipients   int    `json:"recipients"`
	Attempts     int    `json:"attempts"`
	Sandbox      bool   `json:"sandbox"`
}

func sendEmail(t *testing.T, h *apptest.Harness, token string, body map[string]any, headers ...string) apptest.Response {
	t.Helper()
	return h.Do(t, "gateway", http.MethodPost, "/api/email/send", token, body, headers...)
}

// usageOf lists the usage events of an action with their outcome.
func usageOf(t *testing.T, h *apptest.Harness, org, action string) []string {
	t.Helper()
	rows, err := h.App.Pool.Query(context.Background(), `SELECT payload->>'outcome' FROM es_events WHERE event_type = 'gateway.usage.recorded'
		AND organization_id = $1 AND payload->>'action' = $2 ORDER BY global_seq`, org, action)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var o string
		_ = rows.Scan(&o)
		out = append(out, o)
	}
	return out
}

// TestEmailSend: email.send through an organization's own Postmark
// connection chosen by its default profile (sender, reply-to, app), metered
// per recipient with the BYOK flag, once per Idempotency-Key; provider
// faults classified, retried while worth it and each attempt metered; a
// failed terminal result is gateway.delivery.failed once; a lost answer is
// never sent again; a bounce webhook marks the delivery bounced and
// notifies once; the sandbox serves an organization without a connection;
// another organization reaches none of it.
func TestEmailSend(t *testing.T) {
	pm := postmarkfake.Start(postmarkfake.Options{ServerToken: "pm_email_token", Webhook: postmark.Webhook{Username: "pm_u", Password: "pm_p"}})
	defer pm.Close()
	h := startEdge(t, edgeOptions{gateway: func(g *gatewaymod.Config) {
		g.Edge.BaseURLs = map[string]string{"email_provider_a": pm.URL()}
		g.Metering.CallTimeout = 2 * time.Second
	}})
	connID, _ := createConnection(t, h, "", map[string]any{"provider": "email_provider_a", "name": "Postmark",
		"credentials": map[string]any{"server_token": "pm_email_token", "webhook_username": "pm_u", "webhook_password": "pm_p"}})
	profile := post(t, h, "/api/email/profiles", "", map[string]any{"connection_id": connID, "profile_name": "Shop", "from_name": "Shop",
		"from_email": "shop@example.com", "reply_to_email": "help@example.com", "app_id": "shop-app", "is_default": true})
	apptest.Must(t, profile, http.StatusCreated, "profile")
	var p struct {
		Profile struct {
			ID string `json:"id"`
		} `json:"profile"`
	}
	profile.JSON(t, &p)

	// A send through the default profile.
	msg := map[string]any{"to": []string{"a@example.com", "b@example.com"}, "cc": []string{"c@example.com"}, "subject": "Your order",
		"text": "Thanks.", "tags": []map[string]any{{"name": "kind", "value": "receipt"}}}
	res := sendEmail(t, h, "", msg)
	apptest.Must(t, res, http.StatusOK, "send")
	var d delivered
	res.JSON(t, &d)
	if d.Status != "sent" || d.Provider != "email_provider_a" || d.ConnectionID != connID || d.Recipients != 3 || d.MessageID != postmarkfake.MessageID(1) ||
		d.Sandbox {
		t.Fatalf("sent %+v", d)
	}
	var wire struct{ From, ReplyTo, To, Cc, Tag string }
	_ = json.Unmarshal(pm.Requests()[0].Body, &wire)
	if wire.From != `"Shop" <shop@example.com>` && wire.From != "Shop <shop@example.com>" || wire.ReplyTo != "help@example.com" || wire.Tag != "receipt" {
		t.Fatalf("postmark got %+v", wire)
	}
	events := usageEvents(t, h, "", 1)
	if ev := events[0]; ev["event_type"] != "email.send" || ev["provider"] != "email_provider_a" || ev["byok"] != true ||
		ev["app_id"] != "shop-app" || ev["units"].(map[string]any)["messages"] != float64(3) || ev["connection_id"] != connID {
		t.Fatalf("usage event %v", ev)
	}

	// The same Idempotency-Key: the first answer, nothing sent; another request under it: 422.
	keyed := sendEmail(t, h, "", map[string]any{"to": "k@example.com", "subject": "Once", "text": "x"}, "Idempotency-Key", "email-once")
	apptest.Must(t, keyed, http.StatusOK, "keyed send")
	replay := sendEmail(t, h, "", map[string]any{"to": "k@example.com", "subject": "Once", "text": "x"}, "Idempotency-Key", "email-once")
	apptest.Must(t, replay, http.StatusOK, "replayed send")
	if replay.Header.Get("Idempotent-Replayed") != "true" || string(replay.Body) != string(keyed.Body) || len(pm.Requests()) != 2 {
		t.Fatalf("replay %s (%d calls): %s", replay.Header.Get("Idempotent-Replayed"), len(pm.Requests()), replay.Body)
	}
	apptest.ExpectProblem(t, sendEmail(t, h, "", map[string]any{"to": "other@example.com", "subject": "Once", "text": "x"},
		"Idempotency-Key", "email-once"), http.StatusUnprocessableEntity, "idempotency_key_reused")

	// The provider refuses for good: 422, once, no retry, delivery.failed.
	pm.Next(1, fakekit.Fault{Kind: fakekit.Reject, Code: "406"})
	calls := len(pm.Requests())
	rejected := sendEmail(t, h, "", map[string]any{"to": "inactive@example.com", "subject": "x", "text": "x"})
	apptest.ExpectProblem(t, rejected, http.StatusUnprocessableEntity, "invalid_input")
	if len(pm.Requests()) != calls+1 {
		t.Fatal("a rejected message was tried again")
	}
	// The provider fails three times: retried, each attempt metered, then failed.
	pm.Next(3, fakekit.Fault{Kind: fakekit.ServerError})
	faulted := sendEmail(t, h, "", map[string]any{"to": "f@example.com", "subject": "x", "text": "x"})
	apptest.ExpectProblem(t, faulted, http.StatusBadGateway, "provider_error")
	// Once, then it lands: one more attempt, sent.
	pm.Next(1, fakekit.Fault{Kind: fakekit.ServerError})
	apptest.Must(t, sendEmail(t, h, "", map[string]any{"to": "r@example.com", "subject": "x", "text": "x"}), http.StatusOK, "retried send")
	// Rate limited with Retry-After: waited, then sent.
	pm.Next(1, fakekit.Fault{Kind: fakekit.RateLimit, RetryAfter: time.Second})
	apptest.Must(t, sendEmail(t, h, "", map[string]any{"to": "rl@example.com", "subject": "x", "text": "x"}), http.StatusOK, "rate limited send")
	// The answer is lost after the request left (Postmark honours no key): unknown, never sent again.
	pm.Next(1, fakekit.Fault{Kind: fakekit.Hang})
	lost := sendEmail(t, h, "", map[string]any{"to": "h@example.com", "subject": "x", "text": "x"}, "Idempotency-Key", "email-lost")
	apptest.ExpectProblem(t, lost, http.StatusGatewayTimeout, "provider_timeout")
	calls = len(pm.Requests())
	apptest.ExpectProblem(t, sendEmail(t, h, "", map[string]any{"to": "h@example.com", "subject": "x", "text": "x"}, "Idempotency-Key", "email-lost"),
		http.StatusConflict, "delivery_outcome_unknown")
	if len(pm.Requests()) != calls {
		t.Fatal("a delivery whose outcome is unknown was sent again")
	}
	outcomes := usageOf(t, h, h.OrgID, "email.send")
	want := []string{"ok", "ok", "invalid_request", "provider_error", "provider_error", "provider_error", "provider_error", "ok",
		"rate_limited", "ok", "timeout"}
	if strings.Join(outcomes, ",") != strings.Join(want, ",") {
		t.Fatalf("usage outcomes %v, want %v", outcomes, want)
	}
	failed := h.Notifications(t, h.OrgID, "gateway.delivery.failed", 2)
	if len(failed) != 2 {
		t.Fatalf("delivery.failed %v, want the rejected and the faulted sends", failed)
	}
	for key, data := range failed {
		if !strings.HasPrefix(key, "gateway:delivery-failed:") || data["provider"] != "email_provider_a" || data["app_id"] != "shop-app" ||
			data["error"] == "" || data["request_id"] == "" {
			t.Fatalf("%s: %v", key, data)
		}
	}

	// A bounce of the first message: the delivery is bounced, notified once however often it comes.
	hookURL := h.URLs["gateway"] + "/webhooks/postmark/" + connID
	bounce := delivery.Event{MessageID: d.MessageID, Recipient: "a@example.com", Kind: delivery.Bounced, OccurredAt: time.Now().UTC()}
	for range 2 {
		if status, err := pm.SendWebhook(context.Background(), hookURL, bounce); err != nil || status != http.StatusOK {
			t.Fatalf("bounce webhook: %d %v", status, err)
		}
	}
	ok := delivery.Event{MessageID: d.MessageID, Recipient: "b@example.com", Kind: delivery.Delivered, OccurredAt: time.Now().UTC()}
	if status, err := pm.SendWebhook(context.Background(), hookURL, ok); err != nil || status != http.StatusOK {
		t.Fatalf("delivered webhook: %d %v", status, err)
	}
	apptest.Eventually(t, 30*time.Second, "the delivery bounced", func() bool {
		return strings.Contains(string(get(t, h, "/api/deliveries/"+d.DeliveryID, "").Body), `"status":"bounced"`)
	})
	got := h.Notifications(t, h.OrgID, "gateway.delivery.failed", 3)
	if _, ok := got["gateway:delivery-failed:"+d.DeliveryID+":receipt"]; !ok || len(got) != 3 {
		t.Fatalf("bounce notified: %v", got)
	}
	apptest.Eventually(t, 10*time.Second, "both receipts recorded", func() bool {
		return h.Count(t, `SELECT count(*) FROM es_events WHERE stream_id = $1 AND event_type = 'gateway.delivery.receipt'`,
			"delivery:"+d.DeliveryID) == 2
	})

	// The sandbox serves an organization without a connection; other organizations reach nothing of the first's.
	org2, other := h.NewOrganization(t, "Other", testenv.UniqueName("other"), apptest.DefaultScopes...)
	sb := sendEmail(t, h, other, map[string]any{"to": "x@example.com", "from": "Other <o@example.com>", "subject": "Hi", "text": "x"})
	apptest.Must(t, sb, http.StatusOK, "sandbox send")
	var sd delivered
	sb.JSON(t, &sd)
	if !sd.Sandbox || sd.ConnectionID != "sandbox:email_provider_a" {
		t.Fatalf("sandbox send %+v", sd)
	}
	apptest.ExpectProblem(t, sendEmail(t, h, other, map[string]any{"to": "x@example.com", "subject": "Hi", "text": "x", "profile_id": p.Profile.ID}),
		http.StatusUnprocessableEntity, "invalid_input")
	apptest.ExpectProblem(t, get(t, h, "/api/deliveries/"+d.DeliveryID, other), http.StatusNotFound, "not_found")
	apptest.ExpectProblem(t, get(t, h, "/api/email/profiles/"+p.Profile.ID, other), http.StatusNotFound, "not_found")
	apptest.ExpectProblem(t, patch(t, h, "/api/email/profiles/"+p.Profile.ID, other, map[string]any{"profile_name": "x"}), http.StatusNotFound, "not_found")
	apptest.ExpectProblem(t, h.Do(t, "gateway", http.MethodDelete, "/api/email/profiles/"+p.Profile.ID, other, nil), http.StatusNotFound, "not_found")
	apptest.ExpectProblem(t, post(t, h, "/api/email/profiles", other, map[string]any{"connection_id": connID, "profile_name": "x",
		"from_name": "x", "from_email": "x@example.com"}), http.StatusUnprocessableEntity, "invalid_input")
	for _, path := range []string{"/api/email/profiles", "/api/deliveries", "/api/webhooks", "/api/connections"} {
		body := string(get(t, h, path, other).Body)
		if strings.Contains(body, connID) || strings.Contains(body, d.DeliveryID) || strings.Contains(body, p.Profile.ID) {
			t.Errorf("%s shows the first organization's: %s", path, body)
		}
	}
	_ = org2
	noInvalidNotifications(t, h)
}
