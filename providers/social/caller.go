package social

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/platform/backend/domain/text"
	"github.com/platform/backend/providers/exchange"
	"github.com/platform/backend/providers/outcome"
)

// HTTPConfig is the transport part of every adapter's Config.
type HTTPConfig struct {
	// Client sends the requests; nil means a client of the adapter's own
	// (never http.DefaultClient, whose settings anyone can change).
	Client *http.Client
	// Timeout bounds one request and its answer (default 15s). A publish
	// request still unanswered then is an unknown outcome.
	Timeout time.Duration
	// MaxAnswerBytes bounds an answer's body (default 2 MiB).
	MaxAnswerBytes int64
	// MaxUploadBytes bounds media read for an upload (default 16 MiB).
	MaxUploadBytes int64
	// UserAgent names us to the network (default platform-social/1).
	UserAgent string
	// Now is the clock for token expiry and rate-limit resets (nil:
	// time.Now).
	Now func() time.Time
}

// WithDefaults fills in zero values.
func (c HTTPConfig) WithDefaults() HTTPConfig {
	if c.Client == nil {
		c.Client = &http.Client{Transport: newTransport()}
	}
	if c.Timeout == 0 {
		c.Timeout = 15 * time.Second
	}
	if c.MaxAnswerBytes == 0 {
		c.MaxAnswerBytes = 2 << 20
	}
	if c.MaxUploadBytes == 0 {
		c.MaxUploadBytes = 16 << 20
	}
	if c.UserAgent == "" {
		c.UserAgent = "platform-social/1"
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	return c
}

// Validate names every problem at once.
func (c HTTPConfig) Validate(network string) error {
	var errs []error
	if c.Timeout <= 0 {
		errs = append(errs, fmt.Errorf("%s: timeout must be positive", network))
	}
	if c.MaxAnswerBytes <= 0 || c.MaxUploadBytes <= 0 {
		errs = append(errs, fmt.Errorf("%s: answer and upload limits must be positive", network))
	}
	return errors.Join(errs...)
}

// newTransport is a transport of the adapter's own: a clone of the default
// one when it is the standard type, a fresh one with the same bounds
// otherwise.
func newTransport() *http.Transport {
	if t, ok := http.DefaultTransport.(*http.Transport); ok {
		return t.Clone()
	}
	return &http.Transport{Proxy: http.ProxyFromEnvironment, ForceAttemptHTTP2: true, MaxIdleConns: 100,
		IdleConnTimeout: 90 * time.Second, TLSHandshakeTimeout: 10 * time.Second, ExpectContinueTimeout: time.Second}
}

// ValidateURL checks that a configured endpoint is an absolute http(s) URL.
func ValidateURL(network, name, raw string) error {
	if _, problem := text.ParseURL(raw, text.URLRules{}); problem != "" {
		return fmt.Errorf("%s: %s %s", network, name, problem)
	}
	return nil
}

// Caller sends an adapter's requests and classifies every failure into an
// *Error: the one copy of the HTTP, JSON and error plumbing the six
// adapters share. Safe for concurrent use.
type Caller struct {
	network string
	cfg     HTTPConfig
}

// NewCaller builds a caller for a network (cfg with defaults applied).
func NewCaller(network string, cfg HTTPConfig) *Caller {
	return &Caller{network: network, cfg: cfg.WithDefaults()}
}

// Network is the network's neutral name.
func (c *Caller) Network() string { return c.network }

// Now is the caller's clock.
func (c *Caller) Now() time.Time { return c.cfg.Now() }

// MaxUploadBytes is the upload bound.
func (c *Caller) MaxUploadBytes() int64 { return c.cfg.MaxUploadBytes }

// Request is one call to a network.
type Request struct {
	Op     string // publish, upload_media, lookup ... (names the error)
	Method string
	URL    string
	// Bearer is the access token for Authorization: Bearer; empty sends none.
	Bearer string
	Header http.Header
	// One of JSON, Form or Body (with ContentType) is the body.
	JSON        any
	Form        url.Values
	Body        []byte
	ContentType string
	// Creates: this request makes the post. When it was sent and no usable
	// answer came back, the outcome is unknown, never a failure.
	Creates bool
}

// Answer is a network's answer, body read in full (bounded).
type Answer struct {
	Status int
	Header http.Header
	Body   []byte
}

// Classifier reads a network's own error shapes. It returns nil when the
// answer is not an error it recognizes; the caller then judges by status
// (2xx success, the rest by ClassifyStatus).
type Classifier func(op string, a *Answer) *Error

// Do sends the request and answers the network's answer when it is a
// success; every failure is an *Error.
func (c *Caller) Do(ctx context.Context, req Request, classify Classifier) (*Answer, error) {
	body, contentType, err := encodeBody(req)
	if err != nil {
		return nil, &Error{Network: c.network, Op: req.Op, Kind: outcome.Rejected, Reason: ReasonInvalid, cause: err}
	}
	if err := ctx.Err(); err != nil {
		return nil, &Error{Network: c.network, Op: req.Op, Kind: outcome.Canceled, Reason: ReasonCanceled, cause: err}
	}
	hreq, err := http.NewRequestWithContext(ctx, req.Method, req.URL, bytes.NewReader(body))
	if err != nil {
		return nil, &Error{Network: c.network, Op: req.Op, Kind: outcome.Rejected, Reason: ReasonInvalid, cause: err}
	}
	if body == nil {
		hreq.Body, hreq.GetBody, hreq.ContentLength = http.NoBody, nil, 0
	}
	for k, vs := range req.Header {
		hreq.Header[k] = append([]string(nil), vs...)
	}
	if contentType != "" {
		hreq.Header.Set("Content-Type", contentType)
	}
	if hreq.Header.Get("Accept") == "" {
		hreq.Header.Set("Accept", "application/json")
	}
	hreq.Header.Set("User-Agent", c.cfg.UserAgent)
	if req.Bearer != "" {
		hreq.Header.Set("Authorization", "Bearer "+req.Bearer)
	}
	x, f := exchange.Exchange{Client: c.cfg.Client, Timeout: c.cfg.Timeout, MaxAnswer: c.cfg.MaxAnswerBytes}.Do(hreq)
	if f != nil {
		return nil, c.failed(req, f)
	}
	a := &Answer{Status: x.Status, Header: x.Header, Body: x.Body}
	if classify != nil {
		if e := classify(req.Op, a); e != nil {
			return nil, c.complete(e, req, a)
		}
	}
	if a.Status/100 == 2 {
		return a, nil
	}
	return nil, c.complete(c.ClassifyStatus(req, a), req, a)
}

// DoJSON is Do decoding a success's JSON body into out. A success that is
// not JSON of that shape is malformed (an unknown outcome when it created).
func (c *Caller) DoJSON(ctx context.Context, req Request, classify Classifier, out any) (*Answer, error) {
	a, err := c.Do(ctx, req, classify)
	if err != nil {
		return nil, err
	}
	if out != nil {
		if err := json.Unmarshal(a.Body, out); err != nil {
			e := c.Malformed(req, a.Status)
			e.cause = err
			return nil, e
		}
	}
	return a, nil
}

// Malformed is the error for an answer we cannot read. A success of a
// creating request that we cannot read is an unknown outcome: the network
// said yes, we just do not know to what.
func (c *Caller) Malformed(req Request, status int) *Error {
	kind := outcome.ProviderFault
	if req.Creates && status/100 == 2 {
		kind = KindOutcomeUnknown
	}
	return Fail(c.network, req.Op, kind, ReasonMalformed, status)
}

// ClassifyStatus judges an answer by its HTTP status alone, for the cases a
// network's classifier did not recognize.
func (c *Caller) ClassifyStatus(req Request, a *Answer) *Error {
	fail := func(k outcome.Kind, reason string) *Error { return Fail(c.network, req.Op, k, reason, a.Status) }
	switch s := a.Status; {
	case s/100 == 2:
		return nil
	case s == http.StatusUnauthorized:
		return fail(outcome.Unauthorized, ReasonTokenInvalid)
	case s == http.StatusForbidden:
		return fail(outcome.Rejected, ReasonForbidden)
	case s == http.StatusRequestEntityTooLarge || s == http.StatusUnsupportedMediaType:
		return fail(outcome.Rejected, ReasonMediaInvalid)
	case s == http.StatusTooManyRequests:
		wait, at := WaitFromHeaders(a.Header, c.Now())
		return RateLimited(c.network, req.Op, s, wait, at)
	case s == http.StatusRequestTimeout:
		return fail(outcome.ProviderFault, ReasonTimeout)
	case (s == http.StatusBadGateway || s == http.StatusGatewayTimeout) && req.Creates:
		// A proxy in front of the network lost the answer, not the request:
		// the post may have been made behind it.
		return fail(KindOutcomeUnknown, ReasonGatewayTimeout)
	case s/100 == 5:
		return fail(outcome.ProviderFault, ReasonServerError)
	case s/100 == 4:
		return fail(outcome.Rejected, ReasonInvalid)
	default:
		return c.Malformed(req, s)
	}
}

// complete fills in what every error of an answered request carries.
func (c *Caller) complete(e *Error, req Request, a *Answer) *Error {
	e.Network, e.Sent = c.network, true
	if e.Op == "" {
		e.Op = req.Op
	}
	if e.Status == 0 {
		e.Status = a.Status
	}
	if e.Kind == outcome.RateLimited && e.RetryAfter == 0 && e.ResetAt.IsZero() {
		e.RetryAfter, e.ResetAt = WaitFromHeaders(a.Header, c.Now())
	}
	return e
}

// failed classifies a request that got no readable answer. A creating
// request written whole whose answer was lost, or whose success we could
// not finish reading, may have made the post: the outcome is unknown. An
// error answer cut short is still an error.
func (c *Caller) failed(req Request, f *exchange.Failure) *Error {
	status := 0
	if f.Answer != nil {
		status = f.Answer.Status
	}
	if f.TooLarge {
		e := c.Malformed(req, status)
		e.Reason = ReasonTooLarge
		return e
	}
	e := &Error{Network: c.network, Op: req.Op, Kind: f.Kind, Reason: ReasonConnection, Status: status, Sent: f.Sent, cause: f.Err}
	switch {
	case f.Kind == outcome.Canceled:
		e.Reason = ReasonCanceled
	case f.Timeout:
		e.Reason = ReasonTimeout
	}
	if req.Creates && f.Sent && (f.Answer == nil || status/100 == 2) {
		e.Kind = KindOutcomeUnknown
	}
	return e
}

func encodeBody(req Request) ([]byte, string, error) {
	switch {
	case req.JSON != nil:
		b, err := json.Marshal(req.JSON)
		return b, "application/json", err
	case req.Form != nil:
		return []byte(req.Form.Encode()), "application/x-www-form-urlencoded", nil
	case req.Body != nil:
		return req.Body, req.ContentType, nil
	}
	return nil, "", nil
}
