package mastodon

import (
	"errors"
	"time"

	"github.com/platform/backend/providers/social"
)

// Config is the Mastodon adapter's configuration: one instance and the app
// registered on it. Zero values take the defaults of WithDefaults.
type Config struct {
	// InstanceURL is the server the accounts live on (default
	// https://mastodon.social); every endpoint is under it.
	InstanceURL string
	// ClientID and ClientSecret are the app registered on that instance
	// (POST /api/v1/apps, once, by the operator).
	ClientID     string
	ClientSecret string
	Scopes       []string // default DefaultScopes
	// MaxCharacters is the instance's status length (default 500; see
	// /api/v2/instance configuration.statuses.max_characters).
	MaxCharacters int
	// PollInterval and PollTimeout bound the wait for media processing
	// (defaults 1s and 60s).
	PollInterval time.Duration
	PollTimeout  time.Duration
	social.HTTPConfig
}

// DefaultScopes: the account (verify_credentials), reading our statuses
// back for Lookup, posting statuses and media.
func DefaultScopes() []string {
	return []string{"read:accounts", "read:statuses", "write:statuses", "write:media"}
}

// WithDefaults fills in zero values.
func (c Config) WithDefaults() Config {
	if c.InstanceURL == "" {
		c.InstanceURL = "https://mastodon.social"
	}
	if len(c.Scopes) == 0 {
		c.Scopes = DefaultScopes()
	}
	if c.MaxCharacters == 0 {
		c.MaxCharacters = 500
	}
	if c.PollInterval == 0 {
		c.PollInterval = time.Second
	}
	if c.PollTimeout == 0 {
		c.PollTimeout = time.Minute
	}
	c.HTTPConfig = c.HTTPConfig.WithDefaults()
	return c
}

// Validate names every problem at once.
func (c Config) Validate() error {
	errs := []error{social.ValidateURL(name, "instance URL", c.InstanceURL), c.HTTPConfig.Validate(name)}
	if c.ClientID == "" || c.ClientSecret == "" {
		errs = append(errs, errors.New(name+": client id and secret are required"))
	}
	if c.MaxCharacters < 1 {
		errs = append(errs, errors.New(name+": max characters must be positive"))
	}
	if c.PollInterval <= 0 || c.PollTimeout < c.PollInterval {
		errs = append(errs, errors.New(name+": poll interval must be positive and the poll timeout at least one interval"))
	}
	return errors.Join(errs...)
}

// At points the adapter at another instance (a fake or sandbox).
func (c Config) At(base string) Config {
	c.InstanceURL = base
	return c
}
