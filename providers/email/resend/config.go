// Package resend delivers email through Resend's HTTP API (POST /emails
// with a Bearer API key and Idempotency-Key) and verifies and reads its
// webhooks (signed the Svix way).
//
// How the full message maps:
//   - to, cc, bcc, reply_to are arrays of "Name <address>" strings.
//   - Tags pass through as tags [{name, value}]; Metadata entries are added
//     as tags too (Resend has no metadata, and tags come back in webhooks);
//     a metadata key of a tag's name replaces that tag's value. Resend only
//     takes ASCII letters, digits, "_" and "-" in tags: it refuses others.
//   - Headers become the headers object; MessageStream has no Resend
//     counterpart and is ignored.
//   - IdempotencyKey is the Idempotency-Key header: Resend answers a retry
//     with the first result for 24 hours.
//   - Resend returns no request id header; Receipt.RequestID stays empty.
package resend

import (
	"errors"
	"net/http"
	"time"

	"github.com/platform/backend/domain/text"
)

// Provider names this adapter in receipts, errors and events.
const Provider = "resend"

// DefaultBaseURL is Resend's API.
const DefaultBaseURL = "https://api.resend.com"

// DefaultTimeout bounds one send when Config.Timeout is zero.
const DefaultTimeout = 10 * time.Second

// Config is one Resend connection.
type Config struct {
	BaseURL    string // default DefaultBaseURL
	APIKey     string // "re_..."
	Timeout    time.Duration
	HTTPClient *http.Client // default: a client of the adapter's own
}

// WithDefaults fills the zero fields.
func (c Config) WithDefaults() Config {
	if c.BaseURL == "" {
		c.BaseURL = DefaultBaseURL
	}
	if c.Timeout == 0 {
		c.Timeout = DefaultTimeout
	}
	if c.HTTPClient == nil {
		c.HTTPClient = &http.Client{}
	}
	return c
}

// Validate checks a configuration after defaults.
func (c Config) Validate() error {
	_, problem := text.ParseURL(c.BaseURL, text.URLRules{})
	switch {
	case problem != "":
		return errors.New("resend: BaseURL " + problem)
	case c.APIKey == "":
		return errors.New("resend: APIKey required")
	case c.Timeout <= 0:
		return errors.New("resend: Timeout must be positive")
	}
	return nil
}
