// Package anthropic speaks Anthropic's Messages API over HTTP: the system
// prompt apart from the messages, tools, base64 image blocks, and SSE
// streaming with its event types. Structured output is a forced tool whose
// input schema is the requested schema; its input comes back as the text.
package anthropic

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/platform/backend/providers/ai"
	"github.com/platform/backend/providers/ai/internal/httpcall"
	"github.com/platform/backend/providers/outcome"
)

// Client is an Anthropic connection.
type Client struct {
	conn      httpcall.Connection
	models    ai.Models
	maxTokens int
	call      *httpcall.Caller
}

var _ ai.Provider = (*Client)(nil)

// New checks cfg and builds a client.
func New(cfg Config) (*Client, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	conn := cfg.connection()
	maxTokens := cfg.MaxTokens
	if maxTokens <= 0 {
		maxTokens = DefaultMaxTokens
	}
	return &Client{conn: conn, models: cfg.Models, maxTokens: maxTokens,
		call: conn.Caller(ai.ProtocolAnthropic, []string{"Request-Id"}, decodeError)}, nil
}

func (c *Client) Protocol() string            { return ai.ProtocolAnthropic }
func (c *Client) Capabilities() ai.Capability { return c.conn.Capabilities }

func (c *Client) request(capab ai.Capability, body any) httpcall.Request {
	return httpcall.Request{Capability: capab, URL: c.conn.BaseURL + "/v1/messages", JSON: body,
		Header: http.Header{"X-Api-Key": {c.conn.APIKey}, "Anthropic-Version": {Version}}}
}

// decodeError reads {"type":"error","error":{"type","message"}}: the type only.
func decodeError(_ int, _ http.Header, body []byte) httpcall.Upstream {
	var e errorBody
	if json.Unmarshal(body, &e) != nil {
		return httpcall.Upstream{}
	}
	return httpcall.Upstream{Code: e.Error.Type, Kind: kindOf(e.Error.Type)}
}

type errorBody struct {
	Error struct {
		Type string `json:"type"`
	} `json:"error"`
}

// kindOf refines a few error types whatever the status (they also arrive
// as stream events, without one).
func kindOf(typ string) outcome.Kind {
	switch typ {
	case "rate_limit_error":
		return outcome.RateLimited
	case "overloaded_error", "api_error":
		return outcome.ProviderFault
	}
	return ""
}

func (c *Client) Embed(context.Context, ai.EmbeddingRequest) (*ai.EmbeddingResponse, error) {
	return nil, ai.Unsupported(ai.ProtocolAnthropic, ai.CapEmbeddings)
}

func (c *Client) Transcribe(context.Context, ai.TranscriptionRequest) (*ai.TranscriptionResponse, error) {
	return nil, ai.Unsupported(ai.ProtocolAnthropic, ai.CapTranscription)
}

func (c *Client) ConvertToMarkdown(context.Context, ai.MarkdownRequest) (*ai.MarkdownResponse, error) {
	return nil, ai.Unsupported(ai.ProtocolAnthropic, ai.CapMarkdown)
}

func (c *Client) SearchRAG(context.Context, ai.RAGSearchRequest) (*ai.RAGSearchResponse, error) {
	return nil, ai.Unsupported(ai.ProtocolAnthropic, ai.CapRAGSearch)
}

func (c *Client) GenerateImage(context.Context, ai.ImageRequest) (*ai.ImageResponse, error) {
	return nil, ai.Unsupported(ai.ProtocolAnthropic, ai.CapImageGeneration)
}
