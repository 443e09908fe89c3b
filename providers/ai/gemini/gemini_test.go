package gemini_test

import (
	"testing"
	"time"

	"github.com/platform/backend/providers/ai"
	"github.com/platform/backend/providers/ai/aifake"
	"github.com/platform/backend/providers/ai/gemini"
	"github.com/platform/backend/providers/ai/gemini/fake"
	"github.com/platform/backend/providers/ai/internal/conformance"
)

const key = "AIza-test-key"

var models = ai.Models{Chat: "gemini-2.5-flash", Image: "gemini-2.5-flash-image"}

func start(t *testing.T, cfg gemini.Config) (*gemini.Client, *fake.Server) {
	t.Helper()
	srv := fake.Start(t, key)
	cfg.BaseURL, cfg.APIKey = srv.URL, key
	if cfg.Models == (ai.Models{}) {
		cfg.Models = models
	}
	c, err := gemini.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c, srv
}

func TestConformance(t *testing.T) {
	conformance.Run(t, conformance.Harness{RequestIDInBodyOnly: true,
		Start: func(t *testing.T, timeout time.Duration) (ai.Provider, *aifake.Kit) {
			c, srv := start(t, gemini.Config{Timeout: timeout})
			return c, srv.Kit
		}})
}
