package gateway

import (
	"context"

	"github.com/platform/backend/providers/ai"
	"github.com/platform/backend/providers/outcome"
)

// refusedWatch wraps an organization's own AI adapter: when the provider
// refuses its key (401/403), the connection is deauthorized, as the edge's
// sends do. The refusal belongs to the connection's lifecycle, not to the
// provider's health, and the organization's next call falls back to the
// platform's connection instead of failing again.
type refusedWatch struct {
	ai.Provider
	refused func()
}

var _ ai.Provider = refusedWatch{}

func (w refusedWatch) check(err error) error {
	if e, ok := ai.AsError(err); ok && e.Kind == outcome.Unauthorized {
		w.refused()
	}
	return err
}

func (w refusedWatch) Complete(ctx context.Context, req ai.CompletionRequest) (*ai.CompletionResponse, error) {
	r, err := w.Provider.Complete(ctx, req)
	return r, w.check(err)
}

func (w refusedWatch) Stream(ctx context.Context, req ai.CompletionRequest, onDelta func(ai.Delta) error) (*ai.StreamSummary, error) {
	r, err := w.Provider.Stream(ctx, req, onDelta)
	return r, w.check(err)
}

func (w refusedWatch) Embed(ctx context.Context, req ai.EmbeddingRequest) (*ai.EmbeddingResponse, error) {
	r, err := w.Provider.Embed(ctx, req)
	return r, w.check(err)
}

func (w refusedWatch) Transcribe(ctx context.Context, req ai.TranscriptionRequest) (*ai.TranscriptionResponse, error) {
	r, err := w.Provider.Transcribe(ctx, req)
	return r, w.check(err)
}

func (w refusedWatch) ConvertToMarkdown(ctx context.Context, req ai.MarkdownRequest) (*ai.MarkdownResponse, error) {
	r, err := w.Provider.ConvertToMarkdown(ctx, req)
	return r, w.check(err)
}

func (w refusedWatch) SearchRAG(ctx context.Context, req ai.RAGSearchRequest) (*ai.RAGSearchResponse, error) {
	r, err := w.Provider.SearchRAG(ctx, req)
	return r, w.check(err)
}

func (w refusedWatch) GenerateImage(ctx context.Context, req ai.ImageRequest) (*ai.ImageResponse, error) {
	r, err := w.Provider.GenerateImage(ctx, req)
	return r, w.check(err)
}
