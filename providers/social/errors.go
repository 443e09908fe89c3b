package social

import (
	"errors"
	"strings"
	"time"

	"github.com/platform/backend/providers/outcome"
)

// Every adapter error is an *Error of one of outcome's kinds:
// ProviderFault (the network failed: 5xx, an answer we cannot read, a lost
// connection before the request was sent, our own time bound; nothing was
// posted, try again later with backoff), RateLimited (429 or the network's
// own rate codes; RetryAfter / ResetAt say how long when the network said),
// Rejected (the network, or our pre-flight check before any call, refused
// this content for good: duplicate, too long, media invalid, threads
// unsupported), Unauthorized (the token is expired, revoked or lacks a
// scope, or a refresh found the grant revoked: a publish answered this way
// may be tried once more after a refresh; a refresh answered this way means
// the user must connect again), Canceled (the caller's context ended before
// the request was sent; nothing was posted), or the social networks' own:
const (
	// KindOutcomeUnknown: the request that creates the post was sent and no
	// usable answer came (timeout, lost connection, caller gave up, a
	// gateway's 502/504, a success we could not read). It is never a
	// failure: the post may exist. Publishing marks the target unconfirmed
	// and calls Lookup before any retry. Not ProviderFault: a post is not
	// idempotent at the networks, so the caller must look before it tries
	// again; the edge adapters, whose retries the provider dedupes or whose
	// callers only count health, flag the same case on a ProviderFault
	// (delivery.Error.MaybeDelivered, stripe.Error.MaybeApplied).
	KindOutcomeUnknown outcome.Kind = "outcome_unknown"
)

// Error is the one error type of the social providers. Error() is a few
// words (network, operation, kind, reason) and never a response body, which
// may quote the user's content or the network's internals.
type Error struct {
	Network string // "network_1".."network_6"
	Op      string // what we were doing: publish, upload_media, lookup, accounts, authorize, exchange, refresh
	Kind    outcome.Kind
	// Reason is a stable short code: duplicate, too_long, media_invalid,
	// thread_unsupported, token_expired, token_revoked, grant_revoked,
	// scope_missing, timeout, malformed_answer, server_error ...
	Reason string
	// Status is the HTTP status of the answer, 0 when there was none.
	Status int
	// Code is the network's own error code when it sent one (Graph "190/463",
	// TikTok "spam_risk_too_many_posts"): safe to log, never the body.
	Code string
	// RetryAfter is how long to wait before trying again (rate limits), 0
	// when the network did not say. ResetAt is the same moment as a time.
	RetryAfter time.Duration
	ResetAt    time.Time
	// Pending names network-side work that was started and not finished
	// (an Instagram container id, a TikTok publish id). Publishing keeps it
	// with the unconfirmed target and passes it to Lookup.
	Pending string
	// DuplicateOf is the platform post id a duplicate rejection named
	// (LinkedIn names the existing share): with an unconfirmed target, that
	// post may be ours.
	DuplicateOf string
	// Sent reports whether any request of the failing operation reached the
	// network. False for pre-flight rejections and cancellations.
	Sent bool

	cause error
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Network)
	if e.Op != "" {
		b.WriteString(" " + e.Op)
	}
	b.WriteString(": " + strings.ReplaceAll(string(e.Kind), "_", " "))
	if e.Reason != "" {
		b.WriteString(" (" + strings.ReplaceAll(e.Reason, "_", " ") + ")")
	}
	return b.String()
}

// Unwrap keeps the cause for logs (a transport error); it is never shown to
// a user.
func (e *Error) Unwrap() error { return e.cause }

// Outcome is the error's kind (outcome.Of).
func (e *Error) Outcome() outcome.Kind { return e.Kind }

// Retryable reports whether the same request may simply be sent again
// later. Outcome unknown is not retryable: it needs a Lookup first.
func (e *Error) Retryable() bool { return e.Kind.Retryable() }

// AsError finds the *Error in err's chain.
func AsError(err error) (*Error, bool) {
	var e *Error
	ok := errors.As(err, &e)
	return e, ok
}

// Rejection is a pre-flight refusal: the content cannot go to this network,
// known before any call.
func Rejection(network, op, reason string) *Error {
	return &Error{Network: network, Op: op, Kind: outcome.Rejected, Reason: reason}
}

// Fail builds an error of a kind after a request was answered.
func Fail(network, op string, kind outcome.Kind, reason string, status int) *Error {
	return &Error{Network: network, Op: op, Kind: kind, Reason: reason, Status: status, Sent: true}
}

// Rejection and the other reasons every adapter uses.
const (
	ReasonDuplicate         = "duplicate"
	ReasonTooLong           = "too_long"
	ReasonTextRequired      = "text_required"
	ReasonMediaInvalid      = "media_invalid"
	ReasonMediaRequired     = "media_required"
	ReasonMediaUnsupported  = "media_unsupported"
	ReasonTooManyMedia      = "too_many_media"
	ReasonThreadUnsupported = "thread_unsupported"
	ReasonReplyTarget       = "reply_target_missing"
	ReasonVisibility        = "visibility_unsupported"
	ReasonInvalid           = "invalid_request"
	ReasonForbidden         = "forbidden"
	ReasonBlocked           = "blocked"
	ReasonAccountMissing    = "account_not_chosen"
	ReasonTokenMissing      = "token_missing"
	ReasonTokenExpired      = "token_expired"
	ReasonTokenRevoked      = "token_revoked"
	ReasonTokenInvalid      = "token_invalid"
	ReasonScopeMissing      = "scope_missing"
	ReasonGrantRevoked      = "grant_revoked"
	ReasonClientRejected    = "client_rejected"
	ReasonRateLimited       = "rate_limited"
	ReasonServerError       = "server_error"
	ReasonGatewayTimeout    = "gateway_timeout"
	ReasonMalformed         = "malformed_answer"
	ReasonTimeout           = "timeout"
	ReasonCanceled          = "canceled"
	ReasonConnection        = "connection_failed"
	ReasonTooLarge          = "answer_too_large"
	ReasonProcessing        = "processing"
	ReasonProcessingFailed  = "processing_failed"
)
