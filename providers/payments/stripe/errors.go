package stripe

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/platform/backend/providers/outcome"
)

// A failed Invoke is one of outcome's kinds: ProviderFault (a 5xx or 424,
// no answer within Config.Timeout: Error.TimedOut, unreachable, the
// connection lost, an answer that is not a JSON object), RateLimited (429:
// Stripe's rate limit or lock_timeout; RetryAfter holds Stripe's Retry-After
// when it sent one), Rejected (Stripe refused this request for the caller's
// reasons: 400 bad or missing parameters, 402 card declined with Type
// card_error and DeclineCode, 404 missing object with Code
// resource_missing; Code and Param say which), Unauthorized (401/403: this
// connection's secret key is wrong, revoked, restricted, or has no access to
// the connected account named), Canceled (the caller's own context ended
// before Stripe answered), Invalid (refused before any network call: unknown
// operation, a bad path id or stripe_account, params that cannot be form
// encoded, a bad idempotency key), or Stripe's own:
const (
	// IdempotencyConflict: the Idempotency-Key was first used with other
	// parameters or another endpoint (400, type idempotency_error), or a
	// request with the same key is still in flight (409; retry later to get
	// its result). Not Rejected: the request itself is fine, the key is the
	// problem, and the gateway answers it as its own idempotency conflict
	// (409 while in flight, 422 for other parameters); no other provider
	// keeps idempotency keys the caller can collide on.
	IdempotencyConflict outcome.Kind = "idempotency_conflict"
)

// Error is a classified failed Invoke. Its text is ours, a few words; the
// upstream body is never kept (Stripe's message is free text that can echo
// the request). Stripe's type, code, decline code and param are kept as
// the short tokens they are.
type Error struct {
	Kind      outcome.Kind
	Operation string // the seed's operation name
	Reason    string // a few words: "card declined", "stripe timed out"
	// Status is Stripe's HTTP status; 0 when no answer came.
	Status int
	// Stripe's error object: type (card_error, invalid_request_error,
	// idempotency_error, api_error), code (card_declined,
	// resource_missing, parameter_missing, ...), decline_code
	// (insufficient_funds, ...) and param (line_items[0][price]).
	Type, Code, DeclineCode, Param string

	RequestID string // Stripe's Request-Id
	// RetryAfter is the wait Stripe asked for (Retry-After, seconds or an
	// HTTP date); zero when it did not say.
	RetryAfter time.Duration
	// ShouldRetry is Stripe's Stripe-Should-Retry header as sent: "true",
	// "false", or "" when absent. Retryable reads it first.
	ShouldRetry string
	// Replayed is set when Stripe replayed this error for an idempotency
	// key it had seen (Idempotent-Replayed: true): retrying with the same
	// key gives it again.
	Replayed bool
	// TimedOut is set on the ProviderFault of Stripe not answering within
	// Config.Timeout (the gateway's 504 provider_timeout).
	TimedOut bool
	// MaybeApplied is set when a POST reached Stripe but its answer was
	// lost or unreadable: the operation may have taken effect. Retrying
	// with the same Idempotency-Key returns its result; without one it may
	// be applied twice.
	MaybeApplied bool
	// Err is the cause, for errors.Is (context.Canceled,
	// context.DeadlineExceeded); never part of the text.
	Err error
}

var _ error = (*Error)(nil)

func (e *Error) Error() string {
	s := "stripe " + e.Operation + ": " + string(e.Kind) + ": " + e.Reason
	var detail []string
	for _, d := range []string{e.Type, e.Code, e.DeclineCode} {
		if d != "" {
			detail = append(detail, d)
		}
	}
	switch {
	case len(detail) > 0:
		s += " (" + strings.Join(detail, "/") + ")"
	case e.Status != 0:
		s += " (status " + strconv.Itoa(e.Status) + ")"
	}
	return s
}

func (e *Error) Unwrap() error { return e.Err }

// Retryable reports whether trying the same operation again (with the same
// Idempotency-Key) may succeed. Stripe's Stripe-Should-Retry decides when
// Stripe sent it; otherwise the kind does: provider faults, rate limits and
// a key still in flight are worth another try, the caller's own mistakes
// and credentials are not. Neither is a replayed error (the key gives it
// again) nor a path Stripe does not serve (configuration, not chance).
func (e *Error) Retryable() bool {
	switch e.ShouldRetry {
	case "true":
		return true
	case "false":
		return false
	}
	switch e.Kind {
	case outcome.RateLimited:
		return !e.Replayed
	case outcome.ProviderFault:
		return !e.Replayed && e.Status != http.StatusNotFound
	case IdempotencyConflict:
		return e.Status == 409
	}
	return false
}

// Outcome is the error's kind (outcome.Of).
func (e *Error) Outcome() outcome.Kind { return e.Kind }

// refuse is an Invalid error: nothing was sent.
func refuse(op, reason string, cause error) *Error {
	return &Error{Kind: outcome.Invalid, Operation: op, Reason: reason, Err: cause}
}
