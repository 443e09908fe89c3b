package postmark

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/platform/backend/providers/delivery"
)

// Webhook verifies and reads Postmark's delivery and bounce webhooks.
//
// Postmark signs nothing. A webhook URL is protected by HTTP Basic
// credentials written into the URL configured in Postmark
// (https://user:pass@host/path), so verifying a webhook means checking
// those credentials, which Verify does in constant time. There is no
// timestamp either, hence no replay protection here: receivers dedupe on
// (MessageID, recipient, kind).
type Webhook struct {
	Username string
	Password string
}

var _ delivery.WebhookReceiver = Webhook{}

// Verify checks the Basic credentials.
func (w Webhook) Verify(h http.Header) error {
	if h.Get("Authorization") == "" {
		return &delivery.WebhookError{Provider: Provider, Reason: delivery.MissingAuth, Detail: "Authorization"}
	}
	user, pass, ok := (&http.Request{Header: h}).BasicAuth()
	// Both comparisons run whatever the first one says.
	userOK := delivery.SecretEqual(user, w.Username)
	passOK := delivery.SecretEqual(pass, w.Password)
	if !ok || !userOK || !passOK || w.Username == "" {
		return &delivery.WebhookError{Provider: Provider, Reason: delivery.BadAuth, Detail: "basic credentials"}
	}
	return nil
}

// Sign sets the credentials on a webhook request: what Postmark does, and
// what tests and the fake use.
func (w Webhook) Sign(h http.Header) {
	r := &http.Request{Header: h}
	r.SetBasicAuth(w.Username, w.Password)
}

// Receive verifies the webhook and parses it.
func (w Webhook) Receive(h http.Header, body []byte) ([]delivery.Event, error) {
	if err := w.Verify(h); err != nil {
		return nil, err
	}
	return ParseWebhook(body)
}

// webhookPayload holds the members of the Delivery and Bounce records that
// the normalized event needs.
type webhookPayload struct {
	RecordType  string `json:"RecordType"`
	MessageID   string `json:"MessageID"`
	Recipient   string `json:"Recipient"`   // Delivery
	DeliveredAt string `json:"DeliveredAt"` // Delivery
	Email       string `json:"Email"`       // Bounce
	BouncedAt   string `json:"BouncedAt"`   // Bounce
	Type        string `json:"Type"`        // Bounce: HardBounce, SoftBounce, ...
}

// reportsFailure is false for bounce records that report no failed
// delivery (a delay Postmark will retry, an auto-reply, list management).
func reportsFailure(bounceType string) bool {
	switch bounceType {
	case "Transient", "AutoResponder", "Unsubscribe", "Subscribe", "AddressChange", "OpenRelayTest", "ChallengeVerification":
		return false
	}
	return true
}

// ParseWebhook reads one webhook record: a Delivery or a Bounce gives one
// event; other records (Open, Click, SpamComplaint, SubscriptionChange) and
// bounce records that are no failure give none.
func ParseWebhook(body []byte) ([]delivery.Event, error) {
	var p webhookPayload
	if err := json.Unmarshal(body, &p); err != nil {
		return nil, &delivery.WebhookError{Provider: Provider, Reason: delivery.Malformed, Detail: "body is not a record"}
	}
	ev := delivery.Event{Provider: Provider, MessageID: p.MessageID}
	var at string
	switch p.RecordType {
	case "Delivery":
		ev.Kind, ev.Recipient, at = delivery.Delivered, p.Recipient, p.DeliveredAt
	case "Bounce":
		if !reportsFailure(p.Type) {
			return nil, nil
		}
		ev.Kind, ev.Recipient, ev.Reason, at = delivery.Bounced, p.Email, p.Type, p.BouncedAt
	default:
		return nil, nil
	}
	occurred, err := time.Parse(time.RFC3339Nano, at)
	if err != nil || ev.MessageID == "" || ev.Recipient == "" {
		return nil, &delivery.WebhookError{Provider: Provider, Reason: delivery.Malformed, Detail: "record lacks id, recipient or time"}
	}
	ev.OccurredAt = occurred
	return []delivery.Event{ev}, nil
}
