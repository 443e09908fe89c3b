// Package linkedin is network_2: LinkedIn through the versioned Posts API.
// A post is POST /rest/posts (author URN, commentary in LinkedIn's "little
// text" with its reserved characters escaped, visibility, distribution,
// lifecycleState PUBLISHED) with the LinkedIn-Version and
// X-Restli-Protocol-Version: 2.0.0 headers; the new post's URN comes back in
// the x-restli-id header. An image goes up first through the Images API
// (initializeUpload, then a PUT of the bytes). Members connect with OAuth
// 2.0 authorization code (60-day tokens; refresh tokens for apps LinkedIn
// enabled them for).
//
// LinkedIn has no threads: a reply is refused before any call
// (thread_unsupported). It has no idempotency key: Lookup lists the
// author's posts (q=author) and matches the commentary. Without the read
// scope, a retry of the same commentary is refused as a duplicate naming
// the existing post (Error.DuplicateOf), which settles it too.
package linkedin

import (
	"context"
	"net/http"
	"time"

	"github.com/platform/backend/providers/social"
)

const name = social.Network2

// Client is the LinkedIn adapter. Safe for concurrent use.
type Client struct {
	cfg    Config
	call   *social.Caller
	oauth2 *social.OAuth2
}

var _ social.Network = (*Client)(nil)

// New builds a client (defaults applied, then validated).
func New(cfg Config) (*Client, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	c := &Client{cfg: cfg, call: social.NewCaller(name, cfg.HTTPConfig)}
	c.oauth2 = &social.OAuth2{
		Caller: c.call, AuthorizeEndpoint: cfg.AuthorizeURL, TokenEndpoint: cfg.TokenURL,
		ClientID: cfg.ClientID, ClientSecret: cfg.ClientSecret, DefaultScopes: cfg.Scopes, Classify: classifyToken,
	}
	return c, nil
}

// Info describes LinkedIn.
func (c *Client) Info() social.Info {
	return social.Info{
		Name: name, Product: "LinkedIn", Scopes: c.cfg.Scopes,
		RequiredScopes: []string{"openid", "profile", "w_member_social"},
		Capabilities: social.Capabilities{
			MaxTextRunes:   3000,
			MaxMedia:       1,
			MediaKinds:     []social.MediaKind{social.MediaImage},
			Visibilities:   []social.Visibility{social.VisibilityPublic, social.VisibilityFollowers},
			ReconcileAfter: 10 * time.Second,
		},
	}
}

// AuthorizeURL is LinkedIn's consent page.
func (c *Client) AuthorizeURL(r social.AuthRequest) (string, error) { return c.oauth2.AuthorizeURL(r) }

// Exchange trades the callback's code for a member token.
func (c *Client) Exchange(ctx context.Context, e social.CodeExchange) (social.Token, error) {
	return c.oauth2.Exchange(ctx, e)
}

// Refresh renews the token with its refresh token; tokens of apps without
// refresh tokens cannot be renewed and need a new connect before expiry.
func (c *Client) Refresh(ctx context.Context, tok social.Token) (social.Token, error) {
	return c.oauth2.Refresh(ctx, tok)
}

// Accounts is the member (OpenID Connect userinfo); the author URN is
// urn:li:person:{sub}.
func (c *Client) Accounts(ctx context.Context, tok social.Token) ([]social.Account, error) {
	var out struct {
		Sub  string `json:"sub"`
		Name string `json:"name"`
	}
	req := social.Request{Op: "accounts", Method: http.MethodGet, URL: c.cfg.APIBaseURL + "/v2/userinfo", Bearer: tok.AccessToken}
	if _, err := c.call.DoJSON(ctx, req, c.classify, &out); err != nil {
		return nil, err
	}
	if out.Sub == "" {
		return nil, c.call.Malformed(req, http.StatusOK)
	}
	return []social.Account{{ID: "urn:li:person:" + out.Sub, Kind: social.AccountPerson, Name: out.Name}}, nil
}

// restli are the headers of every versioned API call.
func (c *Client) restli() http.Header {
	return http.Header{"Linkedin-Version": {c.cfg.Version}, "X-Restli-Protocol-Version": {"2.0.0"}}
}

func (c *Client) postURL(urn string) string { return c.cfg.WebURL + "/feed/update/" + urn + "/" }
