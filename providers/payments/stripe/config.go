package stripe

import (
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/platform/backend/domain/text"
)

// Provider names this adapter in the gateway's records.
const Provider = "stripe"

// DefaultBaseURL is Stripe's API.
const DefaultBaseURL = "https://api.stripe.com"

// DefaultAPIVersion is the Stripe-Version every request pins. It is the last
// version that still serves the seed's subscription_items.create_usage_record
// (2025-03-31.basil removed legacy usage records) and it already serves
// invoices.create_preview. Moving past it means dropping that operation.
const DefaultAPIVersion = "2025-02-24.acacia"

// DefaultTimeout bounds one call, answer included, when Config.Timeout is
// zero.
const DefaultTimeout = 30 * time.Second

// Config is one Stripe connection.
type Config struct {
	BaseURL    string // default DefaultBaseURL
	SecretKey  string // sk_live_..., sk_test_... or a restricted rk_... key
	APIVersion string // default DefaultAPIVersion
	// Timeout bounds one call. When it fires while the caller's context is
	// still live, Stripe was slow: a ProviderFault with TimedOut.
	Timeout time.Duration
	// HTTPClient defaults to a client that follows no redirects (Stripe
	// never redirects; a redirect is answered as a provider fault).
	HTTPClient *http.Client
}

// WithDefaults fills the zero fields.
func (c Config) WithDefaults() Config {
	if c.BaseURL == "" {
		c.BaseURL = DefaultBaseURL
	}
	if c.APIVersion == "" {
		c.APIVersion = DefaultAPIVersion
	}
	if c.Timeout == 0 {
		c.Timeout = DefaultTimeout
	}
	if c.HTTPClient == nil {
		c.HTTPClient = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		}}
	}
	return c
}

// validAPIVersion holds for Stripe's version format: a date, and since
// 2024 a release name ("2025-02-24.acacia").
func validAPIVersion(v string) bool {
	if len(v) < 10 {
		return false
	}
	for i, r := range v[:10] {
		if (i == 4 || i == 7) != (r == '-') || (r != '-' && (r < '0' || r > '9')) {
			return false
		}
	}
	rest := v[10:]
	if rest == "" {
		return true
	}
	if rest[0] != '.' || len(rest) == 1 {
		return false
	}
	for _, r := range rest[1:] {
		if r < 'a' || r > 'z' {
			return false
		}
	}
	return true
}

// Validate checks a configuration after defaults. It never echoes the key.
func (c Config) Validate() error {
	_, problem := text.ParseURL(c.BaseURL, text.URLRules{NoQuery: true, NoFragment: true})
	switch {
	case problem != "":
		return errors.New("stripe: BaseURL " + problem)
	case c.SecretKey == "":
		return errors.New("stripe: SecretKey required")
	case !strings.HasPrefix(c.SecretKey, "sk_") && !strings.HasPrefix(c.SecretKey, "rk_"):
		return errors.New("stripe: SecretKey must be a secret (sk_) or restricted (rk_) key")
	case strings.ContainsAny(c.SecretKey, " \t\r\n"):
		return errors.New("stripe: SecretKey must not contain spaces or line breaks")
	case !validAPIVersion(c.APIVersion):
		return errors.New("stripe: APIVersion must look like 2025-02-24.acacia")
	case c.Timeout <= 0:
		return errors.New("stripe: Timeout must be positive")
	case c.HTTPClient == nil:
		return errors.New("stripe: HTTPClient required (WithDefaults sets one)")
	}
	return nil
}
