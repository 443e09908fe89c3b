package x

import (
	"context"

	"github.com/platform/backend/providers/social"
)

// AuthorizeURL is X's consent page with PKCE (S256) and state.
func (c *Client) AuthorizeURL(r social.AuthRequest) (string, error) { return c.oauth2.AuthorizeURL(r) }

// Exchange trades the callback's code for a user token.
func (c *Client) Exchange(ctx context.Context, e social.CodeExchange) (social.Token, error) {
	return c.oauth2.Exchange(ctx, e)
}

// Refresh renews the token. X rotates refresh tokens: the answer's refresh
// token replaces the old one, which is dead from then on, so the caller must
// store the new token before anything else.
func (c *Client) Refresh(ctx context.Context, tok social.Token) (social.Token, error) {
	return c.oauth2.Refresh(ctx, tok)
}
