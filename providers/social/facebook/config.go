package facebook

import (
	"errors"
	"regexp"

	"github.com/platform/backend/providers/social"
)

// Config is the Facebook adapter's configuration. Zero values take the
// defaults of WithDefaults.
type Config struct {
	GraphURL  string // default https://graph.facebook.com
	DialogURL string // the login dialog's host; default https://www.facebook.com
	WebURL    string // where posts are seen; default https://www.facebook.com
	// Version is the Graph API version of every path (default v23.0).
	Version string
	// ClientID and ClientSecret are the Meta app's id and secret.
	ClientID     string
	ClientSecret string
	Scopes       []string // default DefaultScopes
	social.HTTPConfig
}

// DefaultScopes: list the user's pages and their tokens, post as a page,
// read the page's feed back for Lookup.
func DefaultScopes() []string {
	return []string{"pages_show_list", "pages_manage_posts", "pages_read_engagement"}
}

// WithDefaults fills in zero values.
func (c Config) WithDefaults() Config {
	if c.GraphURL == "" {
		c.GraphURL = "https://graph.facebook.com"
	}
	if c.DialogURL == "" {
		c.DialogURL = "https://www.facebook.com"
	}
	if c.WebURL == "" {
		c.WebURL = "https://www.facebook.com"
	}
	if c.Version == "" {
		c.Version = "v23.0"
	}
	if len(c.Scopes) == 0 {
		c.Scopes = DefaultScopes()
	}
	c.HTTPConfig = c.HTTPConfig.WithDefaults()
	return c
}

var versionPattern = regexp.MustCompile(`^v[0-9]+\.[0-9]+$`)

// Validate names every problem at once.
func (c Config) Validate() error {
	errs := []error{
		social.ValidateURL(name, "Graph URL", c.GraphURL),
		social.ValidateURL(name, "dialog URL", c.DialogURL),
		social.ValidateURL(name, "web URL", c.WebURL),
		c.HTTPConfig.Validate(name),
	}
	if c.ClientID == "" || c.ClientSecret == "" {
		errs = append(errs, errors.New(name+": app id and secret are required"))
	}
	if !versionPattern.MatchString(c.Version) {
		errs = append(errs, errors.New(name+": Graph API version must look like v23.0"))
	}
	return errors.Join(errs...)
}

// At points every endpoint at one base URL (a fake or sandbox).
func (c Config) At(base string) Config {
	c.GraphURL, c.DialogURL, c.WebURL = base, base, base
	return c
}
