package instagram

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"

	"github.com/platform/backend/providers/outcome"
	"github.com/platform/backend/providers/social"
)

// AuthorizeURL is Instagram's consent page with the scopes
// comma-separated, state and PKCE S256.
func (c *Client) AuthorizeURL(r social.AuthRequest) (string, error) { return c.oauth2.AuthorizeURL(r) }

// Exchange trades the code for a one-hour token (POST
// api.instagram.com/oauth/access_token), then that for a 60-day token
// (GET graph.instagram.com/access_token, ig_exchange_token). The first
// answer names the account (user_id) and the granted permissions.
func (c *Client) Exchange(ctx context.Context, e social.CodeExchange) (social.Token, error) {
	form := url.Values{
		"client_id": {c.cfg.ClientID}, "client_secret": {c.cfg.ClientSecret}, "grant_type": {"authorization_code"},
		"redirect_uri": {e.RedirectURI}, "code": {e.Code}, "code_verifier": {e.CodeVerifier},
	}
	req := social.Request{Op: "exchange", Method: http.MethodPost, URL: c.cfg.TokenURL, Form: form}
	a, err := c.call.Do(ctx, req, classifyCodeExchange)
	if err != nil {
		return social.Token{}, err
	}
	short, ok := parseShortLived(a.Body)
	if !ok {
		return social.Token{}, c.call.Malformed(req, a.Status)
	}
	return c.renew(ctx, "exchange", "/access_token", url.Values{
		"grant_type": {"ig_exchange_token"}, "client_secret": {c.cfg.ClientSecret}, "access_token": {short.AccessToken},
	}, short)
}

// Refresh renews a valid long-lived token for another 60 days
// (ig_refresh_token). An expired or revoked token (190) needs a new
// connect.
func (c *Client) Refresh(ctx context.Context, tok social.Token) (social.Token, error) {
	return c.renew(ctx, "refresh", "/refresh_access_token", url.Values{
		"grant_type": {"ig_refresh_token"}, "access_token": {tok.AccessToken},
	}, tok)
}

// renew calls one of graph.instagram.com's token renewals; the answer
// keeps the account and permissions of prev.
func (c *Client) renew(ctx context.Context, op, path string, q url.Values, prev social.Token) (social.Token, error) {
	req := social.Request{Op: op, Method: http.MethodGet, URL: c.cfg.GraphURL + path + "?" + q.Encode()}
	a, err := c.call.Do(ctx, req, c.graphTok)
	if err != nil {
		return social.Token{}, err
	}
	prev.RefreshToken = ""
	tok, ok := social.ParseTokenAnswer(a.Body, c.call.Now(), prev)
	if !ok {
		return social.Token{}, c.call.Malformed(req, a.Status)
	}
	return tok, nil
}

// parseShortLived reads the code exchange's answer: {"data": [{...}]} in
// the current API, a bare object in older answers; permissions are a comma
// list or an array.
func parseShortLived(body []byte) (social.Token, bool) {
	type answer struct {
		AccessToken string          `json:"access_token"`
		UserID      json.RawMessage `json:"user_id"`
		Permissions json.RawMessage `json:"permissions"`
	}
	var wrapped struct {
		Data []answer `json:"data"`
	}
	var a answer
	if err := json.Unmarshal(body, &wrapped); err == nil && len(wrapped.Data) > 0 {
		a = wrapped.Data[0]
	} else if err := json.Unmarshal(body, &a); err != nil {
		return social.Token{}, false
	}
	if a.AccessToken == "" {
		return social.Token{}, false
	}
	tok := social.Token{AccessToken: a.AccessToken, Subject: strings.Trim(string(a.UserID), `"`)}
	var list []string
	var joined string
	switch {
	case json.Unmarshal(a.Permissions, &list) == nil:
		tok.Scopes = list
	case json.Unmarshal(a.Permissions, &joined) == nil:
		tok.Scopes = social.SplitScopes(joined)
	}
	return tok, true
}

// classifyCodeExchange reads api.instagram.com's own error shape
// ({error_type, code, error_message}): an OAuthException is a bad, used or
// expired code (a new connect), unless it names the app.
func classifyCodeExchange(op string, a *social.Answer) *social.Error {
	if a.Status/100 == 2 || a.Status/100 == 5 {
		return nil
	}
	var body struct {
		Type    string `json:"error_type"`
		Message string `json:"error_message"`
	}
	if json.Unmarshal(a.Body, &body) != nil || body.Type != "OAuthException" {
		return nil
	}
	msg := strings.ToLower(body.Message)
	if strings.Contains(msg, "app") || strings.Contains(msg, "client") {
		return social.Fail(name, op, outcome.Rejected, social.ReasonClientRejected, a.Status)
	}
	return social.Fail(name, op, outcome.Unauthorized, social.ReasonGrantRevoked, a.Status)
}
