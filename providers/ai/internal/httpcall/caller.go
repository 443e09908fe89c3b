// Package httpcall is the HTTP plumbing every AI adapter shares: one call
// with the adapter's own timeout, the response's request id, the error
// classification the gateway relies on (provider fault, rate limited,
// invalid request, unauthorized, caller canceled), and SSE streams with an
// idle timeout.
package httpcall

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/platform/backend/providers/ai"
	"github.com/platform/backend/providers/exchange"
	"github.com/platform/backend/providers/outcome"
)

// Limits on what is read from a provider.
const (
	MaxAnswerBytes = 64 << 20 // a whole answer (generated images travel inline as base64)
	MaxErrorBytes  = 64 << 10 // an error body, read only for its code
	MaxEventBytes  = 8 << 20  // one SSE event
)

// Upstream is what a protocol reads from an error body.
type Upstream struct {
	Code       string        // the provider's error code or type
	Kind       outcome.Kind  // "" means: from the HTTP status
	RetryAfter time.Duration // 0 means: from the Retry-After headers
}

// Caller makes the calls of one adapter.
type Caller struct {
	Protocol string
	Client   *http.Client
	// Timeout bounds a whole call; for a stream, the wait for the answer
	// and then each gap between events (a long answer may stream for
	// minutes, a silent provider may not).
	Timeout time.Duration
	// RequestIDHeaders name the response headers carrying the provider's
	// request id; the first present wins.
	RequestIDHeaders []string
	// DecodeError reads a protocol's error body; nil: status only.
	DecodeError func(status int, h http.Header, body []byte) Upstream
}

// Request is one call.
type Request struct {
	Capability  ai.Capability
	URL         string
	Header      http.Header
	JSON        any    // marshaled as the body, or
	Body        []byte // sent as is with
	ContentType string
}

// Meta is what every answer tells besides its body.
type Meta struct {
	Status    int
	Header    http.Header
	RequestID string
}

// Do sends req and decodes a 2xx JSON answer into out.
func (c *Caller) Do(ctx context.Context, req Request, out any) (Meta, error) {
	callCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	timer := time.AfterFunc(c.timeout(), func() { cancel(exchange.ErrTimeout) })
	defer timer.Stop()

	resp, meta, err := c.send(ctx, callCtx, req)
	if err != nil {
		return meta, err
	}
	defer resp.Body.Close()
	body, err := exchange.ReadBounded(resp.Body, MaxAnswerBytes)
	if err != nil {
		return meta, c.transportError(ctx, callCtx, req.Capability, meta, err, false)
	}
	if len(body) > MaxAnswerBytes {
		return meta, c.Fault(req.Capability, meta, "answer too large")
	}
	if err := json.Unmarshal(body, out); err != nil {
		return meta, c.Fault(req.Capability, meta, ai.ReasonMalformed)
	}
	return meta, nil
}

// send builds and sends the request; a non-2xx answer is classified here.
func (c *Caller) send(ctx, callCtx context.Context, req Request) (*http.Response, Meta, error) {
	body, ctype := req.Body, req.ContentType
	if req.JSON != nil {
		b, err := json.Marshal(req.JSON)
		if err != nil {
			return nil, Meta{}, ai.Invalid(c.Protocol, req.Capability, "request not encodable as JSON")
		}
		body, ctype = b, "application/json"
	}
	hreq, err := http.NewRequestWithContext(callCtx, http.MethodPost, req.URL, bytes.NewReader(body))
	if err != nil {
		return nil, Meta{}, ai.Invalid(c.Protocol, req.Capability, "request URL not usable")
	}
	for k, vs := range req.Header {
		hreq.Header[k] = vs
	}
	if ctype != "" {
		hreq.Header.Set("Content-Type", ctype)
	}
	resp, err := c.Client.Do(hreq)
	if err != nil {
		return nil, Meta{}, c.transportError(ctx, callCtx, req.Capability, Meta{}, err, false)
	}
	meta := Meta{Status: resp.StatusCode, Header: resp.Header, RequestID: exchange.RequestID(resp.Header, c.RequestIDHeaders)}
	if resp.StatusCode/100 != 2 {
		defer resp.Body.Close()
		errBody, _ := io.ReadAll(io.LimitReader(resp.Body, MaxErrorBytes))
		return nil, meta, c.statusError(req.Capability, meta, errBody)
	}
	return resp, meta, nil
}

func (c *Caller) timeout() time.Duration {
	if c.Timeout <= 0 {
		return DefaultTimeout
	}
	return c.Timeout
}

// statusError classifies a non-2xx answer by its status, refined by what
// the protocol reads from the body (a code; Gemini's 400 for a bad key).
func (c *Caller) statusError(capab ai.Capability, meta Meta, body []byte) *ai.Error {
	var up Upstream
	if c.DecodeError != nil {
		up = c.DecodeError(meta.Status, meta.Header, body)
	}
	kind := up.Kind
	if kind == "" {
		kind = KindForStatus(meta.Status)
	}
	retry := up.RetryAfter
	if retry == 0 {
		retry = exchange.RetryAfter(meta.Header, time.Now())
	}
	return &ai.Error{Kind: kind, Protocol: c.Protocol, Capability: capab, Status: meta.Status,
		Reason: fmt.Sprintf("status %d", meta.Status), Code: SanitizeCode(up.Code),
		RetryAfter: retry, RequestID: meta.RequestID}
}

// KindForStatus maps an HTTP status to an error kind.
func KindForStatus(status int) outcome.Kind {
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return outcome.Unauthorized
	case status == http.StatusTooManyRequests:
		return outcome.RateLimited
	case status == http.StatusRequestTimeout || status >= 500:
		return outcome.ProviderFault // 529 (Anthropic "overloaded") included
	case status >= 400:
		return outcome.Rejected
	default:
		return outcome.ProviderFault // a 1xx or 3xx the client did not follow
	}
}

// transportError classifies a failed exchange (exchange.Classify): our
// own timeout is the provider's fault, the caller's cancel or deadline is
// not; a failure inside a stream is a cut.
func (c *Caller) transportError(ctx, callCtx context.Context, capab ai.Capability, meta Meta, err error, inStream bool) *ai.Error {
	f := exchange.Classify(ctx, callCtx, err, true)
	e := &ai.Error{Kind: f.Kind, Protocol: c.Protocol, Capability: capab, Status: meta.Status, RequestID: meta.RequestID}
	switch {
	case f.Kind == outcome.Canceled:
		e.Reason = ai.ReasonCanceled
		return e.WithCause(f.Err)
	case f.Timeout:
		e.Reason = ai.ReasonTimeout
	case inStream:
		e.Reason = ai.ReasonStreamCut
	default:
		e.Reason = ai.ReasonConnection
	}
	return e.WithCause(err)
}

// Fault is a provider fault on an answer (malformed, incomplete), carrying
// the status and request id.
func (c *Caller) Fault(capab ai.Capability, meta Meta, reason string) *ai.Error {
	return &ai.Error{Kind: outcome.ProviderFault, Protocol: c.Protocol, Capability: capab,
		Status: meta.Status, Reason: reason, RequestID: meta.RequestID}
}

// SanitizeCode keeps a provider's error code only when it looks like a code
// (letters, digits, _ . : -; at most 64): never free text from the body.
func SanitizeCode(s string) string {
	if len(s) > 64 {
		return ""
	}
	for _, r := range s {
		ok := r == '_' || r == '.' || r == ':' || r == '-' ||
			(r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9')
		if !ok {
			return ""
		}
	}
	return s
}

// IsJSON reports whether a content type is JSON (a stream answered with JSON
// is not a stream).
func IsJSON(contentType string) bool {
	return strings.HasPrefix(strings.ToLower(strings.TrimSpace(contentType)), "application/json")
}
