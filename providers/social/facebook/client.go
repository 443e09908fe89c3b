// Package facebook is network_3: Facebook Pages through the Graph API
// (version configurable). The user connects with Facebook Login (OAuth 2.0
// code with PKCE); the short-lived user token is exchanged for a long-lived
// one (60 days, renewed by Refresh through fb_exchange_token), its granted
// permissions read from /me/permissions, and the pages the user manages
// listed with their page access tokens (/me/accounts): publishing picks a
// page (Info.NeedsAccountChoice) and posts with its token, which does not
// expire. A post is POST /{page-id}/feed (message, link); one image is POST
// /{page-id}/photos (url, message), whose post_id is the post.
//
// Facebook has no threads on a page's feed (a reply is refused before any
// call) and no idempotency key: Lookup reads the page's feed since the
// attempt and matches the message.
package facebook

import (
	"context"
	"net/http"
	"net/url"
	"time"

	"github.com/platform/backend/providers/social"
	"github.com/platform/backend/providers/social/graphapi"
)

const name = social.Network3

// Client is the Facebook adapter. Safe for concurrent use.
type Client struct {
	cfg        Config
	call       *social.Caller
	oauth2     *social.OAuth2
	classify   social.Classifier
	classifyTo social.Classifier
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
	c.classifyTo = graphapi.ClassifyToken(name, c.call.Now)
	c.oauth2 = &social.OAuth2{
		Caller: c.call, AuthorizeEndpoint: cfg.DialogURL + "/" + cfg.Version + "/dialog/oauth",
		ClientID: cfg.ClientID, ClientSecret: cfg.ClientSecret, ScopeSeparator: ",", DefaultScopes: cfg.Scopes,
	}
	return c, nil
}

// Info describes Facebook Pages.
func (c *Client) Info() social.Info {
	return social.Info{
		Name: name, Product: "Facebook Pages", Scopes: c.cfg.Scopes,
		RequiredScopes:     DefaultScopes(),
		NeedsAccountChoice: true,
		Capabilities: social.Capabilities{
			MaxTextRunes:   63206,
			MaxMedia:       1,
			MediaKinds:     []social.MediaKind{social.MediaImage},
			MediaByURL:     true,
			Visibilities:   []social.Visibility{social.VisibilityPublic},
			ReconcileAfter: 10 * time.Second,
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

// Accounts lists the pages the user manages, each with its page access
// token (GET /me/accounts).
func (c *Client) Accounts(ctx context.Context, tok social.Token) ([]social.Account, error) {
	var out struct {
		Data []struct {
			ID          string `json:"id"`
			Name        string `json:"name"`
			AccessToken string `json:"access_token"`
		} `json:"data"`
	}
	req := social.Request{Op: "accounts", Method: http.MethodGet, Bearer: tok.AccessToken,
		URL: c.graph("/me/accounts", url.Values{"fields": {"id,name,access_token,tasks"}, "limit": {"100"}})}
	if _, err := c.call.DoJSON(ctx, req, c.classify, &out); err != nil {
		return nil, err
	}
	accounts := make([]social.Account, 0, len(out.Data))
	for _, p := range out.Data {
		if p.ID == "" || p.AccessToken == "" {
			return nil, c.call.Malformed(req, http.StatusOK)
		}
		accounts = append(accounts, social.Account{ID: p.ID, Kind: social.AccountPage, Name: p.Name, AccessToken: p.AccessToken})
	}
	return accounts, nil
}
