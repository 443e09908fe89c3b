// Package conformance is the test suite every AI adapter runs against its
// own fake over real HTTP: every supported operation succeeds with the
// units the fake predicts, every scripted fault is classified into the
// kind the gateway decides on, unsupported operations fail before the
// network, and streams deliver deltas as they arrive and report a cut or a
// missing usage distinctly.
package conformance

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/platform/backend/providers/ai"
	"github.com/platform/backend/providers/ai/aifake"
)

// Prompt is the suite's chat input; the fakes answer "echo: " + Prompt.
const Prompt = "please repeat these words"

// Want* are the units the fakes count for Prompt.
var (
	WantText         = "echo: " + Prompt
	WantInputTokens  = int64(aifake.Words(Prompt))
	WantOutputTokens = int64(aifake.Words("echo: " + Prompt))
)

// WeatherTool is the suite's tool.
var WeatherTool = ai.Tool{Name: "get_weather", Description: "Current weather in a city",
	Parameters: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`)}

// Audio is the suite's audio: 2 seconds at the fakes' rate.
var Audio = make([]byte, 2*aifake.AudioBytesPerSecond)

// PNG is a tiny image for vision calls.
var PNG = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89")

// Translation is the suite's translation request.
var Translation = ai.TranslationRequest{TargetLocale: "de", Texts: map[string]string{"greeting": "Hello {name}", "farewell": "Goodbye"}}

// StreamResult is what a stream handed to its caller.
type StreamResult struct {
	Summary   *ai.StreamSummary
	Text      string
	ToolCalls map[int]*ai.ToolCallDelta // joined fragments per index
	Deltas    int
}

// Collect streams req on p and gathers every delta.
func Collect(ctx context.Context, p ai.Provider, req ai.CompletionRequest) (StreamResult, error) {
	var res StreamResult
	var text strings.Builder
	res.ToolCalls = map[int]*ai.ToolCallDelta{}
	sum, err := p.Stream(ctx, req, func(d ai.Delta) error {
		res.Deltas++
		text.WriteString(d.Text)
		if tc := d.ToolCall; tc != nil {
			acc := res.ToolCalls[tc.Index]
			if acc == nil {
				acc = &ai.ToolCallDelta{Index: tc.Index}
				res.ToolCalls[tc.Index] = acc
			}
			if tc.ID != "" {
				acc.ID = tc.ID
			}
			if tc.Name != "" {
				acc.Name = tc.Name
			}
			acc.Arguments += tc.Arguments
		}
		return nil
	})
	res.Summary, res.Text = sum, text.String()
	return res, err
}

// Op is one operation the suite calls, named by its capability.
type Op struct {
	Cap ai.Capability
	Run func(ctx context.Context, p ai.Provider) (any, error)
}

// ChatRequest is the suite's plain completion.
func ChatRequest() ai.CompletionRequest {
	return ai.CompletionRequest{Messages: []ai.Message{ai.Text(ai.RoleUser, Prompt)}, MaxTokens: 64}
}

// Ops lists one call per capability.
func Ops() []Op {
	return []Op{
		{ai.CapChat, func(ctx context.Context, p ai.Provider) (any, error) { return p.Complete(ctx, ChatRequest()) }},
		{ai.CapStream, func(ctx context.Context, p ai.Provider) (any, error) {
			res, err := Collect(ctx, p, ChatRequest())
			return res, err
		}},
		{ai.CapTools, func(ctx context.Context, p ai.Provider) (any, error) {
			req := ChatRequest()
			req.Tools = []ai.Tool{WeatherTool}
			return p.Complete(ctx, req)
		}},
		{ai.CapStructuredOutput, func(ctx context.Context, p ai.Provider) (any, error) {
			return ai.Translate(ctx, p, Translation)
		}},
		{ai.CapVision, func(ctx context.Context, p ai.Provider) (any, error) {
			return ai.DescribeImage(ctx, p, ai.ImageDescriptionRequest{Image: ai.Image{Data: PNG}, Prompt: "what is this", MaxTokens: 100})
		}},
		{ai.CapEmbeddings, func(ctx context.Context, p ai.Provider) (any, error) {
			return p.Embed(ctx, ai.EmbeddingRequest{Input: []string{"first text", "second text here"}})
		}},
		{ai.CapTranscription, func(ctx context.Context, p ai.Provider) (any, error) {
			return p.Transcribe(ctx, ai.TranscriptionRequest{Audio: Audio, MIMEType: "audio/mpeg", Language: "en"})
		}},
		{ai.CapMarkdown, func(ctx context.Context, p ai.Provider) (any, error) {
			return p.ConvertToMarkdown(ctx, ai.MarkdownRequest{Files: []ai.File{
				{Name: "notes.txt", MIMEType: "text/plain", Data: []byte("some plain notes")},
				{Name: "pixel.png", MIMEType: "image/png", Data: PNG},
			}})
		}},
		{ai.CapRAGSearch, func(ctx context.Context, p ai.Provider) (any, error) {
			rewrite, threshold := true, 0.5
			return p.SearchRAG(ctx, ai.RAGSearchRequest{Instance: "docs", Query: "how do refunds work", MaxResults: 5,
				RewriteQuery: &rewrite, ScoreThreshold: &threshold})
		}},
		{ai.CapImageGeneration, func(ctx context.Context, p ai.Provider) (any, error) {
			return p.GenerateImage(ctx, ai.ImageRequest{Prompt: "a red bicycle", N: 1})
		}},
	}
}
