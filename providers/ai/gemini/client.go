// Package gemini speaks the Google Gemini API over HTTP:
// models/{model}:generateContent and :streamGenerateContent?alt=sse with
// contents and parts, systemInstruction, function declarations, inline
// image data, generationConfig (structured output through responseSchema)
// and usageMetadata; image generation is generateContent with the IMAGE
// response modality.
package gemini

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/platform/backend/providers/ai"
	"github.com/platform/backend/providers/ai/internal/httpcall"
	"github.com/platform/backend/providers/outcome"
)

// Client is a Gemini connection.
type Client struct {
	conn   httpcall.Connection
	models ai.Models
	call   *httpcall.Caller
}

var _ ai.Provider = (*Client)(nil)

// New checks cfg and builds a client.
func New(cfg Config) (*Client, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	conn := cfg.connection()
	// The API names a call in its body (responseId), not in a header.
	return &Client{conn: conn, models: cfg.Models, call: conn.Caller(ai.ProtocolGemini, nil, decodeError)}, nil
}

func (c *Client) Protocol() string            { return ai.ProtocolGemini }
func (c *Client) Capabilities() ai.Capability { return c.conn.Capabilities }

// request addresses models/{model}:{method}.
func (c *Client) request(capab ai.Capability, model, method string, body any) httpcall.Request {
	model = strings.TrimPrefix(model, "models/")
	return httpcall.Request{Capability: capab, URL: c.conn.BaseURL + "/v1beta/models/" + url.PathEscape(model) + ":" + method,
		Header: http.Header{"X-Goog-Api-Key": {c.conn.APIKey}}, JSON: body}
}

// decodeError reads Google's error shape: {"error":{"code","message",
// "status","details":[{"@type":"...ErrorInfo","reason"},{"@type":
// "...RetryInfo","retryDelay":"30s"}]}}. The API answers 400
// INVALID_ARGUMENT for a bad key; ErrorInfo's reason tells it apart.
func decodeError(_ int, _ http.Header, body []byte) httpcall.Upstream {
	var e errorBody
	if json.Unmarshal(body, &e) != nil {
		return httpcall.Upstream{}
	}
	return e.upstream()
}

type errorBody struct {
	Error struct {
		Status  string `json:"status"`
		Details []struct {
			Type       string `json:"@type"`
			Reason     string `json:"reason"`
			RetryDelay string `json:"retryDelay"`
		} `json:"details"`
	} `json:"error"`
}

func (e errorBody) upstream() httpcall.Upstream {
	up := httpcall.Upstream{Code: e.Error.Status}
	switch e.Error.Status {
	case "UNAUTHENTICATED", "PERMISSION_DENIED":
		up.Kind = outcome.Unauthorized
	case "RESOURCE_EXHAUSTED":
		up.Kind = outcome.RateLimited
	}
	for _, d := range e.Error.Details {
		switch {
		case strings.HasSuffix(d.Type, "google.rpc.ErrorInfo") && strings.HasPrefix(d.Reason, "API_KEY_"):
			up.Code, up.Kind = d.Reason, outcome.Unauthorized // API_KEY_INVALID, API_KEY_EXPIRED ...
		case strings.HasSuffix(d.Type, "google.rpc.RetryInfo"):
			if dur, err := time.ParseDuration(d.RetryDelay); err == nil && dur > 0 {
				up.RetryAfter = dur
			}
		}
	}
	return up
}

func (c *Client) Embed(context.Context, ai.EmbeddingRequest) (*ai.EmbeddingResponse, error) {
	return nil, ai.Unsupported(ai.ProtocolGemini, ai.CapEmbeddings)
}

func (c *Client) Transcribe(context.Context, ai.TranscriptionRequest) (*ai.TranscriptionResponse, error) {
	return nil, ai.Unsupported(ai.ProtocolGemini, ai.CapTranscription)
}

func (c *Client) ConvertToMarkdown(context.Context, ai.MarkdownRequest) (*ai.MarkdownResponse, error) {
	return nil, ai.Unsupported(ai.ProtocolGemini, ai.CapMarkdown)
}

func (c *Client) SearchRAG(context.Context, ai.RAGSearchRequest) (*ai.RAGSearchResponse, error) {
	return nil, ai.Unsupported(ai.ProtocolGemini, ai.CapRAGSearch)
}
