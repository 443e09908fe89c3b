package anthropic

import (
	"net/http"
	"time"

	"github.com/platform/backend/providers/ai"
	"github.com/platform/backend/providers/ai/internal/httpcall"
)

// DefaultBaseURL is Anthropic's API (paths start with /v1).
const DefaultBaseURL = "https://api.anthropic.com"

// Version is the anthropic-version header the adapter speaks.
const Version = "2023-06-01"

// DefaultMaxTokens fills max_tokens, which the Messages API requires, when
// a request sets none.
const DefaultMaxTokens = 4096

// AllCapabilities is what the protocol can do: chat only, no media.
const AllCapabilities = ai.CapChat | ai.CapStream | ai.CapTools | ai.CapStructuredOutput | ai.CapVision

// Config is one connection.
type Config struct {
	BaseURL      string        // default DefaultBaseURL
	APIKey       string        // sent as x-api-key
	Timeout      time.Duration // a whole call, or a stream's silences; default 60s
	HTTPClient   *http.Client  // default a client on http.DefaultTransport that follows no redirects
	Capabilities ai.Capability // default AllCapabilities
	Models       ai.Models     // used when a request names no model
	MaxTokens    int           // default DefaultMaxTokens
}

func (c Config) connection() httpcall.Connection {
	return httpcall.Connection{BaseURL: c.BaseURL, APIKey: c.APIKey, Timeout: c.Timeout,
		HTTPClient: c.HTTPClient, Capabilities: c.Capabilities}.WithDefaults(DefaultBaseURL, AllCapabilities)
}

// Validate reports a config New would refuse.
func (c Config) Validate() error {
	return c.connection().Validate(ai.ProtocolAnthropic, AllCapabilities)
}
