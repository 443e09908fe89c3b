package socialfake

import (
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/platform/backend/providers/fakekit"
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

// Core is the shared state of one fake network: the kit (faults per
// operation, records, ids, server) and what a social network keeps (posts,
// grants). Safe for concurrent use.
type Core struct {
	*fakekit.Kit
	dialect Dialect
	opts    Options

	mu    sync.Mutex
	posts []Post
	byKey map[string]int // idempotency key -> index in posts
	oauth oauthState
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
	c := &Core{dialect: d, opts: opts, byKey: map[string]int{}, oauth: newOAuthState()}
	c.Kit = fakekit.New(fakekit.Options{Protocol: protocol{d}, Now: opts.Now})
	return c
}

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

// Call is one request in progress.
type Call struct {
	*fakekit.Call
	Grant Grant // the token's grant when the call was authenticated
	core  *Core
}

// Begin checks a call's bearer token when auth is set, then takes and
// plays its scripted fault (fakekit.Kit.Begin; a rule's subject is the
// body and query). It answers false when the call has been answered (a
// problem or a fault): the handler returns.
func (c *Core) Begin(w http.ResponseWriter, r *http.Request, op string, auth bool) (*Call, bool) {
	c.Label(r, op)
	var g Grant
	if auth {
		var p Problem
		var ok bool
		if g, p, ok = c.authenticate(r); !ok {
			c.dialect.WriteProblem(w, r, op, p)
			return nil, false
		}
	}
	kc, ok := c.Kit.Begin(w, r, op)
	if !ok {
		return nil, false
	}
	return &Call{Call: kc, Grant: g, core: c}, true
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

// protocol says the scripted faults in the network's dialect. Accept then
// timeout is the post's: on any other operation it is a hang.
type protocol struct{ d Dialect }

func (p protocol) Say(w http.ResponseWriter, r *http.Request, op string, f fakekit.Fault) bool {
	switch f.Kind {
	case fakekit.AcceptThenTimeout:
		if op == OpPost {
			return false
		}
		fakekit.HangUp(w, r)
	case fakekit.Malformed:
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusOK)
		_, _ = io.WriteString(w, "<html><body>upstream hiccup</body></html>")
	default:
		p.d.WriteProblem(w, r, op, problemOf(f))
	}
	return true
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
