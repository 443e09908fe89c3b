package facebook

import (
	"context"
	"net/http"
	"net/url"

	"github.com/platform/backend/providers/social"
)

// AuthorizeURL is Facebook Login's dialog (/{version}/dialog/oauth) with
// the permissions comma-separated, state and PKCE S256.
func (c *Client) AuthorizeURL(r social.AuthRequest) (string, error) { return c.oauth2.AuthorizeURL(r) }

// Exchange trades the code for a user token (GET /oauth/access_token),
// makes it long-lived (fb_exchange_token) and reads the permissions the
// user granted, which the token answers do not carry.
func (c *Client) Exchange(ctx context.Context, e social.CodeExchange) (social.Token, error) {
	short, err := c.tokenCall(ctx, "exchange", url.Values{
		"client_id": {c.cfg.ClientID}, "client_secret": {c.cfg.ClientSecret},
		"redirect_uri": {e.RedirectURI}, "code": {e.Code}, "code_verifier": {e.CodeVerifier},
	})
	if err != nil {
		return social.Token{}, err
	}
	return c.longLived(ctx, "exchange", short)
}

// Refresh trades a valid user token for a new long-lived one
// (grant_type=fb_exchange_token). Facebook has no refresh tokens: an
// expired or revoked user token (190) means the user must connect again.
// Page tokens made from a long-lived user token do not expire, so
// publishing does not depend on this.
func (c *Client) Refresh(ctx context.Context, tok social.Token) (social.Token, error) {
	return c.longLived(ctx, "refresh", tok)
}

// longLived trades a valid user token for a 60-day one and reads its
// permissions.
func (c *Client) longLived(ctx context.Context, op string, tok social.Token) (social.Token, error) {
	long, err := c.tokenCall(ctx, op, url.Values{
		"grant_type": {"fb_exchange_token"}, "client_id": {c.cfg.ClientID}, "client_secret": {c.cfg.ClientSecret},
		"fb_exchange_token": {tok.AccessToken},
	})
	if err != nil {
		return social.Token{}, err
	}
	long.Scopes, err = c.permissions(ctx, op, long.AccessToken)
	if err != nil {
		return social.Token{}, err
	}
	return long, nil
}

func (c *Client) tokenCall(ctx context.Context, op string, q url.Values) (social.Token, error) {
	req := social.Request{Op: op, Method: http.MethodGet, URL: c.graph("/oauth/access_token", q)}
	a, err := c.call.Do(ctx, req, c.classifyTo)
	if err != nil {
		return social.Token{}, err
	}
	tok, ok := social.ParseTokenAnswer(a.Body, c.call.Now(), social.Token{})
	if !ok {
		return social.Token{}, c.call.Malformed(req, a.Status)
	}
	return tok, nil
}

// permissions lists what the user granted (GET /me/permissions).
func (c *Client) permissions(ctx context.Context, op, token string) ([]string, error) {
	var out struct {
		Data []struct {
			Permission string `json:"permission"`
			Status     string `json:"status"`
		} `json:"data"`
	}
	req := social.Request{Op: op, Method: http.MethodGet, URL: c.graph("/me/permissions", nil), Bearer: token}
	if _, err := c.call.DoJSON(ctx, req, c.classifyTo, &out); err != nil {
		return nil, err
	}
	var granted []string
	for _, p := range out.Data {
		if p.Status == "granted" {
			granted = append(granted, p.Permission)
		}
	}
	return granted, nil
}
