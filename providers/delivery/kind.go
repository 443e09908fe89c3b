// Package delivery is what every email and instant-message adapter shares
// with the usage gateway: the outcome of one provider attempt (a Receipt, or
// an *Error whose Kind says whose fault it was), the normalized webhook
// Event, the webhook verification errors, and the one HTTP exchange the
// adapters make (Endpoint).
//
// The gateway decides provider health and gateway.delivery.failed from the
// Kind alone; it never reads upstream text, which is why Error carries a few
// words of ours and never the provider's body.
package delivery

// Kind says what an attempt's failure means for the gateway.
type Kind string

const (
	// ProviderFault: the provider failed us (5xx, it timed out, it could not
	// be reached, its answer was malformed). Counts against provider health;
	// worth retrying.
	ProviderFault Kind = "provider_fault"
	// RateLimited: the provider asked us to slow down (429); RetryAfter says
	// for how long when it said so. Not a health problem; retry later.
	RateLimited Kind = "rate_limited"
	// Rejected: the provider refused this message for good (invalid or
	// inactive recipient, template not approved, sender not verified). A
	// failed terminal result for this delivery, not a provider health
	// problem; retrying the same message gives the same answer.
	Rejected Kind = "rejected"
	// Unauthorized: the connection's credential was refused (bad or expired
	// token, account not allowed to send). The connection needs attention;
	// the provider itself is fine.
	Unauthorized Kind = "unauthorized"
	// Canceled: the caller's own context ended first (cancel or its
	// deadline). Never a provider fault.
	Canceled Kind = "canceled"
	// Invalid: the message broke a rule before anything was sent (no
	// recipient, a header with a line break, too many attachments). No
	// provider was called; the gateway answers invalid_input.
	Invalid Kind = "invalid"
)

// HurtsProviderHealth reports whether the failure is the provider's: the
// gateway moves its health towards degraded on these and no others.
func (k Kind) HurtsProviderHealth() bool { return k == ProviderFault }

// Retryable reports whether trying the same message later may succeed.
func (k Kind) Retryable() bool { return k == ProviderFault || k == RateLimited }

// Terminal reports whether this delivery has failed for good: the gateway
// emits gateway.delivery.failed for these.
func (k Kind) Terminal() bool { return k == Rejected || k == Unauthorized || k == Invalid }
