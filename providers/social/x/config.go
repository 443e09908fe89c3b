package x

import (
	"errors"

	"github.com/platform/backend/providers/social"
)

// Config is the X adapter's configuration. Zero values take the defaults of
// WithDefaults.
type Config struct {
	APIBaseURL   string // default https://api.x.com
	AuthorizeURL string // default https://x.com/i/oauth2/authorize
	TokenURL     string // default https://api.x.com/2/oauth2/token
	WebURL       string // where posts are seen; default https://x.com
	ClientID     string
	// ClientSecret of a confidential client (sent as HTTP Basic); empty for
	// a public client, which PKCE alone protects.
	ClientSecret string
	// Scopes requested at connect (default: DefaultScopes).
	Scopes []string
	social.HTTPConfig
}

// DefaultScopes are what publishing needs: post, read back our own posts
// (Lookup), know who we are, upload media, and refresh without the user
// (offline.access).
func DefaultScopes() []string {
	return []string{"tweet.read", "tweet.write", "users.read", "media.write", "offline.access"}
}

// WithDefaults fills in zero values.
func (c Config) WithDefaults() Config {
	if c.APIBaseURL == "" {
		c.APIBaseURL = "https://api.x.com"
	}
	if c.AuthorizeURL == "" {
		c.AuthorizeURL = "https://x.com/i/oauth2/authorize"
	}
	if c.TokenURL == "" {
		c.TokenURL = "https://api.x.com/2/oauth2/token"
	}
	if c.WebURL == "" {
		c.WebURL = "https://x.com"
	}
	if len(c.Scopes) == 0 {
		c.Scopes = DefaultScopes()
	}
	c.HTTPConfig = c.HTTPConfig.WithDefaults()
	return c
}

// Validate names every problem at once.
func (c Config) Validate() error {
	errs := []error{
		social.ValidateURL(name, "API base URL", c.APIBaseURL),
		social.ValidateURL(name, "authorize URL", c.AuthorizeURL),
		social.ValidateURL(name, "token URL", c.TokenURL),
		social.ValidateURL(name, "web URL", c.WebURL),
		c.HTTPConfig.Validate(name),
	}
	if c.ClientID == "" {
		errs = append(errs, errors.New(name+": client id is required"))
	}
	return errors.Join(errs...)
}

// At points every endpoint at one base URL: a fake or sandbox serving all
// of X's hosts at one address.
func (c Config) At(base string) Config {
	c.APIBaseURL, c.AuthorizeURL, c.TokenURL, c.WebURL = base, base+"/i/oauth2/authorize", base+"/2/oauth2/token", base
	return c
}
