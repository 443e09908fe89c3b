package postmark

import (
	"strconv"
	"time"

	"github.com/platform/backend/providers/delivery"
	"github.com/platform/backend/providers/exchange"
	"github.com/platform/backend/providers/outcome"
)

// classify reads a failed answer: Postmark's ErrorCode when the body has
// one, the HTTP status otherwise. Postmark's own Message is never kept.
func classify(ans *delivery.Answer, resp sendResponse, decoded bool, now time.Time) *delivery.Error {
	e := ans.Fail(Provider, now)
	if !decoded || resp.ErrorCode == 0 {
		return e
	}
	e.Code = strconv.Itoa(resp.ErrorCode)
	if kind, reason, ok := errorCode(resp.ErrorCode); ok {
		e.Kind, e.Reason = kind, reason
	}
	if e.Kind == outcome.RateLimited && e.RetryAfter == 0 {
		e.RetryAfter = exchange.RetryAfter(ans.Header, now)
	}
	return e
}

// errorCode maps Postmark's API error codes that decide a kind; others
// keep the status's (a 422 with an unlisted code is Rejected).
func errorCode(code int) (outcome.Kind, string, bool) {
	switch code {
	case 10:
		return outcome.Unauthorized, "bad or missing server token", true
	case 100:
		return outcome.ProviderFault, "provider in maintenance", true
	case 300:
		return outcome.Rejected, "invalid email request", true
	case 400:
		return outcome.Rejected, "sender signature not found", true
	case 401:
		return outcome.Rejected, "sender signature not confirmed", true
	case 405:
		return outcome.Unauthorized, "account not allowed to send", true
	case 406:
		return outcome.Rejected, "inactive recipient", true
	case 411:
		return outcome.Rejected, "forbidden attachment type", true
	case 412:
		return outcome.Unauthorized, "account pending", true
	case 413:
		return outcome.Unauthorized, "account may not send", true
	case 429:
		return outcome.RateLimited, "rate limited", true
	}
	return "", "", false
}
