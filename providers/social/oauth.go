package social

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/platform/backend/providers/outcome"
)

// AuthRequest is what the authorize URL carries.
type AuthRequest struct {
	// RedirectURI is our callback; it must be registered with the network.
	RedirectURI string
	// State ties the callback to this attempt (CSRF); publishing checks it.
	State string
	// CodeChallenge is the S256 challenge of the attempt's verifier.
	CodeChallenge string
	// Scopes override the network's defaults when set.
	Scopes []string
}

// CodeExchange is what the callback yields plus the attempt's verifier.
type CodeExchange struct {
	Code         string
	CodeVerifier string
	RedirectURI  string // the same URI the authorize URL named
}

// AuthFlow holds the secrets of one connect attempt between the redirect
// and the callback: keep it server side, keyed by State.
type AuthFlow struct {
	State         string
	CodeVerifier  string
	CodeChallenge string
}

// NewAuthFlow draws a state and a PKCE verifier (RFC 7636: 32 random bytes,
// base64url: 43 characters) and derives the S256 challenge.
func NewAuthFlow() (AuthFlow, error) {
	state, err := randomToken()
	if err != nil {
		return AuthFlow{}, err
	}
	verifier, err := randomToken()
	if err != nil {
		return AuthFlow{}, err
	}
	return AuthFlow{State: state, CodeVerifier: verifier, CodeChallenge: CodeChallengeS256(verifier)}, nil
}

// CodeChallengeS256 is BASE64URL(SHA256(verifier)) without padding (RFC
// 7636 §4.2).
func CodeChallengeS256(verifier string) string {
	sum := sha256.Sum256([]byte(verifier))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

func randomToken() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// OAuth2 is the authorization-code grant with PKCE (RFC 6749, RFC 7636) in
// a network's dialect. Networks that follow the RFCs use it as is; the
// others (Facebook, Instagram) reuse its pieces.
type OAuth2 struct {
	Caller            *Caller
	AuthorizeEndpoint string
	TokenEndpoint     string
	ClientID          string
	ClientSecret      string
	// ClientIDParam names the client id parameter (TikTok: client_key).
	ClientIDParam string
	// ScopeSeparator joins scopes (RFC: a space; TikTok and Meta: a comma).
	ScopeSeparator string
	DefaultScopes  []string
	// BasicAuth sends the client credentials in Authorization: Basic (X)
	// instead of the form.
	BasicAuth bool
	// Classify reads the token endpoint's errors when they are not RFC 6749
	// §5.2 JSON; nil uses ClassifyOAuthError.
	Classify Classifier
}

// AuthorizeURL builds the authorize URL: response_type=code, client id,
// redirect URI, scopes, state and the S256 challenge.
func (o *OAuth2) AuthorizeURL(r AuthRequest) (string, error) {
	network := o.Caller.Network()
	switch {
	case r.State == "":
		return "", Rejection(network, "authorize", "state_missing")
	case len(r.CodeChallenge) != 43:
		return "", Rejection(network, "authorize", "code_challenge_invalid")
	case ValidateURL(network, "redirect URI", r.RedirectURI) != nil:
		return "", Rejection(network, "authorize", "redirect_uri_invalid")
	}
	u, err := url.Parse(o.AuthorizeEndpoint)
	if err != nil {
		return "", Rejection(network, "authorize", ReasonInvalid)
	}
	scopes := r.Scopes
	if len(scopes) == 0 {
		scopes = o.DefaultScopes
	}
	q := u.Query()
	q.Set("response_type", "code")
	q.Set(o.clientIDParam(), o.ClientID)
	q.Set("redirect_uri", r.RedirectURI)
	q.Set("scope", strings.Join(scopes, o.separator()))
	q.Set("state", r.State)
	q.Set("code_challenge", r.CodeChallenge)
	q.Set("code_challenge_method", "S256")
	u.RawQuery = q.Encode()
	return u.String(), nil
}

// Exchange trades the code for a token at the token endpoint.
func (o *OAuth2) Exchange(ctx context.Context, e CodeExchange) (Token, error) {
	form := url.Values{
		"grant_type":    {"authorization_code"},
		"code":          {e.Code},
		"redirect_uri":  {e.RedirectURI},
		"code_verifier": {e.CodeVerifier},
	}
	return o.TokenCall(ctx, "exchange", form, Token{})
}

// Refresh renews the token with its refresh token (RFC 6749 §6). A token
// without one cannot be renewed: the user must connect again when it
// expires.
func (o *OAuth2) Refresh(ctx context.Context, tok Token) (Token, error) {
	if tok.RefreshToken == "" {
		return Token{}, &Error{Network: o.Caller.Network(), Op: "refresh", Kind: outcome.Unauthorized, Reason: "not_refreshable"}
	}
	form := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {tok.RefreshToken}}
	return o.TokenCall(ctx, "refresh", form, tok)
}

// TokenCall posts a grant to the token endpoint and reads the token. prev
// fills in what a refresh answer may leave out (the refresh token, scopes).
func (o *OAuth2) TokenCall(ctx context.Context, op string, form url.Values, prev Token) (Token, error) {
	form.Set(o.clientIDParam(), o.ClientID)
	req := Request{Op: op, Method: http.MethodPost, URL: o.TokenEndpoint, Form: form, Header: http.Header{}}
	if o.BasicAuth {
		req.Header.Set("Authorization", "Basic "+base64.StdEncoding.EncodeToString(
			[]byte(url.QueryEscape(o.ClientID)+":"+url.QueryEscape(o.ClientSecret))))
	} else if o.ClientSecret != "" {
		form.Set("client_secret", o.ClientSecret)
	}
	classify := o.Classify
	if classify == nil {
		classify = o.ClassifyOAuthError
	}
	a, err := o.Caller.Do(ctx, req, classify)
	if err != nil {
		return Token{}, err
	}
	tok, ok := ParseTokenAnswer(a.Body, o.Caller.Now(), prev)
	if !ok {
		return Token{}, o.Caller.Malformed(req, a.Status)
	}
	return tok, nil
}

func (o *OAuth2) clientIDParam() string {
	if o.ClientIDParam != "" {
		return o.ClientIDParam
	}
	return "client_id"
}

func (o *OAuth2) separator() string {
	if o.ScopeSeparator != "" {
		return o.ScopeSeparator
	}
	return " "
}

// ClassifyOAuthError reads an RFC 6749 §5.2 error ({"error": code}). An
// invalid grant (the code or refresh token is expired, used or revoked)
// needs a new connect; a refused client is our configuration; the server's
// own trouble is transient.
func (o *OAuth2) ClassifyOAuthError(op string, a *Answer) *Error {
	if a.Status/100 == 2 {
		return nil
	}
	var body struct {
		Error string `json:"error"`
	}
	_ = json.Unmarshal(a.Body, &body)
	return OAuthErrorKind(o.Caller.Network(), op, a.Status, body.Error)
}

// OAuthErrorKind maps an RFC 6749 error code; nil leaves the answer to the
// status.
func OAuthErrorKind(network, op string, status int, code string) *Error {
	e := func(k outcome.Kind, reason string) *Error {
		x := Fail(network, op, k, reason, status)
		x.Code = code
		return x
	}
	switch code {
	case "invalid_grant":
		return e(outcome.Unauthorized, ReasonGrantRevoked)
	case "invalid_client", "unauthorized_client":
		return e(outcome.Rejected, ReasonClientRejected)
	case "invalid_request", "unsupported_grant_type", "invalid_scope":
		return e(outcome.Rejected, ReasonInvalid)
	case "temporarily_unavailable", "server_error":
		return e(outcome.ProviderFault, ReasonServerError)
	}
	return nil
}

// tokenAnswer covers the token answers of the six networks: RFC 6749 plus
// LinkedIn's refresh_token_expires_in, TikTok's refresh_expires_in and
// open_id, Instagram's user_id (a number).
type tokenAnswer struct {
	AccessToken           string          `json:"access_token"`
	RefreshToken          string          `json:"refresh_token"`
	ExpiresIn             json.Number     `json:"expires_in"`
	RefreshTokenExpiresIn json.Number     `json:"refresh_token_expires_in"`
	RefreshExpiresIn      json.Number     `json:"refresh_expires_in"`
	Scope                 string          `json:"scope"`
	OpenID                string          `json:"open_id"`
	UserID                json.RawMessage `json:"user_id"`
}

// ParseTokenAnswer reads a token answer. It reports false when the body is
// not one (no access token).
func ParseTokenAnswer(body []byte, now time.Time, prev Token) (Token, bool) {
	var a tokenAnswer
	if err := json.Unmarshal(body, &a); err != nil || a.AccessToken == "" {
		return Token{}, false
	}
	tok := Token{AccessToken: a.AccessToken, RefreshToken: a.RefreshToken, Subject: a.OpenID,
		Scopes: prev.Scopes, RefreshExpiry: prev.RefreshExpiry}
	if tok.RefreshToken == "" {
		tok.RefreshToken = prev.RefreshToken
	}
	if secs, err := a.ExpiresIn.Int64(); err == nil {
		tok.Expiry = ExpiresIn(now, secs)
	}
	for _, n := range []json.Number{a.RefreshTokenExpiresIn, a.RefreshExpiresIn} {
		if secs, err := n.Int64(); err == nil && secs > 0 {
			tok.RefreshExpiry = ExpiresIn(now, secs)
		}
	}
	if a.Scope != "" {
		tok.Scopes = SplitScopes(a.Scope)
	}
	if len(a.UserID) > 0 {
		tok.Subject = strings.Trim(string(a.UserID), `"`)
	}
	if tok.Subject == "" {
		tok.Subject = prev.Subject
	}
	return tok, true
}

// SplitScopes splits a granted scope string. Networks answer with spaces
// or commas whatever they were sent (LinkedIn is asked with spaces and
// answers with commas), so both separate.
func SplitScopes(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == ',' })
}

// ExpiresIn is the expiry of a token valid for secs from now (zero when
// secs is not positive: no expiry said).
func ExpiresIn(now time.Time, secs int64) time.Time {
	if secs <= 0 {
		return time.Time{}
	}
	return now.Add(time.Duration(secs) * time.Second)
}
