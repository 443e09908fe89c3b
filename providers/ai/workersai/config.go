package workersai

import (
	"errors"
	"net/http"
	"regexp"
	"time"

	"github.com/platform/backend/providers/ai"
	"github.com/platform/backend/providers/ai/internal/httpcall"
)

// DefaultBaseURL is Cloudflare's API (paths start with /accounts/{id}).
const DefaultBaseURL = "https://api.cloudflare.com/client/v4"

// AllCapabilities is what the adapter does with the protocol.
const AllCapabilities = ai.CapChat | ai.CapStream | ai.CapTools | ai.CapStructuredOutput | ai.CapVision |
	ai.CapEmbeddings | ai.CapTranscription | ai.CapMarkdown | ai.CapRAGSearch | ai.CapImageGeneration

// Config is one connection.
type Config struct {
	BaseURL      string        // default DefaultBaseURL
	AccountID    string        // the Cloudflare account the token may use
	APIKey       string        // an API token, sent as Authorization: Bearer
	Timeout      time.Duration // a whole call, or a stream's silences; default 60s
	HTTPClient   *http.Client  // default a client on http.DefaultTransport that follows no redirects
	Capabilities ai.Capability // default AllCapabilities
	Models       ai.Models     // used when a request names no model
}

var accountID = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

func (c Config) connection() httpcall.Connection {
	return httpcall.Connection{BaseURL: c.BaseURL, APIKey: c.APIKey, Timeout: c.Timeout,
		HTTPClient: c.HTTPClient, Capabilities: c.Capabilities}.WithDefaults(DefaultBaseURL, AllCapabilities)
}

// Validate reports a config New would refuse.
func (c Config) Validate() error {
	if !accountID.MatchString(c.AccountID) {
		return errors.New("ai workersai: account id is required (letters, digits, - and _)")
	}
	return c.connection().Validate(ai.ProtocolWorkersAI, AllCapabilities)
}
