package delivery

import (
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
)

// WebhookReason says why an inbound webhook was refused.
type WebhookReason string

const (
	// MissingAuth: the signature (or credentials) header is absent or empty.
	MissingAuth WebhookReason = "missing signature"
	// BadAuth: a signature or credentials were given and do not match.
	BadAuth WebhookReason = "signature mismatch"
	// Stale: the signed timestamp is outside the tolerance: a replay, or a
	// clock far off.
	Stale WebhookReason = "stale timestamp"
	// Malformed: the headers or the body cannot be read.
	Malformed WebhookReason = "malformed webhook"
)

// WebhookError refuses an inbound webhook. Compare with errors.Is against
// the sentinels below: the reason decides, not the detail.
type WebhookError struct {
	Provider string
	Reason   WebhookReason
	Detail   string // which header, a few words
}

func (e *WebhookError) Error() string {
	s := e.Provider + " webhook: " + string(e.Reason)
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	return s
}

// Is matches any WebhookError with the same reason.
func (e *WebhookError) Is(target error) bool {
	t, ok := target.(*WebhookError)
	return ok && t.Reason == e.Reason
}

// Sentinels for errors.Is.
var (
	ErrWebhookMissingAuth = &WebhookError{Reason: MissingAuth}
	ErrWebhookBadAuth     = &WebhookError{Reason: BadAuth}
	ErrWebhookStale       = &WebhookError{Reason: Stale}
	ErrWebhookMalformed   = &WebhookError{Reason: Malformed}
)

// WebhookReceiver verifies an inbound webhook and parses its deliveries
// and bounces; each provider package has one.
type WebhookReceiver interface {
	Receive(header http.Header, body []byte) ([]Event, error)
}

// SecretEqual compares two secrets in time that depends on neither: both
// are hashed first, so not even their lengths leak.
func SecretEqual(got, want string) bool {
	g, w := sha256.Sum256([]byte(got)), sha256.Sum256([]byte(want))
	return subtle.ConstantTimeCompare(g[:], w[:]) == 1
}
