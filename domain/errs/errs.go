// Package errs is the small set of typed errors every layer returns. The HTTP
// layer maps each Kind to a status and a seed error code in exactly one place
// (http/problem.go); nothing else decides status codes.
package errs

import (
	"errors"
	"fmt"
	"strings"
)

// Kind classifies an error for the API boundary.
type Kind int

const (
	KindInternal Kind = iota
	KindInvalidInput
	KindNotFound
	KindConflict
	KindAuthenticationRequired
	KindPermissionDenied
	KindRateLimited
	KindUnavailable
	KindIdempotencyMismatch
	// KindTooLarge: the thing to store (a body, an attachment, an import
	// file, a media file) is over its limit (413): nothing of it was kept.
	KindTooLarge
	// KindPaymentRequired: a budget refuses the request (a hard spend cap):
	// retrying cannot succeed until the budget changes (402).
	KindPaymentRequired
	// KindBadGateway: an upstream provider failed or answered nonsense (502).
	KindBadGateway
	// KindGatewayTimeout: an upstream provider did not answer in time (504).
	KindGatewayTimeout
)

// Field names one failing input member as a JSON pointer.
type Field struct {
	Pointer string `json:"pointer"`
	Detail  string `json:"detail"`
}

// MemberPointer is the JSON pointer (RFC 6901) of member name under the
// pointer parent ("" for the document): name's "~" and "/" escaped, as a
// client resolving the pointer reads them back.
func MemberPointer(parent, name string) string {
	return parent + "/" + pointerEscaper.Replace(name)
}

var pointerEscaper = strings.NewReplacer("~", "~0", "/", "~1")

// Error is the typed error. Code is the stable machine code of the seeds
// (invalid_input, conflict, ...) or a more precise one where the seed is silent.
type Error struct {
	Kind    Kind
	Code    string
	Message string
	Fields  []Field
	// RetryAfter, when set, tells the client when to try again (429, 503).
	RetryAfterSeconds int
	// Extensions are members the client needs to continue, answered beside
	// the problem's standard members (RFC 9457 extension members), e.g. the
	// single-use token of an mfa_required challenge.
	Extensions map[string]any
	Err        error // cause, never shown to clients
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Code)
	if e.Message != "" {
		b.WriteString(": " + e.Message)
	}
	for _, f := range e.Fields {
		fmt.Fprintf(&b, "; %s %s", f.Pointer, f.Detail)
	}
	if e.Err != nil {
		b.WriteString(": " + e.Err.Error())
	}
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// As returns the typed error inside err, if any.
func As(err error) (*Error, bool) {
	var e *Error
	ok := errors.As(err, &e)
	return e, ok
}

// CodeOf is the code a client is answered for err: "" for no error,
// "internal_error" for an untyped one (as the HTTP layer answers it).
func CodeOf(err error) string {
	if err == nil {
		return ""
	}
	if e, ok := As(err); ok {
		return e.Code
	}
	return "internal_error"
}

// KindOf is KindInternal for untyped errors.
func KindOf(err error) Kind {
	if e, ok := As(err); ok {
		return e.Kind
	}
	return KindInternal
}

func Invalid(fields ...Field) *Error {
	return &Error{Kind: KindInvalidInput, Code: "invalid_input", Message: "the input does not match the action's schema", Fields: fields}
}

func InvalidField(pointer, detail string) *Error {
	return Invalid(Field{Pointer: pointer, Detail: detail})
}

func NotFound(what string) *Error {
	return &Error{Kind: KindNotFound, Code: "not_found", Message: what + " not found"}
}

// Conflict is a request that is well-formed but not allowed in the current state.
func Conflict(code, message string) *Error {
	return &Error{Kind: KindConflict, Code: code, Message: message}
}

func AuthenticationRequired(message string) *Error {
	return &Error{Kind: KindAuthenticationRequired, Code: "authentication_required", Message: message}
}

func PermissionDenied(message string) *Error {
	return &Error{Kind: KindPermissionDenied, Code: "permission_denied", Message: message}
}

func Unavailable(message string, cause error) *Error {
	return &Error{Kind: KindUnavailable, Code: "dependency_unavailable", Message: message, Err: cause}
}

func RateLimited(retryAfterSeconds int) *Error {
	return &Error{Kind: KindRateLimited, Code: "rate_limited", Message: "too many requests", RetryAfterSeconds: retryAfterSeconds}
}

func IdempotencyMismatch() *Error {
	return &Error{Kind: KindIdempotencyMismatch, Code: "idempotency_key_reused",
		Message: "this Idempotency-Key was already used with a different request"}
}

// TooLarge is content over its size limit (413).
func TooLarge(code, message string) *Error {
	return &Error{Kind: KindTooLarge, Code: code, Message: message}
}

// PaymentRequired is a request a budget refuses (402): code names the
// budget's rule (spend_cap_exceeded), extensions what the client needs to see.
func PaymentRequired(code, message string, extensions map[string]any) *Error {
	return &Error{Kind: KindPaymentRequired, Code: code, Message: message, Extensions: extensions}
}

// BadGateway is an upstream provider's failure (502); the cause stays in Err.
func BadGateway(code, message string, cause error) *Error {
	return &Error{Kind: KindBadGateway, Code: code, Message: message, Err: cause}
}

// GatewayTimeout is an upstream provider that did not answer in time (504).
func GatewayTimeout(code, message string, cause error) *Error {
	return &Error{Kind: KindGatewayTimeout, Code: code, Message: message, Err: cause}
}
