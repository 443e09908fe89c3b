// Package mastodon is network_6: Mastodon through its REST API on one
// instance. A status is POST /api/v1/statuses (status, in_reply_to_id for
// threads, media_ids, visibility) with an Idempotency-Key header: Mastodon
// keeps the key for an hour and answers a repeat with the first status, so
// a resend of the same attempt can never post twice. Media goes up first
// through POST /api/v2/media (202 while processing, then GET
// /api/v1/media/{id} until it has a URL). Users connect with OAuth 2.0
// (PKCE S256 since Mastodon 4.3); tokens do not expire, so Refresh checks
// the token is still valid (verify_credentials) unless the instance issued
// a refresh token.
//
// Lookup reads the account's statuses and matches the text (Mastodon
// answers HTML) and the thread parent. After an unknown outcome, a retry
// that reuses the unconfirmed attempt's Idempotency-Key within the hour is
// also safe: Mastodon answers the status it already made.
package mastodon

import (
	"context"
	"net/http"
	"time"

	"github.com/platform/backend/providers/outcome"
	"github.com/platform/backend/providers/social"
)

const name = social.Network6

// Client is the Mastodon adapter. Safe for concurrent use.
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
		Caller: c.call, AuthorizeEndpoint: cfg.InstanceURL + "/oauth/authorize", TokenEndpoint: cfg.InstanceURL + "/oauth/token",
		ClientID: cfg.ClientID, ClientSecret: cfg.ClientSecret, DefaultScopes: cfg.Scopes,
	}
	return c, nil
}

// Info describes Mastodon.
func (c *Client) Info() social.Info {
	return social.Info{
		Name: name, Product: "Mastodon", Scopes: c.cfg.Scopes,
		RequiredScopes: DefaultScopes(),
		Capabilities: social.Capabilities{
			Threads:        true,
			MaxTextRunes:   c.cfg.MaxCharacters,
			MaxMedia:       4,
			MediaKinds:     []social.MediaKind{social.MediaImage, social.MediaVideo},
			Visibilities:   []social.Visibility{social.VisibilityPublic, social.VisibilityUnlisted, social.VisibilityFollowers},
			IdempotencyKey: true,
			// The account's statuses list a new status at once.
			ReconcileAfter: 2 * time.Second,
		},
	}
}

// AuthorizeURL is the instance's consent page.
func (c *Client) AuthorizeURL(r social.AuthRequest) (string, error) { return c.oauth2.AuthorizeURL(r) }

// Exchange trades the code for a token that does not expire.
func (c *Client) Exchange(ctx context.Context, e social.CodeExchange) (social.Token, error) {
	return c.oauth2.Exchange(ctx, e)
}

// Refresh renews a token that has a refresh token; a token without one does
// not expire, so Refresh checks it still works: a revoked token (the user
// removed the app) needs a new connect, anything else is transient.
func (c *Client) Refresh(ctx context.Context, tok social.Token) (social.Token, error) {
	if tok.RefreshToken != "" {
		return c.oauth2.Refresh(ctx, tok)
	}
	if _, err := c.Accounts(ctx, tok); err != nil {
		if e, ok := social.AsError(err); ok {
			e.Op = "refresh"
			if e.Kind == outcome.Unauthorized {
				e.Reason = social.ReasonGrantRevoked
			}
		}
		return social.Token{}, err
	}
	return tok, nil
}

// Accounts is the token's account (verify_credentials).
func (c *Client) Accounts(ctx context.Context, tok social.Token) ([]social.Account, error) {
	var out struct {
		ID          string `json:"id"`
		Username    string `json:"username"`
		Acct        string `json:"acct"`
		DisplayName string `json:"display_name"`
	}
	req := social.Request{Op: "accounts", Method: http.MethodGet, URL: c.cfg.InstanceURL + "/api/v1/accounts/verify_credentials", Bearer: tok.AccessToken}
	if _, err := c.call.DoJSON(ctx, req, classify, &out); err != nil {
		return nil, err
	}
	if out.ID == "" {
		return nil, c.call.Malformed(req, http.StatusOK)
	}
	return []social.Account{{ID: out.ID, Kind: social.AccountPerson, Name: out.DisplayName, Handle: out.Username}}, nil
}
