package socialfake

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"time"
)

// Options configure a fake. Zero values take the defaults.
type Options struct {
	// ClientID and ClientSecret are the OAuth client the fake knows
	// (default fake-client-id / fake-client-secret).
	ClientID     string
	ClientSecret string
	// RedirectURIs are the registered callbacks; empty allows any http(s)
	// URI.
	RedirectURIs []string
	// Consent is what the authorize endpoint does (default ConsentPage).
	Consent Consent
	// Now is the fake's clock (default time.Now).
	Now func() time.Time
}

// Consent is how the authorize endpoint answers.
type Consent string

const (
	// ConsentPage answers a small HTML page whose approve and deny links
	// (the same URL plus consent=approve or consent=deny) a test or an e2e
	// client follows: "told to approve".
	ConsentPage Consent = "page"
	// ConsentApprove redirects back with a code at once.
	ConsentApprove Consent = "approve"
	// ConsentDeny redirects back with error=access_denied at once.
	ConsentDeny Consent = "deny"
)

// Core is the shared state of one fake network. Safe for concurrent use.
type Core struct {
	dialect Dialect
	opts    Options
	script  script
	closing chan struct{}
	server  *httptest.Server
	url     string

	mu       sync.Mutex
	requests []Request
	posts    []Post
	byKey    map[string]int // idempotency key -> index in posts
	seq      map[string]int64
	oauth    oauthState
	closed   bool
}

// NewCore builds the state of a fake speaking dialect.
func NewCore(d Dialect, opts Options) *Core {
	if opts.ClientID == "" {
		opts.ClientID = "fake-client-id"
	}
	if opts.ClientSecret == "" {
		opts.ClientSecret = "fake-client-secret"
	}
	if opts.Consent == "" {
		opts.Consent = ConsentPage
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Core{
		dialect: d,
		opts:    opts,
		script:  script{queue: map[Op][]Fault{}, always: map[Op]Fault{}},
		closing: make(chan struct{}),
		byKey:   map[string]int{},
		seq:     map[string]int64{},
		oauth:   newOAuthState(),
	}
}

// Serve starts an HTTP server on 127.0.0.1 for h (the network fake's
// routes); URL answers its base URL.
func (c *Core) Serve(h http.Handler) {
	c.server = httptest.NewServer(h)
	c.url = c.server.URL
}

// URL is the base URL of the served fake ("" when mounted elsewhere).
func (c *Core) URL() string { return c.url }

// Close ends hanging calls first (an httptest server waits for its
// handlers), then stops the server.
func (c *Core) Close() {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return
	}
	c.closed = true
	c.mu.Unlock()
	close(c.closing)
	if c.server != nil {
		c.server.Close()
	}
}

// Now is the fake's clock.
func (c *Core) Now() time.Time { return c.opts.Now() }

// ClientID is the OAuth client id the fake accepts.
func (c *Core) ClientID() string { return c.opts.ClientID }

// ClientSecret is the OAuth client secret the fake accepts.
func (c *Core) ClientSecret() string { return c.opts.ClientSecret }

// SetConsent changes what the authorize endpoint does.
func (c *Core) SetConsent(consent Consent) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.opts.Consent = consent
}

// Request is one recorded call.
type Request struct {
	Op     Op
	Method string
	Path   string
	Query  url.Values
	Header http.Header
	Body   []byte
	At     time.Time
}

// Requests lists every call received so far, in arrival order.
func (c *Core) Requests() []Request {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Request(nil), c.requests...)
}

// RequestsOf lists the calls of one op.
func (c *Core) RequestsOf(op Op) []Request {
	var out []Request
	for _, r := range c.Requests() {
		if r.Op == op {
			out = append(out, r)
		}
	}
	return out
}

// NextID is the next number of a deterministic sequence (1, 2, 3 ...) the
// fake formats into its network's ids.
func (c *Core) NextID(sequence string) int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seq[sequence]++
	return c.seq[sequence]
}

// Call is one request in progress.
type Call struct {
	core  *Core
	W     http.ResponseWriter
	R     *http.Request
	Op    Op
	Body  []byte
	Grant Grant // the token's grant when the call was authenticated
	fault Fault
}

// Begin records a call, checks its bearer token when auth is set, and
// applies the scripted fault. It answers false when the call has been
// answered (a problem or a fault): the handler returns.
func (c *Core) Begin(w http.ResponseWriter, r *http.Request, op Op, auth bool) (*Call, bool) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 256<<20))
	r.Body = io.NopCloser(bytes.NewReader(body))
	c.mu.Lock()
	c.requests = append(c.requests, Request{Op: op, Method: r.Method, Path: r.URL.Path, Query: r.URL.Query(),
		Header: r.Header.Clone(), Body: body, At: c.Now()})
	c.mu.Unlock()
	call := &Call{core: c, W: w, R: r, Op: op, Body: body}
	if auth {
		g, p, ok := c.authenticate(r)
		if !ok {
			c.dialect.WriteProblem(w, r, op, p)
			return nil, false
		}
		call.Grant = g
	}
	call.fault = c.script.take(op, string(body)+"?"+r.URL.RawQuery)
	switch call.fault.Kind {
	case Succeed:
		return call, true
	case AcceptThenTimeout:
		if op == OpPost {
			return call, true
		}
		call.hang()
	case Hang:
		call.hang()
	case Malformed:
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusOK)
		_, _ = io.WriteString(w, "<html><body>upstream hiccup</body></html>")
	default:
		c.dialect.WriteProblem(w, r, op, problemOf(call.fault))
	}
	return nil, false
}

// Problem answers a refusal in the network's shape.
func (call *Call) Problem(p Problem) {
	call.core.dialect.WriteProblem(call.W, call.R, call.Op, p)
}

// NeedScope answers scope_missing and false when the grant lacks scope.
func (call *Call) NeedScope(scope string) bool {
	for _, s := range call.Grant.Scopes {
		if s == scope {
			return true
		}
	}
	call.Problem(Problem{Kind: ProblemScopeMissing, Reason: scope})
	return false
}

// Accepted is called by a handler right after it stored the post: under
// AcceptThenTimeout it hangs until the client gives up and answers true
// (the handler writes nothing more).
func (call *Call) Accepted() bool {
	if call.fault.Kind != AcceptThenTimeout {
		return false
	}
	call.hang()
	return true
}

func (call *Call) hang() {
	select {
	case <-call.R.Context().Done():
	case <-call.core.closing:
	}
}

// BaseURL is the scheme and host the call came to: the fakes build the
// URLs they hand out (upload URLs, permalinks) from it, so a fake mounted
// on any listener hands out its own address.
func BaseURL(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// BearerOrParam is the access token of a call: Authorization: Bearer, or
// the access_token parameter (Graph API style).
func BearerOrParam(r *http.Request) string {
	if h := r.Header.Get("Authorization"); h != "" {
		if tok, ok := strings.CutPrefix(h, "Bearer "); ok {
			return strings.TrimSpace(tok)
		}
		if tok, ok := strings.CutPrefix(h, "OAuth "); ok {
			return strings.TrimSpace(tok)
		}
		return ""
	}
	if tok := r.URL.Query().Get("access_token"); tok != "" {
		return tok
	}
	if strings.HasPrefix(r.Header.Get("Content-Type"), "application/x-www-form-urlencoded") {
		if err := r.ParseForm(); err == nil {
			return r.PostForm.Get("access_token")
		}
	}
	return ""
}
