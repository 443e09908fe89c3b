package stripe

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/platform/backend/providers/exchange"
	"github.com/platform/backend/providers/outcome"
)

// errorBody is Stripe's error answer. The message is not read: it is free
// text for people and never leaves the adapter.
type errorBody struct {
	Error *struct {
		Type        string `json:"type"`
		Code        string `json:"code"`
		DeclineCode string `json:"decline_code"`
		Param       string `json:"param"`
	} `json:"error"`
}

// classify turns a non-2xx answer into an *Error: the status decides the
// kind, Stripe's error type and code refine it.
func classify(op string, status int, h http.Header, body []byte, now time.Time) *Error {
	e := &Error{Operation: op, Status: status, RequestID: token(h.Get("Request-Id")),
		Replayed: h.Get("Idempotent-Replayed") == "true"}
	if v := h.Get("Stripe-Should-Retry"); v == "true" || v == "false" {
		e.ShouldRetry = v
	}
	var b errorBody
	if json.Unmarshal(body, &b) == nil && b.Error != nil {
		e.Type, e.Code, e.DeclineCode, e.Param = token(b.Error.Type), token(b.Error.Code), token(b.Error.DeclineCode), token(b.Error.Param)
	}
	switch {
	case status == http.StatusConflict:
		e.Kind, e.Reason = IdempotencyConflict, "idempotency key in use by a request in flight"
	case e.Type == "idempotency_error":
		e.Kind, e.Reason = IdempotencyConflict, "idempotency key reused with other parameters"
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		e.Kind, e.Reason = outcome.Unauthorized, "secret key refused"
	case status == http.StatusTooManyRequests:
		e.Kind, e.Reason = outcome.RateLimited, "rate limited"
		e.RetryAfter = exchange.RetryAfter(h, now)
	case e.Type == "card_error":
		e.Kind, e.Reason = outcome.Rejected, "card declined"
	case status == http.StatusPaymentRequired:
		// Valid parameters, refused all the same (a refund beyond the
		// balance, a payment method that cannot be used).
		e.Kind, e.Reason = outcome.Rejected, "request failed"
	case status == http.StatusNotFound && e.Code == "resource_missing":
		e.Kind, e.Reason = outcome.Rejected, "no such object"
	case status == http.StatusNotFound:
		// Not a missing object: Stripe does not serve the path at all (a
		// wrong base URL, or an API version without this endpoint).
		e.Kind, e.Reason = outcome.ProviderFault, "endpoint not found"
	case status == http.StatusRequestTimeout || status == http.StatusFailedDependency || status >= 500:
		e.Kind, e.Reason = outcome.ProviderFault, "stripe error"
	case status >= 400:
		e.Kind, e.Reason = outcome.Rejected, "request refused"
	default:
		// 1xx or 3xx where an answer was due.
		e.Kind, e.Reason = outcome.ProviderFault, "unexpected answer"
	}
	return e
}

// token keeps one of Stripe's short identifiers (an error code, a param
// path, a request id) and drops anything else: upstream text never rides
// along in a field.
func token(s string) string {
	if len(s) > 200 {
		return ""
	}
	for _, r := range s {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' ||
			r == '_' || r == '-' || r == '.' || r == '[' || r == ']'
		if !ok {
			return ""
		}
	}
	return s
}
