// Package x is network_1: X (formerly Twitter) through X API v2. Posts and
// thread replies are POST /2/tweets (text, reply.in_reply_to_tweet_id,
// media.media_ids); images go up first through POST /2/media/upload; users
// connect with OAuth 2.0 authorization code + PKCE (user-context tokens,
// two hours, refreshed with offline.access; X rotates refresh tokens).
//
// X has no idempotency key, so an unknown outcome is reconciled by Lookup:
// our own recent posts (GET /2/users/{id}/tweets since the attempt) matched
// on text and, for a thread reply, on the post it replies to.
package x

import (
	"context"
	"net/http"
	"time"

	"github.com/platform/backend/providers/social"
)

const name = social.Network1

// Client is the X adapter. Safe for concurrent use.
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
		ClientID: cfg.ClientID, ClientSecret: cfg.ClientSecret, DefaultScopes: cfg.Scopes,
		BasicAuth: cfg.ClientSecret != "", Classify: classifyToken,
	}
	return c, nil
}

// Info describes X.
func (c *Client) Info() social.Info {
	return social.Info{
		Name: name, Product: "X", Scopes: c.cfg.Scopes,
		RequiredScopes: []string{"tweet.read", "tweet.write", "users.read", "media.write"},
		Capabilities: social.Capabilities{
			Threads:      true,
			MaxTextRunes: 280,
			MaxMedia:     4,
			MediaKinds:   []social.MediaKind{social.MediaImage},
			Visibilities: []social.Visibility{social.VisibilityPublic},
			// Own timelines show a new post within seconds.
			ReconcileAfter: 5 * time.Second,
		},
	}
}

// Accounts is the connecting user (GET /2/users/me).
func (c *Client) Accounts(ctx context.Context, tok social.Token) ([]social.Account, error) {
	var out struct {
		Data struct {
			ID       string `json:"id"`
			Name     string `json:"name"`
			Username string `json:"username"`
		} `json:"data"`
	}
	req := social.Request{Op: "accounts", Method: http.MethodGet, URL: c.cfg.APIBaseURL + "/2/users/me", Bearer: tok.AccessToken}
	if _, err := c.call.DoJSON(ctx, req, classify, &out); err != nil {
		return nil, err
	}
	if out.Data.ID == "" {
		return nil, c.call.Malformed(req, http.StatusOK)
	}
	return []social.Account{{ID: out.Data.ID, Kind: social.AccountPerson, Name: out.Data.Name, Handle: out.Data.Username}}, nil
}

// postURL is where a post is seen: under the author's handle when known.
func (c *Client) postURL(handle, id string) string {
	if handle == "" {
		return c.cfg.WebURL + "/i/web/status/" + id
	}
	return c.cfg.WebURL + "/" + handle + "/status/" + id
}
