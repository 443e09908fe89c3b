// Package tiktok is network_5: TikTok through the Content Posting API
// (direct post). TikTok pulls the media from its URL (PULL_FROM_URL; the
// URL's domain must be verified with TikTok): a video is POST
// /v2/post/publish/video/init/, photos POST /v2/post/publish/content/init/
// (media_type PHOTO, post_mode DIRECT_POST). Either answers a publish_id
// at once and publishes asynchronously; POST /v2/post/publish/status/fetch/
// is polled until PUBLISH_COMPLETE (with the public post id) or FAILED.
// Creators connect with OAuth 2.0 (client_key, comma-separated scopes,
// PKCE S256; 24-hour access tokens, one-year refresh tokens). Errors are
// {"error": {code, message, log_id}}.
//
// TikTok has no threads (a reply is refused before any call) and no
// idempotency key. The init is the post: once TikTok accepted it, the post
// will appear. A publish still processing when the poll budget ends is an
// unknown outcome carrying the publish_id (Error.Pending); Lookup reads its
// status. An init whose answer was lost has no publish_id: Lookup lists
// the creator's videos (POST /v2/video/list/) and matches the caption;
// photo posts and videos still in moderation are not listed there, so
// such a lookup can only say not found after ReconcileAfter.
package tiktok

import (
	"context"
	"net/http"
	"net/url"
	"time"

	"github.com/platform/backend/providers/social"
)

const name = social.Network5

// Client is the TikTok adapter. Safe for concurrent use.
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
		Caller: c.call, AuthorizeEndpoint: cfg.AuthorizeURL, TokenEndpoint: cfg.APIBaseURL + "/v2/oauth/token/",
		ClientID: cfg.ClientID, ClientSecret: cfg.ClientSecret, ClientIDParam: "client_key", ScopeSeparator: ",",
		DefaultScopes: cfg.Scopes, Classify: classifyToken,
	}
	return c, nil
}

// Info describes TikTok.
func (c *Client) Info() social.Info {
	return social.Info{
		Name: name, Product: "TikTok", Scopes: c.cfg.Scopes,
		RequiredScopes: []string{"user.info.basic", "video.publish", "video.list"},
		Capabilities: social.Capabilities{
			MaxTextRunes:  2200,
			MediaRequired: true,
			MaxMedia:      35,
			MediaKinds:    []social.MediaKind{social.MediaImage, social.MediaVideo},
			MediaByURL:    true,
			Visibilities:  []social.Visibility{social.VisibilityPublic, social.VisibilityFollowers, social.VisibilityPrivate},
			// Moderation usually ends within a minute; the video list shows
			// a post only after it.
			ReconcileAfter: 2 * time.Minute,
		},
	}
}

// AuthorizeURL is TikTok's consent page (client_key, comma-separated
// scopes, state, PKCE S256).
func (c *Client) AuthorizeURL(r social.AuthRequest) (string, error) { return c.oauth2.AuthorizeURL(r) }

// Exchange trades the code for a creator token (its open_id is the
// account).
func (c *Client) Exchange(ctx context.Context, e social.CodeExchange) (social.Token, error) {
	return c.oauth2.Exchange(ctx, e)
}

// Refresh renews the 24-hour access token with the refresh token.
func (c *Client) Refresh(ctx context.Context, tok social.Token) (social.Token, error) {
	return c.oauth2.Refresh(ctx, tok)
}

// Accounts is the creator (GET /v2/user/info/).
func (c *Client) Accounts(ctx context.Context, tok social.Token) ([]social.Account, error) {
	var out struct {
		Data struct {
			User struct {
				OpenID      string `json:"open_id"`
				DisplayName string `json:"display_name"`
				Username    string `json:"username"`
			} `json:"user"`
		} `json:"data"`
	}
	req := social.Request{Op: "accounts", Method: http.MethodGet, Bearer: tok.AccessToken,
		URL: c.cfg.APIBaseURL + "/v2/user/info/?" + url.Values{"fields": {"open_id,display_name,username"}}.Encode()}
	if _, err := c.call.DoJSON(ctx, req, classify, &out); err != nil {
		return nil, err
	}
	u := out.Data.User
	if u.OpenID == "" {
		return nil, c.call.Malformed(req, http.StatusOK)
	}
	return []social.Account{{ID: u.OpenID, Kind: social.AccountPerson, Name: u.DisplayName, Handle: u.Username}}, nil
}

// postURL is where a post is seen (photo posts live under /photo/).
func (c *Client) postURL(handle, id string, photo bool) string {
	kind := "video"
	if photo {
		kind = "photo"
	}
	return c.cfg.WebURL + "/@" + handle + "/" + kind + "/" + id
}
