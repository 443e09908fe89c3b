// Package whatsapp sends messages through the WhatsApp Cloud API (POST
// /{version}/{phone_number_id}/messages on the Graph API with a Bearer
// token) and verifies and reads its webhooks (X-Hub-Signature-256, and the
// hub.challenge subscription handshake).
//
// The Graph API has no idempotency key: a retry after an unknown outcome
// (Error.MaybeDelivered) may deliver the message twice. The request id is
// the x-fb-trace-id header (or, on errors, the body's fbtrace_id).
package whatsapp

import (
	"errors"
	"net/http"
	"regexp"
	"time"

	"github.com/platform/backend/domain/text"
)

// Provider names this adapter in receipts, errors and events.
const Provider = "whatsapp"

// Defaults of the Graph API.
const (
	DefaultBaseURL = "https://graph.facebook.com"
	DefaultVersion = "v21.0"
	DefaultTimeout = 10 * time.Second
)

// Config is one WhatsApp Business connection.
type Config struct {
	BaseURL     string // default DefaultBaseURL
	Version     string // Graph API version, default DefaultVersion
	AccessToken string // system-user or user access token
	// PhoneNumberID is the default sending number, used when a message
	// names none.
	PhoneNumberID string
	Timeout       time.Duration
	HTTPClient    *http.Client // default: a client of the adapter's own
}

// WithDefaults fills the zero fields.
func (c Config) WithDefaults() Config {
	if c.BaseURL == "" {
		c.BaseURL = DefaultBaseURL
	}
	if c.Version == "" {
		c.Version = DefaultVersion
	}
	if c.Timeout == 0 {
		c.Timeout = DefaultTimeout
	}
	if c.HTTPClient == nil {
		c.HTTPClient = &http.Client{}
	}
	return c
}

// versionPattern is a Graph API version, "v21.0".
var versionPattern = regexp.MustCompile(`^v[0-9]+\.[0-9]+$`)

// phoneNumberIDPattern: Graph object ids are digits.
var phoneNumberIDPattern = regexp.MustCompile(`^[0-9]{1,32}$`)

// Validate checks a configuration after defaults.
func (c Config) Validate() error {
	_, problem := text.ParseURL(c.BaseURL, text.URLRules{})
	switch {
	case problem != "":
		return errors.New("whatsapp: BaseURL " + problem)
	case !versionPattern.MatchString(c.Version):
		return errors.New("whatsapp: Version must look like v21.0")
	case c.AccessToken == "":
		return errors.New("whatsapp: AccessToken required")
	case c.PhoneNumberID != "" && !phoneNumberIDPattern.MatchString(c.PhoneNumberID):
		return errors.New("whatsapp: PhoneNumberID must be digits")
	case c.Timeout <= 0:
		return errors.New("whatsapp: Timeout must be positive")
	}
	return nil
}
