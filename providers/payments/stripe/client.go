package stripe

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"strings"
	"sync/atomic"
	"time"

	"github.com/platform/backend/providers/outcome"
)

// Request is one payments.processor.invoke call.
type Request struct {
	Operation string         // the seed's name: "payment_intents.create"
	Params    map[string]any // Stripe's parameters, plus the path id and stripe_account members
	// IdempotencyKey goes out as Idempotency-Key on POSTs (at most 255
	// printable ASCII characters). GET and DELETE are idempotent by nature
	// and Stripe ignores the header there, so it is not sent.
	IdempotencyKey string
}

// Response is Stripe's answer to a successful call.
type Response struct {
	Status int
	// Body is the JSON object Stripe answered, byte for byte.
	Body      json.RawMessage
	RequestID string // Request-Id
	// IdempotentReplayed is set when Stripe answered with the stored result
	// of an earlier request with the same Idempotency-Key.
	IdempotentReplayed bool
}

// Processor is what the gateway holds: the live client, or the same client
// pointed at the fake for the sandbox connection.
type Processor interface {
	Invoke(ctx context.Context, req Request) (*Response, error)
}

// Client calls Stripe with one connection's secret key. Safe for
// concurrent use.
type Client struct {
	cfg Config
}

var _ Processor = (*Client)(nil)

// maxAnswer bounds how much of an answer is read: Stripe's objects, even
// expanded, are far smaller, and an endless body must not hold memory.
const maxAnswer = 8 << 20

// maxIdempotencyKey is Stripe's limit.
const maxIdempotencyKey = 255

// New builds a client (defaults applied, then validated).
func New(cfg Config) (*Client, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Client{cfg: cfg}, nil
}

// Invoke performs one operation, one attempt. The error is always an
// *Error.
func (c *Client) Invoke(ctx context.Context, req Request) (*Response, error) {
	op, ok := LookupOperation(req.Operation)
	if !ok {
		return nil, refuse(token(req.Operation), "unknown operation", nil)
	}
	httpReq, err := c.build(ctx, op, req)
	if err != nil {
		return nil, err
	}
	if ctx.Err() != nil {
		return nil, &Error{Kind: outcome.Canceled, Operation: op.Name, Reason: "caller canceled", Err: ctx.Err()}
	}
	return c.exchange(ctx, op, httpReq)
}

// build checks the request and renders it; nothing is sent.
func (c *Client) build(ctx context.Context, op Operation, req Request) (*http.Request, error) {
	params := make(map[string]any, len(req.Params))
	for k, v := range req.Params {
		params[k] = v
	}
	id := ""
	if op.PathParam != "" {
		s, isString := params[op.PathParam].(string)
		if !isString || !validID(s) {
			return nil, refuse(op.Name, "params."+op.PathParam+" must be a Stripe id", nil)
		}
		id = s
		delete(params, op.PathParam)
	}
	account := ""
	if v, present := params["stripe_account"]; present {
		if op.ConnectManagement {
			return nil, refuse(op.Name, "stripe_account not allowed on a Connect management operation", nil)
		}
		s, isString := v.(string)
		if !isString || !strings.HasPrefix(s, "acct_") || !validID(s) {
			return nil, refuse(op.Name, "stripe_account must be an acct_ id", nil)
		}
		account = s
		delete(params, "stripe_account")
	}
	if !validIdempotencyKey(req.IdempotencyKey) {
		return nil, refuse(op.Name, "bad idempotency key", nil)
	}
	encoded, err := encodeForm(params)
	if err != nil {
		return nil, refuse(op.Name, "params cannot be form encoded", err)
	}

	target := strings.TrimRight(c.cfg.BaseURL, "/") + op.path(id)
	var body io.Reader
	if op.Method == http.MethodPost {
		body = strings.NewReader(encoded)
	} else if encoded != "" {
		target += "?" + encoded
	}
	r, err := http.NewRequestWithContext(ctx, op.Method, target, body)
	if err != nil {
		return nil, refuse(op.Name, "request cannot be built", err)
	}
	r.Header.Set("Authorization", "Bearer "+c.cfg.SecretKey)
	r.Header.Set("Stripe-Version", c.cfg.APIVersion)
	r.Header.Set("Accept", "application/json")
	r.Header.Set("User-Agent", "platform-backend-stripe/1")
	if op.Method == http.MethodPost {
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if req.IdempotencyKey != "" {
			r.Header.Set("Idempotency-Key", req.IdempotencyKey)
		}
	}
	if account != "" {
		r.Header.Set("Stripe-Account", account)
	}
	return r, nil
}

// exchange sends the request within Config.Timeout and reads the answer.
func (c *Client) exchange(ctx context.Context, op Operation, r *http.Request) (*Response, error) {
	callCtx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	// The trace tells a request that never left (nothing can have happened)
	// from one whose answer was lost (it may have).
	var wrote atomic.Bool
	trace := &httptrace.ClientTrace{WroteRequest: func(httptrace.WroteRequestInfo) { wrote.Store(true) }}
	r = r.WithContext(httptrace.WithClientTrace(callCtx, trace))

	resp, err := c.cfg.HTTPClient.Do(r)
	if err != nil {
		return nil, transportError(ctx, op, err, wrote.Load())
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer+1))
	if err != nil {
		e := transportError(ctx, op, err, true)
		e.Status, e.RequestID = resp.StatusCode, token(resp.Header.Get("Request-Id"))
		return nil, e
	}
	post := op.Method == http.MethodPost
	if len(body) > maxAnswer {
		return nil, &Error{Kind: outcome.ProviderFault, Operation: op.Name, Reason: "answer too large", Status: resp.StatusCode,
			RequestID: token(resp.Header.Get("Request-Id")), MaybeApplied: post && resp.StatusCode/100 == 2}
	}
	if resp.StatusCode/100 != 2 {
		return nil, classify(op.Name, resp.StatusCode, resp.Header, body, time.Now())
	}
	if !isJSONObject(body) {
		return nil, &Error{Kind: outcome.ProviderFault, Operation: op.Name, Reason: "malformed answer", Status: resp.StatusCode,
			RequestID: token(resp.Header.Get("Request-Id")), MaybeApplied: post}
	}
	return &Response{Status: resp.StatusCode, Body: body, RequestID: token(resp.Header.Get("Request-Id")),
		IdempotentReplayed: resp.Header.Get("Idempotent-Replayed") == "true"}, nil
}

// transportError classifies an exchange that ended without a readable
// answer. The caller's context is asked first: when it ended, nothing can
// be concluded about Stripe.
func transportError(ctx context.Context, op Operation, err error, wrote bool) *Error {
	e := &Error{Operation: op.Name, Err: err, MaybeApplied: wrote && op.Method == http.MethodPost}
	var netErr net.Error
	switch {
	case ctx.Err() != nil:
		e.Kind, e.Reason, e.Err = outcome.Canceled, "caller canceled", ctx.Err()
	case errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &netErr) && netErr.Timeout()):
		e.Kind, e.Reason, e.TimedOut = outcome.ProviderFault, "stripe timed out", true
	case !wrote:
		e.Kind, e.Reason = outcome.ProviderFault, "stripe unreachable"
	default:
		e.Kind, e.Reason = outcome.ProviderFault, "connection lost"
	}
	return e
}

// validID holds for what Stripe's ids are made of. It keeps "/", "?", "%"
// and ".." out of the path.
func validID(s string) bool {
	if s == "" || len(s) > 255 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			return false
		}
	}
	return true
}

// validIdempotencyKey holds for "" (none) and for a key Stripe accepts
// that fits in a header: printable ASCII, at most 255 characters.
func validIdempotencyKey(k string) bool {
	if len(k) > maxIdempotencyKey {
		return false
	}
	for i := 0; i < len(k); i++ {
		if k[i] < 0x20 || k[i] > 0x7e {
			return false
		}
	}
	return true
}

// isJSONObject holds for a well-formed JSON object, the only shape Stripe
// answers a 2xx with.
func isJSONObject(b []byte) bool {
	t := bytes.TrimLeft(b, " \t\r\n")
	return len(t) > 0 && t[0] == '{' && json.Valid(b)
}
