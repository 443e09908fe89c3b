package gemini

import (
	"net/http"
	"time"

	"github.com/platform/backend/providers/ai"
	"github.com/platform/backend/providers/ai/internal/httpcall"
)

// DefaultBaseURL is the Gemini API (paths start with /v1beta).
const DefaultBaseURL = "https://generativelanguage.googleapis.com"

// AllCapabilities is what the adapter does with the protocol.
const AllCapabilities = ai.CapChat | ai.CapStream | ai.CapTools | ai.CapStructuredOutput | ai.CapVision | ai.CapImageGeneration

// Config is one connection.
type Config struct {
	BaseURL      string        // default DefaultBaseURL
	APIKey       string        // sent as x-goog-api-key (never in the URL, where logs keep it)
	Timeout      time.Duration // a whole call, or a stream's silences; default 60s
	HTTPClient   *http.Client  // default a client on http.DefaultTransport that follows no redirects
	Capabilities ai.Capability // default AllCapabilities
	Models       ai.Models     // used when a request names no model
}

func (c Config) connection() httpcall.Connection {
	return httpcall.Connection{BaseURL: c.BaseURL, APIKey: c.APIKey, Timeout: c.Timeout,
		HTTPClient: c.HTTPClient, Capabilities: c.Capabilities}.WithDefaults(DefaultBaseURL, AllCapabilities)
}

// Validate reports a config New would refuse.
func (c Config) Validate() error {
	return c.connection().Validate(ai.ProtocolGemini, AllCapabilities)
}
