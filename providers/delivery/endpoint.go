package delivery

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"strconv"
	"time"

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
	// outcome.ProviderFault. Zero leaves only the caller's context.
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
	wrote     bool
}

// PostJSON sends body as JSON with the given headers and reads the answer,
// whatever its status. The error, always an *Error, covers only the way
// there and back: the caller's context ending (outcome.Canceled), the provider not
// answering in time or at all, or an answer too large (outcome.ProviderFault).
func (e Endpoint) PostJSON(ctx context.Context, url string, header http.Header, body any) (*Answer, error) {
	payload, err := json.Marshal(body)
	if err != nil {
		return nil, &Error{Provider: e.Provider, Kind: outcome.Invalid, Reason: "message cannot be encoded", Err: err}
	}
	callCtx, cancel := context.WithCancel(ctx)
	if e.Timeout > 0 {
		callCtx, cancel = context.WithTimeout(ctx, e.Timeout)
	}
	defer cancel()
	ans := &Answer{}
	// The trace tells a request that never left (nothing can have been
	// sent) from one lost on the way back (it may have been).
	trace := &httptrace.ClientTrace{WroteRequest: func(httptrace.WroteRequestInfo) { ans.wrote = true }}
	req, err := http.NewRequestWithContext(httptrace.WithClientTrace(callCtx, trace), http.MethodPost, url, bytes.NewReader(payload))
	if err != nil {
		return nil, &Error{Provider: e.Provider, Kind: outcome.Invalid, Reason: "bad provider URL", Err: err}
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	client := e.Client
	if client == nil {
		client = &http.Client{}
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, e.transportError(ctx, err, ans)
	}
	defer resp.Body.Close()
	ans.Status, ans.Header = resp.StatusCode, resp.Header
	if e.RequestIDHeader != "" {
		ans.RequestID = resp.Header.Get(e.RequestIDHeader)
	}
	ans.Body, err = io.ReadAll(io.LimitReader(resp.Body, MaxAnswer+1))
	if err != nil {
		return nil, e.transportError(ctx, err, ans)
	}
	if len(ans.Body) > MaxAnswer {
		return nil, &Error{Provider: e.Provider, Kind: outcome.ProviderFault, Reason: "answer too large", Status: ans.Status,
			RequestID: ans.RequestID, MaybeDelivered: ans.Status/100 == 2}
	}
	return ans, nil
}

// transportError classifies a failed exchange. The caller's context is
// asked first: when it ended, nothing about the provider can be concluded.
func (e Endpoint) transportError(ctx context.Context, err error, ans *Answer) *Error {
	out := &Error{Provider: e.Provider, Status: ans.Status, RequestID: ans.RequestID, MaybeDelivered: ans.wrote, Err: err}
	var netErr net.Error
	switch {
	case ctx.Err() != nil:
		out.Kind, out.Reason, out.Err = outcome.Canceled, "caller canceled", ctx.Err()
	case errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &netErr) && netErr.Timeout()):
		out.Kind, out.Reason, out.Timeout = outcome.ProviderFault, "provider timed out", true
	case !ans.wrote:
		out.Kind, out.Reason = outcome.ProviderFault, "provider unreachable"
	default:
		out.Kind, out.Reason = outcome.ProviderFault, "connection lost"
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
		e.RetryAfter = ParseRetryAfter(a.Header.Get("Retry-After"), now)
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

// maxRetryAfterSeconds caps an absurd wait (and the multiplication) at a day.
const maxRetryAfterSeconds = 24 * 60 * 60

// ParseRetryAfter reads a Retry-After value, delay-seconds or an HTTP date
// (RFC 9110 §10.2.3); zero when absent, unreadable or already past.
func ParseRetryAfter(v string, now time.Time) time.Duration {
	if v == "" {
		return 0
	}
	if secs, err := strconv.Atoi(v); err == nil {
		if secs < 0 {
			return 0
		}
		return min(time.Duration(secs), maxRetryAfterSeconds) * time.Second
	}
	if at, err := http.ParseTime(v); err == nil && at.After(now) {
		return at.Sub(now).Round(time.Second)
	}
	return 0
}
