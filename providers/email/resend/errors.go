package resend

import (
	"encoding/json"
	"time"

	"github.com/platform/backend/providers/delivery"
	"github.com/platform/backend/providers/exchange"
	"github.com/platform/backend/providers/outcome"
)

// classify reads a failed answer: Resend's error name when the body has
// one, the HTTP status otherwise. Resend's message is never kept.
func classify(ans *delivery.Answer, now time.Time) *delivery.Error {
	e := ans.Fail(Provider, now)
	var body errorResponse
	if json.Unmarshal(ans.Body, &body) != nil || body.Name == "" {
		return e
	}
	e.Code = body.Name
	if kind, reason, ok := errorName(body.Name); ok {
		e.Kind, e.Reason = kind, reason
	}
	if e.Kind == outcome.RateLimited && e.RetryAfter == 0 {
		e.RetryAfter = exchange.RetryAfter(ans.Header, now)
	}
	return e
}

// errorName maps Resend's error names that decide a kind; others keep the
// status's. validation_error comes as 400, 403 (sending to others from an
// unverified domain) and 422: always this message's problem.
func errorName(name string) (outcome.Kind, string, bool) {
	switch name {
	case "missing_api_key", "invalid_api_key", "restricted_api_key":
		return outcome.Unauthorized, "API key refused", true
	case "validation_error", "missing_required_field", "invalid_parameter", "invalid_attachment", "invalid_access":
		return outcome.Rejected, "message refused", true
	case "invalid_from_address":
		return outcome.Rejected, "sender address refused", true
	case "invalid_idempotency_key":
		return outcome.Rejected, "idempotency key refused", true
	case "invalid_idempotent_request":
		return outcome.Rejected, "idempotency key reused for another message", true
	case "concurrent_idempotent_requests":
		// The first attempt with this key is still running: try again soon.
		return outcome.RateLimited, "same idempotency key in flight", true
	case "rate_limit_exceeded":
		return outcome.RateLimited, "rate limited", true
	case "daily_quota_exceeded", "monthly_quota_exceeded":
		return outcome.RateLimited, "sending quota exceeded", true
	case "application_error", "internal_server_error":
		return outcome.ProviderFault, "provider error", true
	}
	return "", "", false
}
