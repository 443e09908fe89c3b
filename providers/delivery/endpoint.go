package delivery

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/platform/backend/providers/exchange"
	"github.com/platform/backend/providers/outcome"
)

// MaxAnswer bounds how much of a provider's answer is read: the answers we
// parse are small, and an endless body must not hold memory or time.
const MaxAnswer = 1 << 20

// Endpoint is one adapter's way to a provider's HTTP API.
type Endpoint struct {
	Provider string
	Client   *http.Client
	// Timeout bounds the whole exchange, answer included. When it fires
	// while the caller's context is still live, the provider was slow: a
	// ProviderFault with Error.Timeout. Zero leaves only the caller's
	// context.
	Timeout time.Duration
	// RequestIDHeader names the provider's request id header, if it has one.
	RequestIDHeader string
}

// Answer is what the provider said.
type Answer struct {
	Status    int
	Header    http.Header
	Body      []byte
	RequestID string
}

// PostJSON sends body as JSON with the given headers and reads the answer,
// whatever its status (providers/exchange). The error, always an *Error,
// covers only the way there and back: the caller's context ending
// (Canceled), the provider not answering in time or at all, or an answer
// too large (ProviderFault).
func (e Endpoint) PostJSON(ctx context.Context, url string, header http.Header, body any) (*Answer, error) {
	payload, err := json.Marshal(body)
	if err != nil {
		return nil, &Error{Provider: e.Provider, Kind: outcome.Invalid, Reason: "message cannot be encoded", Err: err}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(payload))
	if err != nil {
		return nil, &Error{Provider: e.Provider, Kind: outcome.Invalid, Reason: "bad provider URL", Err: err}
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	x := exchange.Exchange{Client: e.Client, Timeout: e.Timeout, MaxAnswer: MaxAnswer}
	if e.RequestIDHeader != "" {
		x.RequestIDHeaders = []string{e.RequestIDHeader}
	}
	a, f := x.Do(req)
	if f != nil {
		return nil, e.failed(f)
	}
	return &Answer{Status: a.Status, Header: a.Header, Body: a.Body, RequestID: a.RequestID}, nil
}

// failed is an exchange without a readable answer, in our words. A request
// written whole may have been delivered.
func (e Endpoint) failed(f *exchange.Failure) *Error {
	out := &Error{Provider: e.Provider, Kind: f.Kind, Timeout: f.Timeout, MaybeDelivered: f.Sent, Err: f.Err}
	if f.Answer != nil {
		out.Status, out.RequestID = f.Answer.Status, f.Answer.RequestID
	}
	switch {
	case f.Kind == outcome.Canceled:
		out.Reason = "caller canceled"
	case f.TooLarge:
		out.Reason, out.MaybeDelivered = "answer too large", out.Status/100 == 2
	case f.Timeout:
		out.Reason = "provider timed out"
	case !f.Sent:
		out.Reason = "provider unreachable"
	default:
		out.Reason = "connection lost"
	}
	return out
}

// Fail classifies a non-2xx answer by its status alone: adapters call it
// when the provider's body names nothing more specific, and refine the
// result when it does.
func (a *Answer) Fail(provider string, now time.Time) *Error {
	e := &Error{Provider: provider, Status: a.Status, RequestID: a.RequestID}
	switch {
	case a.Status == http.StatusUnauthorized || a.Status == http.StatusForbidden:
		e.Kind, e.Reason = outcome.Unauthorized, "credential refused"
	case a.Status == http.StatusTooManyRequests:
		e.Kind, e.Reason = outcome.RateLimited, "rate limited"
		e.RetryAfter = exchange.RetryAfter(a.Header, now)
	case a.Status >= 500 || a.Status == http.StatusRequestTimeout:
		e.Kind, e.Reason = outcome.ProviderFault, "provider error"
	case a.Status == http.StatusNotFound || a.Status == http.StatusMethodNotAllowed:
		// The send endpoint itself is missing: a wrong base URL or version,
		// nothing this message did.
		e.Kind, e.Reason = outcome.ProviderFault, "endpoint not found"
	case a.Status >= 400:
		e.Kind, e.Reason = outcome.Rejected, "message refused"
	default:
		// 1xx/3xx where a 2xx was due: the provider is misbehaving.
		e.Kind, e.Reason = outcome.ProviderFault, "unexpected answer"
	}
	return e
}

// Malformed is a 2xx answer we cannot read: the message may have gone out.
func (a *Answer) Malformed(provider string) *Error {
	return &Error{Provider: provider, Kind: outcome.ProviderFault, Reason: "malformed answer", Status: a.Status,
		RequestID: a.RequestID, MaybeDelivered: true}
}
