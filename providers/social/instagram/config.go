package instagram

import (
	"errors"
	"regexp"
	"time"

	"github.com/platform/backend/providers/social"
)

// Config is the Instagram adapter's configuration. Zero values take the
// defaults of WithDefaults.
type Config struct {
	GraphURL     string // default https://graph.instagram.com
	AuthorizeURL string // default https://www.instagram.com/oauth/authorize
	TokenURL     string // the code exchange; default https://api.instagram.com/oauth/access_token
	// Version is the Graph API version of the publishing paths (default
	// v23.0).
	Version      string
	ClientID     string // the Instagram app id
	ClientSecret string
	Scopes       []string // default DefaultScopes
	// PollInterval is the pause between container status checks (default
	// 2s); PollTimeout bounds the wait for one container (default 60s).
	PollInterval time.Duration
	PollTimeout  time.Duration
	social.HTTPConfig
}

// DefaultScopes: who the account is, and publishing.
func DefaultScopes() []string {
	return []string{"instagram_business_basic", "instagram_business_content_publish"}
}

// WithDefaults fills in zero values.
func (c Config) WithDefaults() Config {
	if c.GraphURL == "" {
		c.GraphURL = "https://graph.instagram.com"
	}
	if c.AuthorizeURL == "" {
		c.AuthorizeURL = "https://www.instagram.com/oauth/authorize"
	}
	if c.TokenURL == "" {
		c.TokenURL = "https://api.instagram.com/oauth/access_token"
	}
	if c.Version == "" {
		c.Version = "v23.0"
	}
	if len(c.Scopes) == 0 {
		c.Scopes = DefaultScopes()
	}
	if c.PollInterval == 0 {
		c.PollInterval = 2 * time.Second
	}
	if c.PollTimeout == 0 {
		c.PollTimeout = time.Minute
	}
	c.HTTPConfig = c.HTTPConfig.WithDefaults()
	return c
}

var versionPattern = regexp.MustCompile(`^v[0-9]+\.[0-9]+$`)

// Validate names every problem at once.
func (c Config) Validate() error {
	errs := []error{
		social.ValidateURL(name, "Graph URL", c.GraphURL),
		social.ValidateURL(name, "authorize URL", c.AuthorizeURL),
		social.ValidateURL(name, "token URL", c.TokenURL),
		c.HTTPConfig.Validate(name),
	}
	if c.ClientID == "" || c.ClientSecret == "" {
		errs = append(errs, errors.New(name+": app id and secret are required"))
	}
	if !versionPattern.MatchString(c.Version) {
		errs = append(errs, errors.New(name+": Graph API version must look like v23.0"))
	}
	if c.PollInterval <= 0 || c.PollTimeout < c.PollInterval {
		errs = append(errs, errors.New(name+": poll interval must be positive and the poll timeout at least one interval"))
	}
	return errors.Join(errs...)
}

// At points every endpoint at one base URL (a fake or sandbox).
func (c Config) At(base string) Config {
	c.GraphURL, c.AuthorizeURL, c.TokenURL = base, base+"/oauth/authorize", base+"/oauth/access_token"
	return c
}
