// Package openai speaks the OpenAI API over HTTP: Chat Completions (also
// streamed as SSE, with tools, JSON-schema structured output and image
// input), embeddings, audio transcriptions and image generation. With
// another base URL it serves OpenAI-compatible providers (xAI).
package openai

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/platform/backend/providers/ai"
	"github.com/platform/backend/providers/ai/internal/httpcall"
)

// Client is an OpenAI connection.
type Client struct {
	conn   httpcall.Connection
	models ai.Models
	legacy bool
	call   *httpcall.Caller
}

var _ ai.Provider = (*Client)(nil)

// New checks cfg and builds a client.
func New(cfg Config) (*Client, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	conn := cfg.connection()
	return &Client{conn: conn, models: cfg.Models, legacy: cfg.LegacyMaxTokens,
		call: conn.Caller(ai.ProtocolOpenAI, []string{"X-Request-Id"}, decodeError)}, nil
}

func (c *Client) Protocol() string            { return ai.ProtocolOpenAI }
func (c *Client) Capabilities() ai.Capability { return c.conn.Capabilities }

func (c *Client) header() http.Header {
	return http.Header{"Authorization": {"Bearer " + c.conn.APIKey}}
}

func (c *Client) request(capab ai.Capability, path string, body any) httpcall.Request {
	return httpcall.Request{Capability: capab, URL: c.conn.BaseURL + path, Header: c.header(), JSON: body}
}

// decodeError reads {"error":{"message","type","code"}}: the code (or type)
// only, never the message.
func decodeError(_ int, _ http.Header, body []byte) httpcall.Upstream {
	var e struct {
		Error struct {
			Type string          `json:"type"`
			Code json.RawMessage `json:"code"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &e) != nil {
		return httpcall.Upstream{}
	}
	var code string
	if json.Unmarshal(e.Error.Code, &code) != nil || code == "" {
		code = e.Error.Type
	}
	return httpcall.Upstream{Code: code}
}

func (c *Client) ConvertToMarkdown(context.Context, ai.MarkdownRequest) (*ai.MarkdownResponse, error) {
	return nil, ai.Unsupported(ai.ProtocolOpenAI, ai.CapMarkdown)
}

func (c *Client) SearchRAG(context.Context, ai.RAGSearchRequest) (*ai.RAGSearchResponse, error) {
	return nil, ai.Unsupported(ai.ProtocolOpenAI, ai.CapRAGSearch)
}
