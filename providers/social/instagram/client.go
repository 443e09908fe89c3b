// Package instagram is network_4: Instagram professional accounts through
// the Instagram API with Instagram Login (graph.instagram.com). Publishing
// is two steps: a media container (POST /{ig-user-id}/media with image_url
// or video_url and the caption; for a carousel one container per item with
// is_carousel_item, then a CAROUSEL container naming the children), polled
// until its status_code is FINISHED, then POST /{ig-user-id}/media_publish
// with creation_id, which makes the post. Instagram pulls media from the
// URLs (Media.URL must be public or presigned). Users connect with OAuth
// 2.0 (the code gives a one-hour token, exchanged for a 60-day one, renewed
// by Refresh through ig_refresh_token).
//
// Instagram has no threads (a reply is refused before any call) and no
// idempotency key, but the container is a natural one: an unknown outcome
// of media_publish carries the container id (Error.Pending), and Lookup
// reads that container's status (PUBLISHED: find the post among the recent
// media; FINISHED or EXPIRED: not published; IN_PROGRESS: pending). Without
// a container id, Lookup matches the caption among the recent media.
package instagram

import (
	"context"
	"net/http"
	"net/url"
	"time"

	"github.com/platform/backend/providers/social"
	"github.com/platform/backend/providers/social/graphapi"
)

const name = social.Network4

// Client is the Instagram adapter. Safe for concurrent use.
type Client struct {
	cfg      Config
	call     *social.Caller
	oauth2   *social.OAuth2
	classify social.Classifier
	graphTok social.Classifier
}

var _ social.Network = (*Client)(nil)

// New builds a client (defaults applied, then validated).
func New(cfg Config) (*Client, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	c := &Client{cfg: cfg, call: social.NewCaller(name, cfg.HTTPConfig)}
	c.classify = graphapi.Classifier(name, c.call.Now)
	c.graphTok = graphapi.ClassifyToken(name, c.call.Now)
	c.oauth2 = &social.OAuth2{
		Caller: c.call, AuthorizeEndpoint: cfg.AuthorizeURL, TokenEndpoint: cfg.TokenURL,
		ClientID: cfg.ClientID, ClientSecret: cfg.ClientSecret, ScopeSeparator: ",", DefaultScopes: cfg.Scopes,
		Classify: classifyCodeExchange,
	}
	return c, nil
}

// Info describes Instagram.
func (c *Client) Info() social.Info {
	return social.Info{
		Name: name, Product: "Instagram", Scopes: c.cfg.Scopes,
		RequiredScopes: DefaultScopes(),
		Capabilities: social.Capabilities{
			MaxTextRunes:  2200,
			MediaRequired: true,
			MaxMedia:      10,
			MediaKinds:    []social.MediaKind{social.MediaImage, social.MediaVideo},
			MediaByURL:    true,
			Visibilities:  []social.Visibility{social.VisibilityPublic},
			// Recent media lists a new post at once; the container's status
			// says PUBLISHED even sooner.
			ReconcileAfter: 5 * time.Second,
		},
	}
}

func (c *Client) graph(path string, q url.Values) string {
	u := c.cfg.GraphURL + "/" + c.cfg.Version + path
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	return u
}

// Accounts is the professional account the token belongs to (GET /me with
// user_id, the id publishing uses).
func (c *Client) Accounts(ctx context.Context, tok social.Token) ([]social.Account, error) {
	var out struct {
		UserID   string `json:"user_id"`
		Username string `json:"username"`
		Name     string `json:"name"`
	}
	req := social.Request{Op: "accounts", Method: http.MethodGet, Bearer: tok.AccessToken,
		URL: c.graph("/me", url.Values{"fields": {"user_id,username,name"}})}
	if _, err := c.call.DoJSON(ctx, req, c.classify, &out); err != nil {
		return nil, err
	}
	if out.UserID == "" {
		return nil, c.call.Malformed(req, http.StatusOK)
	}
	return []social.Account{{ID: out.UserID, Kind: social.AccountPerson, Name: out.Name, Handle: out.Username}}, nil
}
