package linkedin

import (
	"errors"
	"regexp"

	"github.com/platform/backend/providers/social"
)

// Config is the LinkedIn adapter's configuration. Zero values take the
// defaults of WithDefaults.
type Config struct {
	APIBaseURL   string // default https://api.linkedin.com
	AuthorizeURL string // default https://www.linkedin.com/oauth/v2/authorization
	TokenURL     string // default https://www.linkedin.com/oauth/v2/accessToken
	WebURL       string // where posts are seen; default https://www.linkedin.com
	// Version is the LinkedIn-Version header (YYYYMM) of the versioned
	// /rest API; LinkedIn retires versions after a year.
	Version      string
	ClientID     string
	ClientSecret string
	Scopes       []string // default DefaultScopes
	social.HTTPConfig
}

// DefaultScopes: sign-in (openid, profile: who the member is),
// w_member_social to post, r_member_social to read our posts back for
// Lookup. r_member_social needs LinkedIn's approval of the app; without it
// drop it here and reconcile by the duplicate rule (see Lookup).
func DefaultScopes() []string {
	return []string{"openid", "profile", "w_member_social", "r_member_social"}
}

// WithDefaults fills in zero values.
func (c Config) WithDefaults() Config {
	if c.APIBaseURL == "" {
		c.APIBaseURL = "https://api.linkedin.com"
	}
	if c.AuthorizeURL == "" {
		c.AuthorizeURL = "https://www.linkedin.com/oauth/v2/authorization"
	}
	if c.TokenURL == "" {
		c.TokenURL = "https://www.linkedin.com/oauth/v2/accessToken"
	}
	if c.WebURL == "" {
		c.WebURL = "https://www.linkedin.com"
	}
	if c.Version == "" {
		c.Version = "202505"
	}
	if len(c.Scopes) == 0 {
		c.Scopes = DefaultScopes()
	}
	c.HTTPConfig = c.HTTPConfig.WithDefaults()
	return c
}

var versionPattern = regexp.MustCompile(`^20[0-9]{2}(0[1-9]|1[0-2])$`)

// Validate names every problem at once.
func (c Config) Validate() error {
	errs := []error{
		social.ValidateURL(name, "API base URL", c.APIBaseURL),
		social.ValidateURL(name, "authorize URL", c.AuthorizeURL),
		social.ValidateURL(name, "token URL", c.TokenURL),
		social.ValidateURL(name, "web URL", c.WebURL),
		c.HTTPConfig.Validate(name),
	}
	if c.ClientID == "" || c.ClientSecret == "" {
		errs = append(errs, errors.New(name+": client id and secret are required"))
	}
	if !versionPattern.MatchString(c.Version) {
		errs = append(errs, errors.New(name+": version must be YYYYMM"))
	}
	return errors.Join(errs...)
}

// At points every endpoint at one base URL (a fake or sandbox).
func (c Config) At(base string) Config {
	c.APIBaseURL, c.WebURL = base, base
	c.AuthorizeURL, c.TokenURL = base+"/oauth/v2/authorization", base+"/oauth/v2/accessToken"
	return c
}
