// Package workersai speaks the Cloudflare Workers AI REST API over HTTP:
// accounts/{id}/ai/run/{model} in Cloudflare's {"result","success",
// "errors","messages"} envelope for chat (SSE streaming, tools, JSON mode,
// image input), embeddings (bge: {text} -> {shape, data}), transcription
// (whisper-large-v3-turbo: base64 audio) and image generation (flux:
// base64 image); accounts/{id}/ai/tomarkdown for markdown conversion; and
// accounts/{id}/autorag/rags/{name}/search for AutoRAG.
package workersai

import (
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"strconv"
	"strings"

	"github.com/platform/backend/providers/ai"
	"github.com/platform/backend/providers/ai/internal/httpcall"
)

// Client is a Workers AI connection.
type Client struct {
	conn    httpcall.Connection
	account string
	models  ai.Models
	call    *httpcall.Caller
}

var _ ai.Provider = (*Client)(nil)

// New checks cfg and builds a client.
func New(cfg Config) (*Client, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	conn := cfg.connection()
	return &Client{conn: conn, account: cfg.AccountID, models: cfg.Models,
		call: conn.Caller(ai.ProtocolWorkersAI, []string{"Cf-Ray"}, decodeError)}, nil
}

func (c *Client) Protocol() string            { return ai.ProtocolWorkersAI }
func (c *Client) Capabilities() ai.Capability { return c.conn.Capabilities }

func (c *Client) header() http.Header {
	return http.Header{"Authorization": {"Bearer " + c.conn.APIKey}}
}

// modelName is a catalog name such as @cf/meta/llama-3.3-70b-instruct-fp8-fast:
// its slashes are path segments, so anything else (.., ?, %) is refused
// rather than escaped.
var modelName = regexp.MustCompile(`^@?[A-Za-z0-9][A-Za-z0-9._-]*(/[A-Za-z0-9][A-Za-z0-9._-]*)*$`)

// run addresses accounts/{id}/ai/run/{model}.
func (c *Client) run(capab ai.Capability, model string, body any) (httpcall.Request, error) {
	if !modelName.MatchString(model) || strings.Contains(model, "..") {
		return httpcall.Request{}, ai.Invalid(ai.ProtocolWorkersAI, capab, "model name not usable")
	}
	return httpcall.Request{Capability: capab, URL: c.conn.BaseURL + "/accounts/" + c.account + "/ai/run/" + model,
		Header: c.header(), JSON: body}, nil
}

// envelope is Cloudflare's answer around every result.
type envelope[T any] struct {
	Result  T         `json:"result"`
	Success bool      `json:"success"`
	Errors  []cfError `json:"errors"`
}

type cfError struct {
	Code int `json:"code"`
}

func (e cfError) code() string { return strconv.Itoa(e.Code) }

// decodeError reads the envelope's first error code, never its message.
func decodeError(_ int, _ http.Header, body []byte) httpcall.Upstream {
	var e envelope[json.RawMessage]
	if json.Unmarshal(body, &e) != nil || len(e.Errors) == 0 {
		return httpcall.Upstream{}
	}
	return httpcall.Upstream{Code: e.Errors[0].code()}
}

// do runs a call and unwraps the envelope: a 2xx answer that says
// success: false is a provider fault.
func do[T any](ctx context.Context, c *Client, req httpcall.Request) (T, httpcall.Meta, error) {
	var env envelope[T]
	meta, err := c.call.Do(ctx, req, &env)
	if err != nil {
		return env.Result, meta, err
	}
	if !env.Success {
		f := c.call.Fault(req.Capability, meta, "answer without success")
		if len(env.Errors) > 0 {
			f.Code = env.Errors[0].code()
		}
		return env.Result, meta, f
	}
	return env.Result, meta, nil
}
