package delivery

import "time"

// EventKind is what happened to a message after the provider accepted it.
type EventKind string

const (
	// Delivered: the recipient's server (or device) accepted the message.
	Delivered EventKind = "delivered"
	// Bounced: the recipient's mail server refused it.
	Bounced EventKind = "bounced"
	// Failed: the provider gave up on it for another reason (WhatsApp
	// "failed", Resend "email.failed").
	Failed EventKind = "failed"
)

// Event is one provider webhook's delivery or bounce, normalized. Webhooks
// of other kinds (opens, clicks, reads, inbound messages) are not parsed.
type Event struct {
	Provider   string
	MessageID  string // the id the provider returned when it accepted the message
	Recipient  string // email address or phone number
	Kind       EventKind
	OccurredAt time.Time
	// Reason is the provider's short code for a bounce or failure
	// ("HardBounce", "Permanent", "131026"), never its free text.
	Reason string
}
