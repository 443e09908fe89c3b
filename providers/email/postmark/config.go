// Package postmark delivers email through Postmark's HTTP API (POST /email
// with the server token) and reads its delivery and bounce webhooks.
//
// How the full message maps:
//   - To, Cc, Bcc and ReplyTo are comma-joined address lists.
//   - Tags: Postmark keeps one Tag per message, so Tag is the first tag's
//     value; every tag is also written into Metadata under its name (an
//     explicit metadata key of the same name wins), so all of them come
//     back in webhooks.
//   - Headers become Postmark's Headers list; MessageStream passes through.
//   - IdempotencyKey: Postmark has no idempotency; a retry after an
//     unknown outcome (Error.MaybeDelivered) may send the message twice.
//   - Postmark returns no request id header; Receipt.RequestID stays empty.
package postmark

import (
	"errors"
	"net/http"
	"time"

	"github.com/platform/backend/domain/text"
)

// Provider names this adapter in receipts, errors and events.
const Provider = "postmark"

// DefaultBaseURL is Postmark's API.
const DefaultBaseURL = "https://api.postmarkapp.com"

// DefaultTimeout bounds one send when Config.Timeout is zero.
const DefaultTimeout = 10 * time.Second

// Config is one Postmark server's connection.
type Config struct {
	BaseURL     string // default DefaultBaseURL
	ServerToken string // X-Postmark-Server-Token
	Timeout     time.Duration
	HTTPClient  *http.Client // default: a client of the adapter's own
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
		return errors.New("postmark: BaseURL " + problem)
	case c.ServerToken == "":
		return errors.New("postmark: ServerToken required")
	case c.Timeout <= 0:
		return errors.New("postmark: Timeout must be positive")
	}
	return nil
}
