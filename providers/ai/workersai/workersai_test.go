package workersai_test

import (
	"testing"
	"time"

	"github.com/platform/backend/providers/ai"
	"github.com/platform/backend/providers/ai/aifake"
	"github.com/platform/backend/providers/ai/internal/conformance"
	"github.com/platform/backend/providers/ai/workersai"
	"github.com/platform/backend/providers/ai/workersai/fake"
)

const (
	key     = "cf-test-token"
	account = "0123456789abcdef"
)

func models() ai.Models {
	info, _ := ai.Lookup(ai.Provider5)
	return info.Models
}

func start(t *testing.T, cfg workersai.Config) (*workersai.Client, *fake.Server) {
	t.Helper()
	srv := fake.Start(t, key, account)
	cfg.BaseURL, cfg.APIKey = srv.URL, key
	if cfg.AccountID == "" {
		cfg.AccountID = account
	}
	if cfg.Models == (ai.Models{}) {
		cfg.Models = models()
	}
	c, err := workersai.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c, srv
}

func TestConformance(t *testing.T) {
	conformance.Run(t, conformance.Harness{Start: func(t *testing.T, timeout time.Duration) (ai.Provider, *aifake.Kit) {
		c, srv := start(t, workersai.Config{Timeout: timeout})
		return c, srv.Kit
	}})
}
