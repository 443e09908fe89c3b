package openai

import (
	"net/http"
	"time"

	"github.com/platform/backend/providers/ai"
	"github.com/platform/backend/providers/ai/internal/httpcall"
)

// DefaultBaseURL is OpenAI's API, version prefix included (paths are
// relative to it, as OpenAI-compatible APIs expect: xAI is https://api.x.ai/v1).
const DefaultBaseURL = "https://api.openai.com/v1"

// AllCapabilities is what the protocol can do. An OpenAI-compatible provider
// usually offers less: its Config says so.
const AllCapabilities = ai.CapChat | ai.CapStream | ai.CapTools | ai.CapStructuredOutput | ai.CapVision |
	ai.CapEmbeddings | ai.CapTranscription | ai.CapImageGeneration

// Config is one connection.
type Config struct {
	BaseURL      string        // default DefaultBaseURL
	APIKey       string        // sent as Authorization: Bearer
	Timeout      time.Duration // a whole call, or a stream's silences; default 60s
	HTTPClient   *http.Client  // default a client on http.DefaultTransport that follows no redirects
	Capabilities ai.Capability // default AllCapabilities
	Models       ai.Models     // used when a request names no model
	// LegacyMaxTokens sends max_tokens instead of max_completion_tokens
	// (OpenAI deprecated the former; some compatible APIs know only it).
	LegacyMaxTokens bool
}

func (c Config) connection() httpcall.Connection {
	return httpcall.Connection{BaseURL: c.BaseURL, APIKey: c.APIKey, Timeout: c.Timeout,
		HTTPClient: c.HTTPClient, Capabilities: c.Capabilities}.WithDefaults(DefaultBaseURL, AllCapabilities)
}

// Validate reports a config New would refuse.
func (c Config) Validate() error {
	return c.connection().Validate(ai.ProtocolOpenAI, AllCapabilities)
}
