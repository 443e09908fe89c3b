package ai

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/platform/backend/providers/outcome"
)

// An AI call's failure is one of outcome's kinds: ProviderFault (5xx, its
// own timeout, an answer that could not be decoded, a cut stream, a stream
// without its usage), RateLimited (429; RetryAfter says when, if it said),
// Rejected (the caller's input refused by the provider: 400, 404, 422),
// Invalid (the caller's input refused before sending), Unauthorized (the
// connection's key refused: 401, 403), Canceled (the caller's own context
// ended, or the caller's stream callback stopped the stream), or AI's own:
const (
	// KindUnsupported: the connection cannot do this (see Capabilities);
	// known before any network call. Not Invalid: the input is fine, the
	// provider or the connection lacks the capability (another connection
	// may have it).
	KindUnsupported outcome.Kind = "unsupported"
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
	Kind       outcome.Kind
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

// Outcome is the error's kind (outcome.Of).
func (e *Error) Outcome() outcome.Kind { return e.Kind }

// Retryable reports whether the same request may succeed later.
func (e *Error) Retryable() bool { return e.Kind.Retryable() }

// WithCause returns e wrapping cause (for errors.Is), message unchanged.
func (e *Error) WithCause(cause error) *Error { e.cause = cause; return e }

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
	return &Error{Kind: outcome.Invalid, Protocol: protocol, Capability: c, Reason: reason}
}

// Fault is a provider fault with a reason.
func Fault(protocol string, c Capability, reason string) *Error {
	return &Error{Kind: outcome.ProviderFault, Protocol: protocol, Capability: c, Reason: reason}
}

// Stopped is the error for a stream the caller's callback stopped.
func Stopped(protocol string, cause error) *Error {
	return &Error{Kind: outcome.Canceled, Protocol: protocol, Capability: CapStream, Reason: "stopped by caller", cause: cause}
}
