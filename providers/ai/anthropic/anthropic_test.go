package anthropic_test

import (
	"testing"
	"time"

	"github.com/platform/backend/providers/ai"
	"github.com/platform/backend/providers/ai/aifake"
	"github.com/platform/backend/providers/ai/anthropic"
	"github.com/platform/backend/providers/ai/anthropic/fake"
	"github.com/platform/backend/providers/ai/internal/conformance"
)

const key = "sk-ant-test"

var models = ai.Models{Chat: "claude-haiku-4-5"}

func start(t *testing.T, cfg anthropic.Config) (*anthropic.Client, *fake.Server) {
	t.Helper()
	srv := fake.Start(t, key)
	cfg.BaseURL, cfg.APIKey = srv.URL, key
	if cfg.Models == (ai.Models{}) {
		cfg.Models = models
	}
	c, err := anthropic.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c, srv
}

func TestConformance(t *testing.T) {
	conformance.Run(t, conformance.Harness{Start: func(t *testing.T, timeout time.Duration) (ai.Provider, *aifake.Kit) {
		c, srv := start(t, anthropic.Config{Timeout: timeout})
		return c, srv.Kit
	}})
}
