package delivery

import (
	"errors"
	"strconv"
	"time"
)

// Error is a classified failed attempt. Its text is ours (a few words, safe
// for events and logs); the upstream body is never kept.
type Error struct {
	Kind     Kind
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

// Fail builds a classified error.
func Fail(provider string, kind Kind, reason string) *Error {
	return &Error{Provider: provider, Kind: kind, Reason: reason}
}

// KindOf returns the kind of a classified error, or ProviderFault for any
// other non-nil error (an adapter that returns one has a bug, and the safe
// reading of an unknown failure is that the attempt did not succeed), or ""
// for nil.
func KindOf(err error) Kind {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return ProviderFault
}
