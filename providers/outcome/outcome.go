// Package outcome is the one vocabulary of what a failed provider call
// means, whatever the provider: every adapter family (AI, email and
// instant messages, payments, social networks) classifies its failures into
// these kinds, and the gateway and publishing decide from the kind alone
// (provider health, retry, what to answer), never from upstream text.
//
// A family adds a kind only where the others have no such case: AI's
// unsupported capability, Stripe's idempotency conflict, a social post's
// unknown outcome. Each is documented where it is defined.
package outcome

import "errors"

// Kind says what a failed provider call means.
type Kind string

const (
	// ProviderFault: the provider failed us (5xx, no answer in time, not
	// reachable, the connection lost, an answer that could not be read).
	// Counts against the provider's health; worth retrying.
	ProviderFault Kind = "provider_fault"
	// RateLimited: the provider asked us to slow down (429 or its own rate
	// codes), saying for how long when it did. Not a health problem; retry
	// later.
	RateLimited Kind = "rate_limited"
	// Rejected: the provider refused this request for the caller's reasons
	// (bad or missing parameters, an inactive recipient, a declined card,
	// duplicate or too long content, a missing object). Retrying the same
	// request gets the same answer.
	Rejected Kind = "rejected"
	// Invalid: refused before anything was sent (no recipient, params that
	// cannot be encoded, an unknown operation). No provider was called.
	Invalid Kind = "invalid"
	// Unauthorized: the connection's credential was refused (a wrong,
	// expired or revoked key or token, a scope missing, an account not
	// allowed). The connection needs attention (new credentials, a refresh,
	// connecting again); the provider itself is fine.
	Unauthorized Kind = "unauthorized"
	// Canceled: the caller's own context ended first (cancel or its
	// deadline). Never the provider's fault.
	Canceled Kind = "canceled"
)

// HurtsProviderHealth reports whether the failure is the provider's: health
// moves towards degraded on these and no others.
func (k Kind) HurtsProviderHealth() bool { return k == ProviderFault }

// Retryable reports whether the same request may succeed later.
func (k Kind) Retryable() bool { return k == ProviderFault || k == RateLimited }

// Classified is a provider failure that knows its kind: every adapter
// family's error.
type Classified interface {
	error
	Outcome() Kind
}

// Of is the kind of err: "" for nil, the kind a classified error in its
// chain carries, else ProviderFault (an adapter that returns anything else
// has a bug, and the safe reading of an unknown failure is that the call did
// not succeed).
func Of(err error) Kind {
	if err == nil {
		return ""
	}
	var c Classified
	if errors.As(err, &c) {
		return c.Outcome()
	}
	return ProviderFault
}
