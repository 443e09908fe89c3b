package stripe

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/platform/backend/providers/exchange"
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
	return c.exchange(op, httpReq)
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

// exchange sends the request within Config.Timeout and reads the answer
// (providers/exchange).
func (c *Client) exchange(op Operation, r *http.Request) (*Response, error) {
	x := exchange.Exchange{Client: c.cfg.HTTPClient, Timeout: c.cfg.Timeout, MaxAnswer: maxAnswer, RequestIDHeaders: []string{"Request-Id"}}
	a, f := x.Do(r)
	if f != nil {
		return nil, failed(op, f)
	}
	if a.Status/100 != 2 {
		return nil, classify(op.Name, a.Status, a.Header, a.Body, time.Now())
	}
	if !isJSONObject(a.Body) {
		return nil, &Error{Kind: outcome.ProviderFault, Operation: op.Name, Reason: "malformed answer", Status: a.Status,
			RequestID: token(a.RequestID), MaybeApplied: op.Method == http.MethodPost}
	}
	return &Response{Status: a.Status, Body: a.Body, RequestID: token(a.RequestID),
		IdempotentReplayed: a.Header.Get("Idempotent-Replayed") == "true"}, nil
}

// failed is an exchange without a readable answer, in our words. A POST
// written whole may have been applied.
func failed(op Operation, f *exchange.Failure) *Error {
	post := op.Method == http.MethodPost
	e := &Error{Kind: f.Kind, Operation: op.Name, TimedOut: f.Timeout, MaybeApplied: f.Sent && post, Err: f.Err}
	if f.Answer != nil {
		e.Status, e.RequestID = f.Answer.Status, token(f.Answer.RequestID)
	}
	switch {
	case f.Kind == outcome.Canceled:
		e.Reason = "caller canceled"
	case f.TooLarge:
		e.Reason, e.MaybeApplied = "answer too large", post && e.Status/100 == 2
	case f.Timeout:
		e.Reason = "stripe timed out"
	case !f.Sent:
		e.Reason = "stripe unreachable"
	default:
		e.Reason = "connection lost"
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
