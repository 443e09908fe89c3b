package tiktok

import (
	"errors"
	"time"

	"github.com/platform/backend/providers/social"
)

// Config is the TikTok adapter's configuration. Zero values take the
// defaults of WithDefaults.
type Config struct {
	APIBaseURL   string // default https://open.tiktokapis.com
	AuthorizeURL string // default https://www.tiktok.com/v2/auth/authorize/
	WebURL       string // where posts are seen; default https://www.tiktok.com
	// ClientID is TikTok's client key (sent as client_key).
	ClientID     string
	ClientSecret string
	Scopes       []string // default DefaultScopes
	// PollInterval is the pause between publish status checks (default
	// 3s); PollTimeout bounds the wait for TikTok to pull and publish the
	// media (default 2m) before the outcome is left to Lookup.
	PollInterval time.Duration
	PollTimeout  time.Duration
	social.HTTPConfig
}

// DefaultScopes: who the creator is (and the username the post URLs
// carry), direct posting, and listing our videos for Lookup.
func DefaultScopes() []string {
	return []string{"user.info.basic", "user.info.profile", "video.publish", "video.list"}
}

// WithDefaults fills in zero values.
func (c Config) WithDefaults() Config {
	if c.APIBaseURL == "" {
		c.APIBaseURL = "https://open.tiktokapis.com"
	}
	if c.AuthorizeURL == "" {
		c.AuthorizeURL = "https://www.tiktok.com/v2/auth/authorize/"
	}
	if c.WebURL == "" {
		c.WebURL = "https://www.tiktok.com"
	}
	if len(c.Scopes) == 0 {
		c.Scopes = DefaultScopes()
	}
	if c.PollInterval == 0 {
		c.PollInterval = 3 * time.Second
	}
	if c.PollTimeout == 0 {
		c.PollTimeout = 2 * time.Minute
	}
	c.HTTPConfig = c.HTTPConfig.WithDefaults()
	return c
}

// Validate names every problem at once.
func (c Config) Validate() error {
	errs := []error{
		social.ValidateURL(name, "API base URL", c.APIBaseURL),
		social.ValidateURL(name, "authorize URL", c.AuthorizeURL),
		social.ValidateURL(name, "web URL", c.WebURL),
		c.HTTPConfig.Validate(name),
	}
	if c.ClientID == "" || c.ClientSecret == "" {
		errs = append(errs, errors.New(name+": client key and secret are required"))
	}
	if c.PollInterval <= 0 || c.PollTimeout < c.PollInterval {
		errs = append(errs, errors.New(name+": poll interval must be positive and the poll timeout at least one interval"))
	}
	return errors.Join(errs...)
}

// At points every endpoint at one base URL (a fake or sandbox).
func (c Config) At(base string) Config {
	c.APIBaseURL, c.WebURL, c.AuthorizeURL = base, base, base+"/v2/auth/authorize/"
	return c
}
