package ai

import "strings"

// Capability is one thing a provider can be asked to do, or a set of them
// (bit flags: CapChat|CapStream). Chat, embeddings, transcription, markdown,
// RAG search and image generation are operations; streaming, tools,
// structured output and vision are features of a chat completion that not
// every provider (or configuration) supports.
type Capability uint16

const (
	CapChat             Capability = 1 << iota // Complete
	CapStream                                  // Stream
	CapTools                                   // tools in a completion request
	CapStructuredOutput                        // ResponseFormat (JSON schema) in a completion request
	CapVision                                  // image parts in a completion request
	CapEmbeddings                              // Embed
	CapTranscription                           // Transcribe
	CapMarkdown                                // ConvertToMarkdown
	CapRAGSearch                               // SearchRAG
	CapImageGeneration                         // GenerateImage
)

var allCapabilities = []Capability{CapChat, CapStream, CapTools, CapStructuredOutput, CapVision,
	CapEmbeddings, CapTranscription, CapMarkdown, CapRAGSearch, CapImageGeneration}

var capabilityNames = map[Capability]string{
	CapChat:             "chat",
	CapStream:           "stream",
	CapTools:            "tools",
	CapStructuredOutput: "structured_output",
	CapVision:           "vision",
	CapEmbeddings:       "embeddings",
	CapTranscription:    "transcription",
	CapMarkdown:         "markdown",
	CapRAGSearch:        "rag_search",
	CapImageGeneration:  "image_generation",
}

// String names one capability; a set prints as names joined by "|".
func (c Capability) String() string {
	if n, ok := capabilityNames[c]; ok {
		return n
	}
	var names []string
	for _, one := range allCapabilities {
		if c&one != 0 {
			names = append(names, capabilityNames[one])
		}
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, "|")
}

// Has reports whether the set c holds every capability of want.
func (c Capability) Has(want Capability) bool { return want != 0 && c&want == want }

// List returns the single capabilities of the set, in a stable order.
func (c Capability) List() []Capability {
	var out []Capability
	for _, one := range allCapabilities {
		if c&one != 0 {
			out = append(out, one)
		}
	}
	return out
}

// AllCapabilities lists every single capability, in a stable order.
func AllCapabilities() []Capability { return append([]Capability(nil), allCapabilities...) }
