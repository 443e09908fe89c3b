package ai

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// Kind is what went wrong, in the terms the gateway decides on: whether the
// provider's health suffers, whether to retry, what to tell the client.
type Kind string

const (
	// KindProviderFault: the provider failed (5xx, its own timeout, an
	// answer that could not be decoded, a cut stream, a stream without its
	// usage). Counts against provider health; retryable.
	KindProviderFault Kind = "provider_fault"
	// KindRateLimited: the provider said 429. RetryAfter says when, if it said.
	KindRateLimited Kind = "rate_limited"
	// KindInvalidRequest: the caller's input (400, 404, 422, or refused
	// before sending). Not the provider's fault; do not retry as is.
	KindInvalidRequest Kind = "invalid_request"
	// KindUnauthorized: the connection's key was refused (401, 403).
	KindUnauthorized Kind = "unauthorized"
	// KindCanceled: the caller's own context ended (cancel or deadline), or
	// the caller's stream callback stopped the stream. Never the provider's
	// fault.
	KindCanceled Kind = "canceled"
	// KindUnsupported: the connection cannot do this (see Capabilities);
	// known before any network call.
	KindUnsupported Kind = "unsupported"
)

// Reasons that have a meaning beyond their words: the gateway may test for
// them (a cut stream and a stream without usage both settle at an estimate).
const (
	ReasonTimeout      = "provider timeout"
	ReasonStreamCut    = "stream cut"
	ReasonUsageMissing = "usage missing"
	ReasonMalformed    = "malformed answer"
	ReasonConnection   = "connection failed"
	ReasonCanceled     = "canceled by caller"
)

// Error is the one error type every adapter returns. Its message is a few
// words: never the upstream body, which may echo the request or a key.
type Error struct {
	Kind       Kind
	Protocol   string     // "openai", "anthropic", "gemini", "workersai"
	Capability Capability // what was asked (CapChat for Complete, CapStream for Stream ...)
	Status     int        // HTTP status, 0 when there was none
	Reason     string     // a few words: "status 503", "provider timeout", "stream cut"
	Code       string     // the provider's short error code when it gave one ("rate_limit_error", "RESOURCE_EXHAUSTED"), sanitized
	RetryAfter time.Duration
	RequestID  string
	cause      error
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("ai")
	if e.Protocol != "" {
		b.WriteString(" " + e.Protocol)
	}
	if e.Capability != 0 {
		b.WriteString(" " + e.Capability.String())
	}
	b.WriteString(": " + string(e.Kind))
	if e.Reason != "" {
		b.WriteString(": " + e.Reason)
	}
	if e.Code != "" {
		b.WriteString(" (" + e.Code + ")")
	}
	if e.RetryAfter > 0 {
		fmt.Fprintf(&b, ", retry after %s", e.RetryAfter)
	}
	return b.String()
}

// Unwrap exposes the cause (context.Canceled, a callback's error ...) to
// errors.Is; the cause is never part of the message.
func (e *Error) Unwrap() error { return e.cause }

// CountsAgainstProvider reports whether this failure should degrade the
// provider's health.
func (e *Error) CountsAgainstProvider() bool { return e.Kind == KindProviderFault }

// Retryable reports whether the same request may succeed later.
func (e *Error) Retryable() bool { return e.Kind == KindProviderFault || e.Kind == KindRateLimited }

// WithCause returns e wrapping cause (for errors.Is), message unchanged.
func (e *Error) WithCause(cause error) *Error { e.cause = cause; return e }

// KindOf returns the kind of err: "" for nil, KindProviderFault for an error
// that is not an *Error (adapters return none such; a safe default).
func KindOf(err error) Kind {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return KindProviderFault
}

// AsError returns err as an *Error when it is one.
func AsError(err error) (*Error, bool) {
	var e *Error
	ok := errors.As(err, &e)
	return e, ok
}

// Unsupported is the error for a capability the connection lacks.
func Unsupported(protocol string, c Capability) *Error {
	return &Error{Kind: KindUnsupported, Protocol: protocol, Capability: c, Reason: "not supported: " + c.String()}
}

// Invalid is the error for input refused before any network call.
func Invalid(protocol string, c Capability, reason string) *Error {
	return &Error{Kind: KindInvalidRequest, Protocol: protocol, Capability: c, Reason: reason}
}

// Fault is a provider fault with a reason.
func Fault(protocol string, c Capability, reason string) *Error {
	return &Error{Kind: KindProviderFault, Protocol: protocol, Capability: c, Reason: reason}
}

// Stopped is the error for a stream the caller's callback stopped.
func Stopped(protocol string, cause error) *Error {
	return &Error{Kind: KindCanceled, Protocol: protocol, Capability: CapStream, Reason: "stopped by caller", cause: cause}
}
