package gateway

import (
	"fmt"
	"time"

	"github.com/platform/backend/domain/event"
)

// StreamWebhook is one verified inbound provider webhook: received (once,
// however often the provider sends it), then its relay to the owning app's
// webhook URL: attempts, relayed or failed. The stream id is
// WebhookStreamID(webhook id), the id derived from the connection and the
// provider's own event id, so a repeated webhook finds its stream.
const StreamWebhook = "gateway.webhook"

// Webhook event types.
const (
	WebhookReceived       = "gateway.webhook.received"
	WebhookRelayAttempted = "gateway.webhook.relay_attempted"
	WebhookRelayFailed    = "gateway.webhook.relay_failed" // -> gateway.webhook.failed
)

// WebhookEventTypes are the webhooks area's event types.
var WebhookEventTypes = []string{WebhookReceived, WebhookRelayAttempted, WebhookRelayFailed}

// WebhookStreamID is the stream of a webhook.
func WebhookStreamID(id string) string { return "webhook:" + id }

// TimerKindWebhookRelay retries a webhook's relay (timer "relay" on its stream).
const TimerKindWebhookRelay = "gateway.webhook_relay"

// Relay statuses of a webhook.
const (
	RelayNone    = "none" // no webhook URL when it arrived: recorded only
	RelayPending = "pending"
	RelayDone    = "relayed"
	RelayFailed  = "failed"
)

// RelayStatuses lists them (schemas).
var RelayStatuses = []string{RelayNone, RelayPending, RelayDone, RelayFailed}

// WebhookReceivedV1 is a verified webhook: where from, what kind, a digest
// of its body (the body itself is kept apart, for the relay, never in the
// log) and the receipts it carried.
type WebhookReceivedV1 struct {
	WebhookID       string    `json:"webhook_id"`
	ConnectionID    string    `json:"connection_id"`
	Provider        string    `json:"provider"`
	ProviderEventID string    `json:"provider_event_id"`
	EventType       string    `json:"event_type"`
	BodySHA256      string    `json:"body_sha256"`
	Size            int       `json:"size"`
	Relay           bool      `json:"relay"` // the connection had a webhook URL
	Receipts        []Receipt `json:"receipts"`
	ReceivedAt      time.Time `json:"received_at"`
}

// Receipt is one delivery receipt a webhook carried.
type Receipt struct {
	MessageID     string    `json:"message_id"`
	Kind          string    `json:"kind"`
	RecipientHash string    `json:"recipient_hash"`
	Reason        string    `json:"reason,omitempty"`
	OccurredAt    time.Time `json:"occurred_at"`
}

// WebhookRelayAttemptedV1 is one POST to the app's webhook URL.
type WebhookRelayAttemptedV1 struct {
	WebhookID string     `json:"webhook_id"`
	Attempt   int        `json:"attempt"`
	OK        bool       `json:"ok"`
	Status    int        `json:"status"` // the app's HTTP status, 0 without an answer
	Error     string     `json:"error,omitempty"`
	NextAt    *time.Time `json:"next_at"`
	At        time.Time  `json:"at"`
}

// WebhookRelayFailedV1: the retries ran out.
type WebhookRelayFailedV1 struct {
	WebhookID    string    `json:"webhook_id"`
	ConnectionID string    `json:"connection_id"`
	Provider     string    `json:"provider"`
	Attempts     int       `json:"attempts"`
	Error        string    `json:"error"`
	At           time.Time `json:"at"`
}

// Webhook is the write model of a webhook stream.
type Webhook struct {
	Received WebhookReceivedV1
	Attempts int
	Relay    string
}

var webhookFolds = map[string]func(w *Webhook, r event.Recorded) error{
	WebhookReceived: func(w *Webhook, r event.Recorded) error {
		p, err := event.Decode[WebhookReceivedV1](r)
		w.Received, w.Relay = p, RelayNone
		if p.Relay {
			w.Relay = RelayPending
		}
		return err
	},
	WebhookRelayAttempted: func(w *Webhook, r event.Recorded) error {
		p, err := event.Decode[WebhookRelayAttemptedV1](r)
		w.Attempts = p.Attempt
		if p.OK {
			w.Relay = RelayDone
		}
		return err
	},
	WebhookRelayFailed: func(w *Webhook, _ event.Recorded) error { w.Relay = RelayFailed; return nil },
}

// LoadWebhook folds a webhook stream.
func LoadWebhook(history []event.Recorded) (*Webhook, error) {
	w := &Webhook{}
	for _, r := range history {
		if f, ok := webhookFolds[r.Type]; ok {
			if err := f(w, r); err != nil {
				return nil, fmt.Errorf("%s: %w", r.Type, err)
			}
		}
	}
	return w, nil
}

// Exists reports whether the webhook was received.
func (w *Webhook) Exists() bool { return w.Received.WebhookID != "" }

// Receive records a verified webhook once: a repeat (the provider's retry,
// or a replay within its signature's tolerance) records nothing.
func (w *Webhook) Receive(in WebhookReceivedV1) []event.Change {
	if w.Exists() {
		return nil
	}
	if in.Receipts == nil {
		in.Receipts = []Receipt{}
	}
	return []event.Change{event.New(WebhookReceived, in)}
}

// RelayAttempt records attempt n of the relay: a success ends it; a
// failure schedules the next attempt at next, or, past maxAttempts, fails
// the relay (gateway.webhook.failed). An attempt that is not the next one
// (a redelivered reactor event, a timer that fired twice) records nothing.
func (w *Webhook) RelayAttempt(n int, ok bool, status int, reason string, maxAttempts int, next, now time.Time) []event.Change {
	if !w.Exists() || w.Relay != RelayPending || n != w.Attempts+1 {
		return nil
	}
	a := WebhookRelayAttemptedV1{WebhookID: w.Received.WebhookID, Attempt: n, OK: ok, Status: status, Error: reason, At: now}
	if ok {
		return []event.Change{event.New(WebhookRelayAttempted, a)}
	}
	if n < maxAttempts {
		a.NextAt = &next
		c := event.New(WebhookRelayAttempted, a)
		c.Timers = []event.Timer{event.ScheduleTimer("relay", TimerKindWebhookRelay, next, RelayTimer{Attempt: n + 1})}
		return []event.Change{c}
	}
	if reason == "" {
		reason = "relay failed"
	}
	return []event.Change{event.New(WebhookRelayAttempted, a), event.New(WebhookRelayFailed, WebhookRelayFailedV1{
		WebhookID: w.Received.WebhookID, ConnectionID: w.Received.ConnectionID, Provider: w.Received.Provider, Attempts: n,
		Error: reason, At: now})}
}

// RelayTimer is the relay timer's payload: the attempt it makes.
type RelayTimer struct {
	Attempt int `json:"attempt"`
}
