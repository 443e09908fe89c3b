// Package catalog builds the adapter for a seed provider id
// (ai_provider_1..5) from the registry in package ai and a connection's
// credentials, and starts in-process sandboxes that speak each provider's
// protocol (the fakes) for local runs. It is the one place that knows
// which adapter serves which id.
package catalog

import (
	"fmt"
	"net/http"
	"time"

	"github.com/platform/backend/providers/ai"
	"github.com/platform/backend/providers/ai/aifake"
	"github.com/platform/backend/providers/ai/anthropic"
	anthropicfake "github.com/platform/backend/providers/ai/anthropic/fake"
	"github.com/platform/backend/providers/ai/gemini"
	geminifake "github.com/platform/backend/providers/ai/gemini/fake"
	"github.com/platform/backend/providers/ai/openai"
	openaifake "github.com/platform/backend/providers/ai/openai/fake"
	"github.com/platform/backend/providers/ai/workersai"
	workersaifake "github.com/platform/backend/providers/ai/workersai/fake"
)

// Connection is what a gateway connection supplies.
type Connection struct {
	APIKey     string
	BaseURL    string // empty: the registry's, else the adapter's default
	AccountID  string // Workers AI only
	Timeout    time.Duration
	HTTPClient *http.Client
	Models     ai.Models // members set override the registry's defaults
}

// New builds the adapter serving id.
func New(id ai.ProviderID, c Connection) (ai.Provider, error) {
	info, err := ai.Lookup(id)
	if err != nil {
		return nil, err
	}
	base := ai.Pick(c.BaseURL, info.BaseURL)
	models := merge(info.Models, c.Models)
	switch info.Protocol {
	case ai.ProtocolOpenAI:
		return openai.New(openai.Config{BaseURL: base, APIKey: c.APIKey, Timeout: c.Timeout, HTTPClient: c.HTTPClient,
			Capabilities: info.Capabilities, Models: models})
	case ai.ProtocolAnthropic:
		return anthropic.New(anthropic.Config{BaseURL: base, APIKey: c.APIKey, Timeout: c.Timeout, HTTPClient: c.HTTPClient,
			Capabilities: info.Capabilities, Models: models})
	case ai.ProtocolGemini:
		return gemini.New(gemini.Config{BaseURL: base, APIKey: c.APIKey, Timeout: c.Timeout, HTTPClient: c.HTTPClient,
			Capabilities: info.Capabilities, Models: models})
	case ai.ProtocolWorkersAI:
		return workersai.New(workersai.Config{BaseURL: base, AccountID: c.AccountID, APIKey: c.APIKey, Timeout: c.Timeout,
			HTTPClient: c.HTTPClient, Capabilities: info.Capabilities, Models: models})
	}
	return nil, fmt.Errorf("ai catalog: no adapter for protocol %q", info.Protocol)
}

func merge(base, over ai.Models) ai.Models {
	return ai.Models{
		Chat:          ai.Pick(over.Chat, base.Chat),
		Vision:        ai.Pick(over.Vision, base.Vision),
		Embedding:     ai.Pick(over.Embedding, base.Embedding),
		Transcription: ai.Pick(over.Transcription, base.Transcription),
		Image:         ai.Pick(over.Image, base.Image),
	}
}

// Sandbox is a provider id served by its protocol's fake on a local port:
// the same adapter, the same wire protocol, deterministic answers and no
// credentials or network beyond loopback.
type Sandbox struct {
	Provider ai.Provider
	Kit      *aifake.Kit // script faults, read the request log
	url      string
}

// URL is the base URL the sandbox's adapter talks to.
func (s *Sandbox) URL() string { return s.url }

// Close stops the fake.
func (s *Sandbox) Close() { s.Kit.Close() }

const (
	sandboxKey     = "sandbox-key"
	sandboxAccount = "sandbox-account"
)

// StartSandbox serves id from its fake. The caller must Close it.
func StartSandbox(id ai.ProviderID) (*Sandbox, error) { return StartSandboxWith(id, Connection{}) }

// StartSandboxWith is StartSandbox with the adapter's other settings
// (Timeout, HTTPClient, Models) from c; its key, account and base URL are
// the fake's.
func StartSandboxWith(id ai.ProviderID, c Connection) (*Sandbox, error) {
	info, err := ai.Lookup(id)
	if err != nil {
		return nil, err
	}
	var f *aifake.Server
	var prefix string
	switch info.Protocol {
	case ai.ProtocolOpenAI:
		f, prefix = openaifake.New(sandboxKey).Server, "/v1"
	case ai.ProtocolAnthropic:
		f = anthropicfake.New(sandboxKey).Server
	case ai.ProtocolGemini:
		f = geminifake.New(sandboxKey).Server
	case ai.ProtocolWorkersAI:
		f, prefix = workersaifake.New(sandboxKey, sandboxAccount).Server, "/client/v4"
	default:
		return nil, fmt.Errorf("ai catalog: no fake for protocol %q", info.Protocol)
	}
	url := f.Serve(f) + prefix
	c.APIKey, c.AccountID, c.BaseURL = sandboxKey, sandboxAccount, url
	p, err := New(id, c)
	if err != nil {
		f.Close()
		return nil, err
	}
	return &Sandbox{Provider: p, Kit: f.Kit, url: url}, nil
}
