package ai

import "context"

// Provider is one AI provider connection speaking its wire protocol. Every
// method either answers or returns an *Error; an operation outside
// Capabilities() fails with KindUnsupported before any network call.
//
// Image description and translations are not methods: they are completions
// (DescribeImage, Translate in this package), the same on every protocol.
type Provider interface {
	// Protocol names the wire protocol ("openai", "anthropic", "gemini", "workersai").
	Protocol() string
	// Capabilities is what this connection can do.
	Capabilities() Capability

	// Complete runs a chat completion and returns the whole answer.
	Complete(ctx context.Context, req CompletionRequest) (*CompletionResponse, error)
	// Stream runs a chat completion and hands each delta to onDelta as it
	// arrives. Once the stream opened (a 2xx answer) the summary is never
	// nil, even with an error (cut stream, missing usage, caller cancel),
	// so the caller can settle with what is known; an error before that
	// (429, 5xx, refused input) comes with a nil summary. An error returned
	// by onDelta stops the stream; it comes back as a Canceled *Error
	// wrapping it.
	Stream(ctx context.Context, req CompletionRequest, onDelta func(Delta) error) (*StreamSummary, error)
	// Embed turns texts into vectors.
	Embed(ctx context.Context, req EmbeddingRequest) (*EmbeddingResponse, error)
	// Transcribe turns audio into text.
	Transcribe(ctx context.Context, req TranscriptionRequest) (*TranscriptionResponse, error)
	// ConvertToMarkdown converts documents to markdown.
	ConvertToMarkdown(ctx context.Context, req MarkdownRequest) (*MarkdownResponse, error)
	// SearchRAG searches a managed retrieval index.
	SearchRAG(ctx context.Context, req RAGSearchRequest) (*RAGSearchResponse, error)
	// GenerateImage generates images from a prompt.
	GenerateImage(ctx context.Context, req ImageRequest) (*ImageResponse, error)
}

// Models names the model a connection uses for each kind of call when the
// request names none. Empty means the request must name one.
type Models struct {
	Chat          string
	Vision        string // completions carrying images; Chat when empty
	Embedding     string
	Transcription string
	Image         string
}

// ForCompletion picks the model of a completion request: the request's own,
// else the vision model when it carries images, else the chat model.
func (m Models) ForCompletion(req CompletionRequest) string {
	if req.Model != "" {
		return req.Model
	}
	if m.Vision != "" && req.HasImages() {
		return m.Vision
	}
	return m.Chat
}

// Pick returns requested when set, else fallback.
func Pick(requested, fallback string) string {
	if requested != "" {
		return requested
	}
	return fallback
}
