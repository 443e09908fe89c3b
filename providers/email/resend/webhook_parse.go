package resend

import (
	"encoding/json"
	"time"

	"github.com/platform/backend/providers/delivery"
)

// webhookPayload holds what the normalized event needs of Resend's email
// events: {type, created_at, data: {email_id, to, bounce: {type}}}.
type webhookPayload struct {
	Type      string `json:"type"`
	CreatedAt string `json:"created_at"`
	Data      struct {
		EmailID string   `json:"email_id"`
		To      []string `json:"to"`
		Bounce  struct {
			Type string `json:"type"` // Permanent, Transient, Undetermined
		} `json:"bounce"`
	} `json:"data"`
}

// ParseWebhook reads one event: email.delivered, email.bounced and
// email.failed give one event per recipient in data.to; other types
// (sent, opened, clicked, complained, delivery_delayed, contact and domain
// events) give none.
func ParseWebhook(body []byte) ([]delivery.Event, error) {
	var p webhookPayload
	if err := json.Unmarshal(body, &p); err != nil {
		return nil, &delivery.WebhookError{Provider: Provider, Reason: delivery.Malformed, Detail: "body is not an event"}
	}
	var kind delivery.EventKind
	var reason string
	switch p.Type {
	case "email.delivered":
		kind = delivery.Delivered
	case "email.bounced":
		kind, reason = delivery.Bounced, p.Data.Bounce.Type
	case "email.failed":
		kind = delivery.Failed
	default:
		return nil, nil
	}
	at, ok := parseTime(p.CreatedAt)
	if !ok || p.Data.EmailID == "" || len(p.Data.To) == 0 {
		return nil, &delivery.WebhookError{Provider: Provider, Reason: delivery.Malformed, Detail: "event lacks id, recipient or time"}
	}
	events := make([]delivery.Event, 0, len(p.Data.To))
	for _, to := range p.Data.To {
		events = append(events, delivery.Event{Provider: Provider, MessageID: p.Data.EmailID, Recipient: to, Kind: kind,
			OccurredAt: at, Reason: reason})
	}
	return events, nil
}

// parseTime reads Resend's timestamps: ISO 8601 in webhooks, and the
// "2006-01-02 15:04:05.999999+00" form its API uses elsewhere.
func parseTime(s string) (time.Time, bool) {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02 15:04:05.999999-07"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}
