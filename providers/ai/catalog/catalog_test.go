package catalog_test

import (
	"context"
	"testing"

	"github.com/platform/backend/providers/ai"
	"github.com/platform/backend/providers/ai/catalog"
	"github.com/platform/backend/providers/ai/internal/conformance"
)

func TestEveryProviderIDBuildsItsAdapter(t *testing.T) {
	want := map[ai.ProviderID]string{
		ai.Provider1: ai.ProtocolOpenAI, ai.Provider2: ai.ProtocolAnthropic, ai.Provider3: ai.ProtocolGemini,
		ai.Provider4: ai.ProtocolOpenAI, ai.Provider5: ai.ProtocolWorkersAI,
	}
	for _, info := range ai.Providers() {
		t.Run(string(info.ID), func(t *testing.T) {
			p, err := catalog.New(info.ID, catalog.Connection{APIKey: "k", AccountID: "acct"})
			if err != nil {
				t.Fatal(err)
			}
			if p.Protocol() != want[info.ID] || p.Capabilities() != info.Capabilities {
				t.Fatalf("%s %s", p.Protocol(), p.Capabilities())
			}
		})
	}
	if _, err := catalog.New("ai_provider_9", catalog.Connection{APIKey: "k"}); err == nil {
		t.Fatal("unknown id accepted")
	}
	if _, err := catalog.New(ai.Provider5, catalog.Connection{APIKey: "k"}); err == nil {
		t.Fatal("Workers AI without an account accepted")
	}
}

// The seed's constant provider for embeddings, markdown, AutoRAG and
// transcriptions is ai_provider_5; media generation is ai_provider_1, 3, 4, 5.
func TestSeedConstantsAreSupported(t *testing.T) {
	info5, _ := ai.Lookup(ai.Provider5)
	if !info5.Capabilities.Has(ai.CapEmbeddings | ai.CapMarkdown | ai.CapRAGSearch | ai.CapTranscription) {
		t.Fatalf("ai_provider_5: %s", info5.Capabilities)
	}
	for _, info := range ai.Providers() {
		media := info.ID != ai.Provider2
		if info.Capabilities.Has(ai.CapImageGeneration) != media {
			t.Fatalf("%s image generation %v", info.ID, !media)
		}
		if !info.Capabilities.Has(ai.CapChat | ai.CapStream | ai.CapStructuredOutput | ai.CapVision) {
			t.Fatalf("%s cannot run completions, translations and image descriptions", info.ID)
		}
	}
}

func TestSandboxSpeaksEachProtocol(t *testing.T) {
	for _, info := range ai.Providers() {
		t.Run(string(info.ID), func(t *testing.T) {
			sb, err := catalog.StartSandbox(info.ID)
			if err != nil {
				t.Fatal(err)
			}
			defer sb.Close()
			resp, err := sb.Provider.Complete(context.Background(), conformance.ChatRequest())
			if err != nil {
				t.Fatal(err)
			}
			if resp.Text != conformance.WantText || resp.Usage.InputTokens != conformance.WantInputTokens || len(sb.Kit.Requests()) != 1 {
				t.Fatalf("%+v", resp)
			}
		})
	}
}

func TestModelsOverride(t *testing.T) {
	sb, err := catalog.StartSandbox(ai.Provider1)
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	p, err := catalog.New(ai.Provider1, catalog.Connection{APIKey: "sandbox-key", BaseURL: sb.URL(), Models: ai.Models{Chat: "gpt-4.1"}})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := p.Complete(context.Background(), conformance.ChatRequest())
	if err != nil || sb.Kit.Last().JSON()["model"] != "gpt-4.1" {
		t.Fatalf("%v %+v", err, resp)
	}
}
