package socialfake

import (
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/platform/backend/domain/text"
	"github.com/platform/backend/providers/social"
)

// Grant is what one approval (or IssueGrant) gave: an access token, maybe a
// refresh token, for an account and scopes.
type Grant struct {
	Account       string
	Scopes        []string
	Access        string
	Refresh       string
	Expiry        time.Time // zero: never
	RefreshExpiry time.Time // zero: never
}

// Token is the grant as the adapters hold it.
func (g Grant) Token() social.Token {
	return social.Token{AccessToken: g.Access, RefreshToken: g.Refresh, Expiry: g.Expiry, RefreshExpiry: g.RefreshExpiry,
		Scopes: g.Scopes}
}

// TokenPolicy is how a network issues tokens.
type TokenPolicy struct {
	AccessTTL  time.Duration // 0: access tokens never expire
	RefreshTTL time.Duration // 0: refresh tokens never expire
	// Refresh: refresh tokens are issued (RefreshScope, when set, must be
	// granted for one: X's offline.access).
	Refresh      bool
	RefreshScope string
	// Rotate: a refresh answers a new refresh token and the old one dies.
	Rotate bool
}

type grantState struct {
	Grant
	revoked bool
}

type pendingCode struct {
	clientID, redirectURI, challenge, account string
	scopes                                    []string
	expires                                   time.Time
	used                                      bool
}

type oauthState struct {
	policy  TokenPolicy
	user    string // the account that approves at the authorize endpoint
	codes   map[string]*pendingCode
	access  map[string]*grantState
	refresh map[string]*grantState
}

func newOAuthState() oauthState {
	return oauthState{codes: map[string]*pendingCode{}, access: map[string]*grantState{}, refresh: map[string]*grantState{}}
}

// SetTokenPolicy sets how tokens are issued.
func (c *Core) SetTokenPolicy(p TokenPolicy) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.oauth.policy = p
}

// SetUser sets the account that approves at the authorize endpoint.
func (c *Core) SetUser(account string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.oauth.user = account
}

// Connect is account connected with scopes, skipping the connect flow: a
// grant issued for its id (tests that start connected).
func (c *Core) Connect(account social.Account, scopes []string) social.Connection {
	return social.Connection{Token: c.IssueGrant(account.ID, scopes).Token(), Account: account}
}

// IssueGrant makes a token for account and scopes without the connect
// flow (tests that start connected).
func (c *Core) IssueGrant(account string, scopes []string) Grant {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.issueLocked(account, scopes)
}

func (c *Core) issueLocked(account string, scopes []string) Grant {
	now, p := c.Now(), c.oauth.policy
	n := c.Seq("grant")
	g := &grantState{Grant: Grant{Account: account, Scopes: slices.Clone(scopes), Access: fmt.Sprintf("fake-access-%d", n)}}
	if p.AccessTTL > 0 {
		g.Expiry = now.Add(p.AccessTTL)
	}
	if p.Refresh && (p.RefreshScope == "" || slices.Contains(scopes, p.RefreshScope)) {
		g.Refresh = fmt.Sprintf("fake-refresh-%d", n)
		if p.RefreshTTL > 0 {
			g.RefreshExpiry = now.Add(p.RefreshTTL)
		}
		c.oauth.refresh[g.Refresh] = g
	}
	c.oauth.access[g.Access] = g
	return g.Grant
}

// RevokeGrants revokes every grant: the user removed the app. Access and
// refresh tokens stop working.
func (c *Core) RevokeGrants() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, g := range c.oauth.access {
		g.revoked = true
	}
	for _, g := range c.oauth.refresh {
		g.revoked = true
	}
}

// ExpireAccessTokens makes every access token expired now (time passed);
// refresh tokens keep working.
func (c *Core) ExpireAccessTokens() {
	c.mu.Lock()
	defer c.mu.Unlock()
	past := c.Now().Add(-time.Second)
	for _, g := range c.oauth.access {
		g.Expiry = past
	}
}

// authenticate checks a call's bearer token.
func (c *Core) authenticate(r *http.Request) (Grant, Problem, bool) {
	tok := BearerOrParam(r)
	c.mu.Lock()
	defer c.mu.Unlock()
	g, ok := c.oauth.access[tok]
	switch {
	case tok == "" || !ok || g.revoked:
		return Grant{}, Problem{Kind: ProblemTokenInvalid}, false
	case !g.Expiry.IsZero() && !c.Now().Before(g.Expiry):
		return Grant{}, Problem{Kind: ProblemTokenExpired}, false
	}
	return g.Grant, Problem{}, true
}

// AuthorizeDialect is how a network's authorize endpoint names things.
type AuthorizeDialect struct {
	ClientIDParam  string // default client_id (TikTok: client_key)
	ScopeSeparator string // default a space
}

// Authorize serves a network's authorize endpoint: it checks the client,
// the redirect URI, the state and the S256 challenge, then asks, approves
// or denies as the consent setting (or the consent parameter) says, and
// redirects back with a code or error=access_denied, with the state. A
// request it cannot trust (unknown client, unregistered redirect) is
// answered 400 here, never redirected.
func (c *Core) Authorize(w http.ResponseWriter, r *http.Request, d AuthorizeDialect) {
	idParam, sep := d.ClientIDParam, d.ScopeSeparator
	if idParam == "" {
		idParam = "client_id"
	}
	if sep == "" {
		sep = " "
	}
	c.Label(r, OpAuthorize)
	c.mu.Lock()
	consent := c.opts.Consent
	c.mu.Unlock()
	q := r.URL.Query()
	redirect := q.Get("redirect_uri")
	if q.Get(idParam) != c.opts.ClientID || !c.redirectAllowed(redirect) {
		http.Error(w, "unknown client or redirect URI", http.StatusBadRequest)
		return
	}
	back := func(params url.Values) {
		u, _ := url.Parse(redirect)
		rq := u.Query()
		for k, v := range params {
			rq[k] = v
		}
		rq.Set("state", q.Get("state"))
		u.RawQuery = rq.Encode()
		http.Redirect(w, r, u.String(), http.StatusFound)
	}
	challenge := q.Get("code_challenge")
	if q.Get("response_type") != "code" || q.Get("state") == "" || q.Get("code_challenge_method") != "S256" || len(challenge) != 43 {
		back(url.Values{"error": {"invalid_request"}})
		return
	}
	switch answer := q.Get("consent"); {
	case answer == "deny" || (answer == "" && consent == ConsentDeny):
		back(url.Values{"error": {"access_denied"}})
		return
	case answer == "" && consent == ConsentPage:
		approve, deny := withParam(r.URL, "consent", "approve"), withParam(r.URL, "consent", "deny")
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><title>Authorize</title><p>Let the app post for you?</p>`+
			`<p><a id="approve" href="%s">Approve</a> <a id="deny" href="%s">Deny</a></p>`, html.EscapeString(approve), html.EscapeString(deny))
		return
	}
	c.mu.Lock()
	code := fmt.Sprintf("fake-code-%d", c.Seq("code"))
	c.oauth.codes[code] = &pendingCode{clientID: c.opts.ClientID, redirectURI: redirect, challenge: challenge,
		account: c.oauth.user, scopes: strings.FieldsFunc(q.Get("scope"), func(r rune) bool { return r == ' ' || strings.ContainsRune(sep, r) }),
		expires: c.Now().Add(10 * time.Minute)}
	c.mu.Unlock()
	back(url.Values{"code": {code}})
}

func withParam(u *url.URL, k, v string) string {
	c := *u
	q := c.Query()
	q.Set(k, v)
	c.RawQuery = q.Encode()
	return c.RequestURI()
}

func (c *Core) redirectAllowed(uri string) bool {
	if _, problem := text.ParseURL(uri, text.URLRules{}); problem != "" {
		return false
	}
	return len(c.opts.RedirectURIs) == 0 || slices.Contains(c.opts.RedirectURIs, uri)
}

// CheckClient reports whether id and secret are the fake's client. An empty
// secret passes for public clients when allowPublic is set (X's PKCE-only
// clients).
func (c *Core) CheckClient(id, secret string, allowPublic bool) bool {
	if id != c.opts.ClientID {
		return false
	}
	return secret == c.opts.ClientSecret || (allowPublic && secret == "")
}

// RedeemCode trades an authorization code for a grant: the code must be
// fresh and unused, the redirect URI the one authorized, and the verifier's
// S256 the challenge.
func (c *Core) RedeemCode(code, verifier, redirectURI string) (Grant, Problem, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	pc, ok := c.oauth.codes[code]
	if !ok || pc.used || !c.Now().Before(pc.expires) || pc.redirectURI != redirectURI {
		return Grant{}, Problem{Kind: ProblemGrantInvalid, Reason: "code"}, false
	}
	sum := sha256.Sum256([]byte(verifier))
	if base64.RawURLEncoding.EncodeToString(sum[:]) != pc.challenge {
		return Grant{}, Problem{Kind: ProblemGrantInvalid, Reason: "code_verifier"}, false
	}
	pc.used = true
	return c.issueLocked(pc.account, pc.scopes), Problem{}, true
}

// TokenClient is how a token endpoint reads its client: Basic
// credentials, else the form's IDParam (default client_id) and
// client_secret. Public: a client without a secret passes when it did not
// use Basic (X's PKCE-only clients).
type TokenClient struct {
	IDParam string
	Public  bool
}

// Token serves what every token endpoint does before its answer: the
// scripted fault (OpToken), the client check and the grant by its type
// (Exchange). It answers false when the call has been answered.
func (c *Core) Token(w http.ResponseWriter, r *http.Request, tc TokenClient) (Grant, bool) {
	call, ok := c.Begin(w, r, OpToken, false)
	if !ok {
		return Grant{}, false
	}
	_ = r.ParseForm()
	if tc.IDParam == "" {
		tc.IDParam = "client_id"
	}
	id, secret, basic := r.BasicAuth()
	if !basic {
		id, secret = r.PostForm.Get(tc.IDParam), r.PostForm.Get("client_secret")
	}
	if !c.CheckClient(id, secret, tc.Public && !basic) {
		call.Problem(Problem{Kind: ProblemClientInvalid})
		return Grant{}, false
	}
	g, p, ok := c.Exchange(r.PostForm)
	if !ok {
		call.Problem(p)
	}
	return g, ok
}

// Exchange answers a token endpoint's form as its grant_type says: an
// authorization code redeemed (RedeemCode) or a grant refreshed
// (RefreshGrant); any other grant type is invalid.
func (c *Core) Exchange(form url.Values) (Grant, Problem, bool) {
	switch form.Get("grant_type") {
	case "authorization_code":
		return c.RedeemCode(form.Get("code"), form.Get("code_verifier"), form.Get("redirect_uri"))
	case "refresh_token":
		return c.RefreshGrant(form.Get("refresh_token"))
	}
	return Grant{}, Problem{Kind: ProblemInvalid, Reason: "grant_type"}, false
}

// RefreshGrant renews a grant by its refresh token (rotating it when the
// policy says).
func (c *Core) RefreshGrant(refresh string) (Grant, Problem, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	g, ok := c.oauth.refresh[refresh]
	if !ok || g.revoked || (!g.RefreshExpiry.IsZero() && !c.Now().Before(g.RefreshExpiry)) {
		return Grant{}, Problem{Kind: ProblemGrantInvalid, Reason: "refresh_token"}, false
	}
	old := g.Access
	fresh := c.issueLocked(g.Account, g.Scopes)
	delete(c.oauth.access, old)
	if !c.oauth.policy.Rotate {
		// Keep the refresh token: point it at the new grant.
		if ng := c.oauth.refresh[fresh.Refresh]; ng != nil {
			delete(c.oauth.refresh, fresh.Refresh)
			ng.Refresh = refresh
			ng.RefreshExpiry = g.RefreshExpiry
			c.oauth.refresh[refresh] = ng
			fresh = ng.Grant
		}
	} else {
		delete(c.oauth.refresh, refresh)
	}
	return fresh, Problem{}, true
}

// RenewAccess trades a valid access token for a new one of ttl (Facebook's
// fb_exchange_token, Instagram's ig_exchange_token and ig_refresh_token);
// the old one keeps working until it expires.
func (c *Core) RenewAccess(access string, ttl time.Duration) (Grant, Problem, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	g, ok := c.oauth.access[access]
	switch {
	case !ok || g.revoked:
		return Grant{}, Problem{Kind: ProblemTokenInvalid}, false
	case !g.Expiry.IsZero() && !c.Now().Before(g.Expiry):
		return Grant{}, Problem{Kind: ProblemTokenExpired}, false
	}
	ng := &grantState{Grant: Grant{Account: g.Account, Scopes: slices.Clone(g.Scopes), Access: fmt.Sprintf("fake-access-%d", c.Seq("grant"))}}
	if ttl > 0 {
		ng.Expiry = c.Now().Add(ttl)
	}
	c.oauth.access[ng.Access] = ng
	return ng.Grant, Problem{}, true
}

// IssueGrantFor makes a token for account with its own lifetime (0: never
// expires), such as a page token; it answers the access token.
func (c *Core) IssueGrantFor(account string, scopes []string, ttl time.Duration) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	g := &grantState{Grant: Grant{Account: account, Scopes: slices.Clone(scopes), Access: fmt.Sprintf("fake-access-%d", c.Seq("grant"))}}
	if ttl > 0 {
		g.Expiry = c.Now().Add(ttl)
	}
	c.oauth.access[g.Access] = g
	return g.Access
}
