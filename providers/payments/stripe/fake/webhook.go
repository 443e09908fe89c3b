package fake

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"time"

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
	s.mu.Lock()
	id := s.newID("evt")
	s.mu.Unlock()
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

	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(payload))
	if err != nil {
		return Delivery{EventID: id}, err
	}
	req.Header.Set("Content-Type", "application/json; charset=utf-8")
	req.Header.Set("User-Agent", "Stripe/1.0 (+https://stripe.com/docs/webhooks)")
	req.Header.Set("Stripe-Signature", stripe.SignWebhook(s.cfg.WebhookSecret, payload, now))
	resp, err := (&http.Client{}).Do(req)
	if err != nil {
		return Delivery{EventID: id}, err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	return Delivery{EventID: id, Status: resp.StatusCode}, nil
}
