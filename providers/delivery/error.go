package delivery

import (
	"strconv"
	"time"

	"github.com/platform/backend/providers/outcome"
)

// Error is a classified failed attempt. Its text is ours (a few words, safe
// for events and logs); the upstream body is never kept. Kind is one of
// outcome's: ProviderFault, RateLimited, Rejected (the provider refused this
// message for good: invalid or inactive recipient, template not approved,
// sender not verified), Unauthorized, Canceled, Invalid (the message broke a
// rule before anything was sent: no recipient, a header with a line break,
// too many attachments).
type Error struct {
	Kind     outcome.Kind
	Provider string // "postmark", "resend", "smtp", "whatsapp", ...
	Reason   string // a few words: "inactive recipient", "provider timed out"
	// Status is the upstream HTTP status or SMTP reply code, 0 when none came.
	Status int
	// Code is the provider's own error code when it sent one ("406",
	// "validation_error", "131030").
	Code string
	// RetryAfter is the wait the provider asked for (RateLimited only);
	// zero when it did not say.
	RetryAfter time.Duration
	// RequestID is the provider's request id for this attempt, if any.
	RequestID string
	// Timeout is set when the provider did not answer in time (a
	// ProviderFault the gateway answers as 504 rather than 502). The
	// caller's own deadline is Canceled, never this.
	Timeout bool
	// MaybeDelivered is set when the request reached the provider but the
	// answer was lost or unreadable (timeout after the request was written,
	// malformed 2xx): the message may have gone out, so a retry without an
	// idempotency key the provider honours may send it twice.
	MaybeDelivered bool
	// Err is the cause, for errors.Is (context.Canceled,
	// context.DeadlineExceeded); never part of the text.
	Err error
}

func (e *Error) Error() string {
	s := e.Provider + ": " + string(e.Kind) + ": " + e.Reason
	if e.Code != "" {
		s += " (code " + e.Code + ")"
	} else if e.Status != 0 {
		s += " (status " + strconv.Itoa(e.Status) + ")"
	}
	return s
}

func (e *Error) Unwrap() error { return e.Err }

// Outcome is the error's kind (outcome.Of).
func (e *Error) Outcome() outcome.Kind { return e.Kind }

// Fail builds a classified error.
func Fail(provider string, kind outcome.Kind, reason string) *Error {
	return &Error{Provider: provider, Kind: kind, Reason: reason}
}
