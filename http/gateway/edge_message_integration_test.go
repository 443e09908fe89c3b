package gateway_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/platform/backend/domain/principal"
	"github.com/platform/backend/internal/apptest"
	gatewaymod "github.com/platform/backend/internal/modules/gateway"
	"github.com/platform/backend/providers/delivery"
	"github.com/platform/backend/providers/fakekit"
	whatsappfake "github.com/platform/backend/providers/message/whatsapp/fake"
)

// TestInstantMessage: instant_message.send takes only the notification and
// messaging-dispatch services' identities (runtime authorization); a
// message on an organization's connection belongs to that organization
// (metered, visible to it), one on the platform's to the platform; text and
// templates reach the WhatsApp Cloud API; a refused message and retries
// that ran out are gateway.delivery.failed; a refused token deauthorizes the
// connection; a failed status webhook marks the delivery bounced.
func TestInstantMessage(t *testing.T) {
	wa := whatsappfake.Start(whatsappfake.Options{AccessToken: "wa_token_msg", PhoneNumberIDs: []string{"111222333"}, AppSecret: "wa_secret_msg"})
	defer wa.Close()
	h := startEdge(t, edgeOptions{gateway: func(g *gatewaymod.Config) {
		g.Edge.BaseURLs = map[string]string{"message_provider_a": wa.URL()}
	}})
	ctx := context.Background()
	notify, err := h.Access().Keys().Issue(ctx, "notifications", 0)
	if err != nil {
		t.Fatal(err)
	}
	dispatch, _ := h.Access().Keys().Issue(ctx, "messaging_dispatch", 0)
	identity, _ := h.Access().Keys().Issue(ctx, "identity", 0)
	connID, _ := createConnection(t, h, "", map[string]any{"provider": "message_provider_a", "name": "WhatsApp",
		"settings": map[string]any{"phone_number_id": "111222333"}, "app_id": "support",
		"credentials": map[string]any{"access_token": "wa_token_msg", "app_secret": "wa_secret_msg"}})
	send := func(token string, body map[string]any) apptest.Response {
		return h.Do(t, "gateway", http.MethodPost, "/api/instant-message/send", token, body)
	}
	text := map[string]any{"to": "+15551234567", "connection_id": connID, "type": "text", "text": "Your code is 1234", "app_id": "support"}
	for name, token := range map[string]string{"tenant key": "", "identity": identity, "operator": h.OperatorKey(t)} {
		apptest.ExpectProblem(t, send(token, text), http.StatusForbidden, "permission_denied")
		_ = name
	}
	res := send(notify, text)
	apptest.Must(t, res, http.StatusOK, "text by the notification service")
	var d delivered
	res.JSON(t, &d)
	if d.Status != "sent" || d.ConnectionID != connID || d.MessageID != whatsappfake.MessageID(1) {
		t.Fatalf("sent %s", res.Body)
	}
	if r := wa.Requests()[0]; r.Path != "/v21.0/111222333/messages" || !strings.Contains(string(r.Body), `"body":"Your code is 1234"`) {
		t.Fatalf("whatsapp got %s %s", r.Path, r.Body)
	}
	// The tenant sees its message; the usage event is the tenant's.
	apptest.Eventually(t, 20*time.Second, "the tenant's delivery", func() bool {
		return strings.Contains(string(get(t, h, "/api/deliveries/"+d.DeliveryID, "").Body), `"channel":"message"`)
	})
	if outcomes := usageOf(t, h, h.OrgID, "instant_message.send"); len(outcomes) != 1 || outcomes[0] != "ok" {
		t.Fatalf("tenant usage %v", outcomes)
	}
	// A template by messaging dispatch on the platform's (sandbox) connection.
	tpl := send(dispatch, map[string]any{"to": "+15557654321", "type": "template", "template": map[string]any{"name": "order_update",
		"language": "en_US", "components": []any{map[string]any{"type": "body", "parameters": []any{map[string]any{"type": "text", "text": "42"}}}}}})
	apptest.Must(t, tpl, http.StatusOK, "template by messaging dispatch")
	if !strings.Contains(string(tpl.Body), `"connection_id":"sandbox:message_provider_a"`) || !strings.Contains(string(tpl.Body), `"sandbox":true`) {
		t.Fatalf("template answered %s", tpl.Body)
	}
	if outcomes := usageOf(t, h, principal.PlatformTenant, "instant_message.send"); len(outcomes) != 1 {
		t.Fatalf("platform usage %v", outcomes)
	}
	// Refused for good (not a WhatsApp user), then retries that run out.
	wa.Next(1, fakekit.Fault{Kind: fakekit.Reject, Code: "131026"})
	apptest.ExpectProblem(t, send(notify, text), http.StatusUnprocessableEntity, "invalid_input")
	wa.Next(3, fakekit.Fault{Kind: fakekit.ServerError})
	apptest.ExpectProblem(t, send(notify, text), http.StatusBadGateway, "provider_error")
	failed := h.Notifications(t, h.OrgID, "gateway.delivery.failed", 2)
	for key, data := range failed {
		if data["provider"] != "message_provider_a" || data["app_id"] != "support" || data["error"] == "" {
			t.Fatalf("%s: %v", key, data)
		}
	}
	// A failed status webhook of the first message: bounced, notified once.
	url := h.URLs["gateway"] + "/webhooks/whatsapp/" + connID
	ev := delivery.Event{MessageID: d.MessageID, Recipient: "15551234567", Kind: delivery.Failed, OccurredAt: time.Now().UTC()}
	for range 2 {
		if status, err := wa.SendWebhook(ctx, url, ev); err != nil || status != http.StatusOK {
			t.Fatalf("status webhook: %d %v", status, err)
		}
	}
	apptest.Eventually(t, 30*time.Second, "the message bounced", func() bool {
		return strings.Contains(string(get(t, h, "/api/deliveries/"+d.DeliveryID, "").Body), `"status":"bounced"`)
	})
	h.Notifications(t, h.OrgID, "gateway.delivery.failed", 3)
	// The token is refused: the connection is deauthorized (not the provider's health).
	wa.Next(1, fakekit.Fault{Kind: fakekit.Unauthorized})
	apptest.ExpectProblem(t, send(notify, text), http.StatusConflict, "connection_unauthorized")
	got := h.Notifications(t, h.OrgID, "gateway.provider.disconnected", 1)
	for _, data := range got {
		if data["status"] != "deauthorized" || data["connection_id"] != connID {
			t.Fatalf("disconnected %v", data)
		}
	}
	apptest.ExpectProblem(t, send(notify, text), http.StatusConflict, "connection_deauthorized")
	if n := h.Count(t, `SELECT count(*) FROM es_events WHERE event_type = 'gateway.provider.degraded' AND organization_id = $1
		AND payload->>'provider' = 'message_provider_a' AND payload->>'error' LIKE '%unauthorized%'`, h.OrgID); n != 0 {
		t.Fatal("a refused token degraded the provider")
	}
	// The refused token's round is a failed terminal result too: four in all, each once.
	h.Notifications(t, h.OrgID, "gateway.delivery.failed", 4)
	time.Sleep(time.Second)
	if n := len(h.Notifications(t, h.OrgID, "gateway.delivery.failed", 4)); n != 4 {
		t.Fatalf("%d delivery.failed notifications, want 4", n)
	}
	noInvalidNotifications(t, h)
}
