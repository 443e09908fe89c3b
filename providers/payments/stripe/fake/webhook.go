package fake

import (
	"context"
	"net/http"

	"github.com/platform/backend/providers/fakekit"
	"github.com/platform/backend/providers/payments/stripe"
)

// WebhookEvent is what the fake sends: an event of Type about Object.
type WebhookEvent struct {
	Type               string         // "checkout.session.completed"
	Object             map[string]any // data.object
	PreviousAttributes map[string]any // data.previous_attributes, for *.updated
	// Account is the connected account the event happened in; "" for the
	// platform's own.
	Account string
}

// Delivery is the outcome of one webhook POST.
type Delivery struct {
	EventID string
	Status  int // the receiver's answer
}

// SendWebhook POSTs a signed event to url as Stripe would: the JSON
// envelope, Content-Type application/json, Stripe-Signature under
// Config.WebhookSecret at Config.Now.
func (s *Server) SendWebhook(ctx context.Context, url string, ev WebhookEvent) (Delivery, error) {
	id := s.newID("evt")
	now := s.cfg.Now()
	data := map[string]any{"object": ev.Object}
	if ev.PreviousAttributes != nil {
		data["previous_attributes"] = ev.PreviousAttributes
	}
	env := map[string]any{"id": id, "object": "event", "api_version": stripe.DefaultAPIVersion, "created": now.Unix(),
		"data": data, "livemode": false, "pending_webhooks": 1, "type": ev.Type,
		"request": map[string]any{"id": nil, "idempotency_key": nil}}
	if ev.Account != "" {
		env["account"] = ev.Account
	}
	payload := mustJSON(env)

	h := http.Header{}
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("User-Agent", "Stripe/1.0 (+https://stripe.com/docs/webhooks)")
	h.Set("Stripe-Signature", stripe.SignWebhook(s.cfg.WebhookSecret, payload, now))
	status, err := fakekit.PostWebhook(ctx, url, h, payload)
	return Delivery{EventID: id, Status: status}, err
}
