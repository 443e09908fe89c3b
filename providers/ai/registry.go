package ai

import "fmt"

// ProviderID is the seed's provider enum value (ai_provider_1..ai_provider_5).
type ProviderID string

const (
	Provider1 ProviderID = "ai_provider_1" // OpenAI
	Provider2 ProviderID = "ai_provider_2" // Anthropic
	Provider3 ProviderID = "ai_provider_3" // Google Gemini
	Provider4 ProviderID = "ai_provider_4" // xAI, OpenAI-compatible
	Provider5 ProviderID = "ai_provider_5" // Cloudflare Workers AI
)

// Wire protocols, one adapter package each.
const (
	ProtocolOpenAI    = "openai"
	ProtocolAnthropic = "anthropic"
	ProtocolGemini    = "gemini"
	ProtocolWorkersAI = "workersai"
)

// ProviderInfo is what the platform knows about a provider id without any
// credentials: which protocol it speaks, where, what it can do, and the
// models used when a request names none.
type ProviderInfo struct {
	ID           ProviderID
	Name         string
	Protocol     string
	BaseURL      string // empty: the protocol adapter's default
	Capabilities Capability
	Models       Models
}

var chatFeatures = CapChat | CapStream | CapTools | CapStructuredOutput | CapVision

// registry is the mapping; the order is the seed's.
var registry = []ProviderInfo{
	{
		ID: Provider1, Name: "OpenAI", Protocol: ProtocolOpenAI,
		Capabilities: chatFeatures | CapEmbeddings | CapTranscription | CapImageGeneration,
		Models: Models{Chat: "gpt-4o-mini", Embedding: "text-embedding-3-small",
			Transcription: "whisper-1", Image: "gpt-image-1"},
	},
	{
		ID: Provider2, Name: "Anthropic", Protocol: ProtocolAnthropic,
		Capabilities: chatFeatures,
		Models:       Models{Chat: "claude-haiku-4-5"},
	},
	{
		ID: Provider3, Name: "Google Gemini", Protocol: ProtocolGemini,
		Capabilities: chatFeatures | CapImageGeneration,
		Models:       Models{Chat: "gemini-2.5-flash", Image: "gemini-2.5-flash-image"},
	},
	{
		ID: Provider4, Name: "xAI", Protocol: ProtocolOpenAI, BaseURL: "https://api.x.ai/v1",
		Capabilities: chatFeatures | CapImageGeneration,
		Models:       Models{Chat: "grok-3-mini", Vision: "grok-4", Image: "grok-2-image"},
	},
	{
		ID: Provider5, Name: "Cloudflare Workers AI", Protocol: ProtocolWorkersAI,
		Capabilities: chatFeatures | CapEmbeddings | CapTranscription | CapMarkdown | CapRAGSearch | CapImageGeneration,
		Models: Models{Chat: "@cf/meta/llama-3.3-70b-instruct-fp8-fast", Vision: "@cf/meta/llama-3.2-11b-vision-instruct",
			Embedding: "@cf/baai/bge-base-en-v1.5", Transcription: "@cf/openai/whisper-large-v3-turbo",
			Image: "@cf/black-forest-labs/flux-1-schnell"},
	},
}

// Providers lists every provider id, in the seed's order.
func Providers() []ProviderInfo { return append([]ProviderInfo(nil), registry...) }

// Lookup finds a provider id.
func Lookup(id ProviderID) (ProviderInfo, error) {
	for _, p := range registry {
		if p.ID == id {
			return p, nil
		}
	}
	return ProviderInfo{}, fmt.Errorf("ai: unknown provider %q", id)
}
