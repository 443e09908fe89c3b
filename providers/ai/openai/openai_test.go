package openai_test

import (
	"testing"
	"time"

	"github.com/platform/backend/providers/ai"
	"github.com/platform/backend/providers/ai/aifake"
	"github.com/platform/backend/providers/ai/internal/conformance"
	"github.com/platform/backend/providers/ai/openai"
	"github.com/platform/backend/providers/ai/openai/fake"
)

const key = "sk-test-key"

var models = ai.Models{Chat: "gpt-4o-mini", Embedding: "text-embedding-3-small", Transcription: "whisper-1", Image: "gpt-image-1"}

func start(t *testing.T, cfg openai.Config) (*openai.Client, *fake.Server) {
	t.Helper()
	srv := fake.Start(t, key)
	cfg.BaseURL, cfg.APIKey = srv.URL, key
	if cfg.Models == (ai.Models{}) {
		cfg.Models = models
	}
	c, err := openai.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c, srv
}

func TestConformance(t *testing.T) {
	conformance.Run(t, conformance.Harness{Start: func(t *testing.T, timeout time.Duration) (ai.Provider, *aifake.Kit) {
		c, srv := start(t, openai.Config{Timeout: timeout})
		return c, srv.Kit
	}})
}

// An OpenAI-compatible provider (ai_provider_4, xAI) is the same adapter
// with fewer capabilities: what it lacks fails before the network.
func TestConformanceCompatibleProvider(t *testing.T) {
	info, err := ai.Lookup(ai.Provider4)
	if err != nil {
		t.Fatal(err)
	}
	conformance.Run(t, conformance.Harness{Start: func(t *testing.T, timeout time.Duration) (ai.Provider, *aifake.Kit) {
		c, srv := start(t, openai.Config{Timeout: timeout, Capabilities: info.Capabilities, Models: info.Models})
		return c, srv.Kit
	}})
}
