package gateway

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	gatewaycmd "github.com/platform/backend/commands/gateway"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/gateway/prices"
	"github.com/platform/backend/domain/principal"
	"github.com/platform/backend/domain/text"
	httpapi "github.com/platform/backend/http"
	"github.com/platform/backend/providers/ai"
)

// The OpenAI-compatible face of the gateway (issue 23): POST
// /v1/chat/completions, POST /v1/embeddings and GET /v1/models in OpenAI's
// wire format, so an OpenAI SDK pointed at the gateway's base URL + /v1
// works unchanged with a platform API key as its api_key. Each route is an
// action like any other (the kernel's credential, permission, rate limit,
// input schema and Idempotency-Key; the call actions declare 402, so the
// service wraps them with idempotent as every call action) whose handler
// only translates the request into the native input, calls the same
// gatewaycmd.Client method as /api/ai/completions or /api/ai/embeddings
// (one metered path: reserve, call, settle, the same usage event), and
// translates the answer back. Errors are OpenAI's {"error": {message,
// type, param, code}} with the platform's status and code.

// openAIErrors writes problems as OpenAI's error object. A reached spend
// cap stays 402 (type insufficient_quota, code spend_cap_exceeded): the
// openai package raises APIStatusError for it and does not retry it, where
// OpenAI's own 429 insufficient_quota would be a RateLimitError that the
// SDK retries twice for nothing (docs/decisions.md).
var openAIErrors = &httpapi.ErrorDialect{
	Name: "OpenAI", InvalidStatus: http.StatusBadRequest,
	Body: func(status int, p httpapi.Problem) any {
		return OpenAIError{Error: OpenAIErrorBody{Message: httpapi.MessageOf(p), Type: openAIErrorType(status), Param: paramOf(p),
			Code: p.Code, Errors: p.Errors}}
	},
	Schema: json.RawMessage(`{"type":"object","required":["error"],"properties":{"error":{"type":"object",
		"required":["message","type","param","code"],"properties":{"message":{"type":"string"},"type":{"type":"string"},
		"param":{"type":["string","null"]},"code":{"type":["string","null"]},"errors":` + httpapi.FieldErrorsSchema + `}}}}`),
}

// OpenAIError is OpenAI's error body.
type OpenAIError struct {
	Error OpenAIErrorBody `json:"error"`
}

// OpenAIErrorBody is OpenAI's error object; errors (beside OpenAI's
// members, which SDKs keep) lists every failing member of invalid input as
// the platform's problems do, param naming only the first.
type OpenAIErrorBody struct {
	Message string       `json:"message"`
	Type    string       `json:"type"`
	Param   *string      `json:"param"`
	Code    string       `json:"code"`
	Errors  []errs.Field `json:"errors,omitempty"`
}

// openAIErrorType is the error's type member by status.
func openAIErrorType(status int) string {
	switch {
	case status == http.StatusUnauthorized:
		return "authentication_error"
	case status == http.StatusForbidden:
		return "permission_error"
	case status == http.StatusPaymentRequired:
		return "insufficient_quota"
	case status == http.StatusTooManyRequests:
		return "rate_limit_error"
	case status >= 500:
		return "server_error"
	}
	return "invalid_request_error"
}

// paramOf names the first failing member OpenAI's way (messages[0].content),
// or null.
func paramOf(p httpapi.Problem) *string {
	if len(p.Errors) == 0 || p.Errors[0].Pointer == "" {
		return nil
	}
	ptr := p.Errors[0].Pointer
	if name, ok := strings.CutPrefix(ptr, "/header/"); ok {
		return &name
	}
	var b strings.Builder
	for i, tok := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		if _, err := strconv.Atoi(tok); err == nil && i > 0 {
			b.WriteString("[" + tok + "]")
			continue
		}
		if i > 0 {
			b.WriteString(".")
		}
		b.WriteString(tok)
	}
	s := b.String()
	return &s
}

// Input schemas: closed objects. A member OpenAI defines that the gateway
// cannot honour (n > 1, stop, logprobs, a forced tool choice, ...) is a
// 400 naming it, never silently dropped.
var (
	openAIModel    = httpapi.LineSchema(1, text.MaxID)
	openAIImageURL = `{"type":"object","additionalProperties":false,"required":["url"],"properties":{
		"url":` + httpapi.StringSchema(16, maxBase64, `^data:image/[a-z0-9.+-]+;base64,`+base64Body, nil) + `,
		"detail":{"type":"string","enum":["auto","low","high"]}}}`
	openAIMessage = `{"type":"object","additionalProperties":false,"required":["role"],"properties":{
	"role":{"type":"string","enum":["system","developer","user","assistant","tool"]},
	"content":{"anyOf":[` + contentText + `,{"type":"array","minItems":1,"maxItems":64,"items":{"oneOf":[
		{"type":"object","additionalProperties":false,"required":["type","text"],"properties":{"type":{"const":"text"},"text":` + contentText + `}},
		{"type":"object","additionalProperties":false,"required":["type","image_url"],"properties":{"type":{"const":"image_url"},
			"image_url":` + openAIImageURL + `}}]}},{"type":"null"}]},
	"tool_call_id":` + httpapi.LineSchema(1, text.MaxID) + `,
	"tool_calls":{"type":"array","maxItems":64,"items":{"type":"object","additionalProperties":false,"required":["id","type","function"],"properties":{
		"id":` + httpapi.LineSchema(1, text.MaxID) + `,"type":{"const":"function"},
		"function":{"type":"object","additionalProperties":false,"required":["name"],"properties":{
			"name":` + toolName + `,"arguments":` + httpapi.StringSchema(0, maxContent, `^[\t\n\r ]*\{[^\x00]*\}[\t\n\r ]*$`, nil) + `}}}}},
	"name":` + httpapi.LineSchema(1, text.MaxID) + `,
	"refusal":` + httpapi.StringSchema(0, 4000, text.MultiLinePattern, []string{"string", "null"}) + `,
	"annotations":{"type":"array","maxItems":0},"audio":{"type":"null"},"function_call":{"type":"null"}},
	"if":{"properties":{"role":{"const":"tool"}}},"then":{"required":["tool_call_id"]}}`
	openAIResponseFormat = `{"oneOf":[
	{"type":"object","additionalProperties":false,"required":["type"],"properties":{"type":{"enum":["text","json_object"]}}},
	{"type":"object","additionalProperties":false,"required":["type","json_schema"],"properties":{"type":{"const":"json_schema"},
		"json_schema":{"type":"object","additionalProperties":false,"required":["name"],"properties":{
			"name":` + toolName + `,"description":` + httpapi.TextSchema(0, 4000) + `,"strict":{"type":["boolean","null"]},
			"schema":{"type":"object","required":["type"],"properties":{"type":{"const":"object"}}}}}}}]}`
	maxTokensSchema = `{"type":"integer","minimum":1,"maximum":32000}`
)

var openAIChatSchema = httpapi.Object([]string{"model", "messages"}, map[string]string{
	"model":                 openAIModel,
	"messages":              `{"type":"array","minItems":1,"maxItems":256,"items":` + openAIMessage + `}`,
	"max_tokens":            maxTokensSchema,
	"max_completion_tokens": maxTokensSchema,
	"temperature":           `{"type":"number","minimum":0,"maximum":2}`,
	"n":                     `{"type":"integer","const":1}`,
	"stream":                booleanSchema,
	"stream_options":        `{"type":"object","additionalProperties":false,"properties":{"include_usage":{"type":"boolean"}}}`,
	"tools":                 `{"type":"array","maxItems":64,"items":` + toolSchema + `}`,
	"tool_choice":           `{"type":"string","enum":["auto","none"]}`,
	"parallel_tool_calls":   booleanSchema,
	"response_format":       openAIResponseFormat,
	"user":                  httpapi.LineSchema(0, text.MaxID),
	"app_id":                appIDSchema,
})

var openAIEmbeddingSchema = httpapi.Object([]string{"model", "input"}, map[string]string{
	"model": openAIModel,
	"input": `{"anyOf":[` + httpapi.TextSchema(1, maxContent) + `,{"type":"array","minItems":1,"maxItems":64,"items":` +
		httpapi.TextSchema(1, maxContent) + `}]}`,
	"encoding_format": `{"type":"string","enum":["float","base64"]}`,
	"user":            httpapi.LineSchema(0, text.MaxID),
	"app_id":          appIDSchema,
})

// OpenAIChatRequest is POST /v1/chat/completions' input.
type OpenAIChatRequest struct {
	Model               string                    `json:"model"`
	Messages            []gatewaycmd.MessageInput `json:"messages"`
	MaxTokens           int                       `json:"max_tokens"`
	MaxCompletionTokens int                       `json:"max_completion_tokens"`
	Temperature         *float64                  `json:"temperature"`
	Stream              bool                      `json:"stream"`
	StreamOptions       *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	Tools          []gatewaycmd.ToolInput `json:"tools"`
	ToolChoice     string                 `json:"tool_choice"`
	ResponseFormat *struct {
		Type       string `json:"type"`
		JSONSchema *struct {
			Name   string          `json:"name"`
			Strict *bool           `json:"strict"`
			Schema json.RawMessage `json:"schema"`
		} `json:"json_schema"`
	} `json:"response_format"`
	AppID string `json:"app_id"`
}

// nativeInput is the same completion as ai.completions.create's input.
func (r OpenAIChatRequest) nativeInput() (gatewaycmd.CompletionInput, error) {
	provider, model, err := resolveModel(r.Model, prices.OpChat)
	if err != nil {
		return gatewaycmd.CompletionInput{}, err
	}
	in := gatewaycmd.CompletionInput{Provider: provider, Model: model, Temperature: r.Temperature, Stream: r.Stream,
		AppID: r.AppID, UseCase: "chat", MaxTokens: r.MaxTokens}
	if r.MaxCompletionTokens > 0 {
		in.MaxTokens = r.MaxCompletionTokens
	}
	for _, m := range r.Messages {
		if m.Role == "developer" { // OpenAI's newer name of the system turn
			m.Role = "system"
		}
		in.Messages = append(in.Messages, m)
	}
	if r.ToolChoice != "none" {
		in.Tools = r.Tools
	}
	if rf := r.ResponseFormat; rf != nil {
		switch rf.Type {
		case "json_object":
			in.ResponseFormat = &gatewaycmd.ResponseFormatInput{Type: "json_schema"}
			in.ResponseFormat.JSONSchema.Name = "json_object"
		case "json_schema":
			in.ResponseFormat = &gatewaycmd.ResponseFormatInput{Type: "json_schema"}
			in.ResponseFormat.JSONSchema.Name, in.ResponseFormat.JSONSchema.Schema = rf.JSONSchema.Name, rf.JSONSchema.Schema
			in.ResponseFormat.JSONSchema.Strict = rf.JSONSchema.Strict != nil && *rf.JSONSchema.Strict
		}
	}
	return in, nil
}

// resolveModel is the provider and model of a compatible request's model
// id; an id no provider prices is OpenAI's 404 model_not_found.
func resolveModel(id, op string) (string, string, error) {
	provider, model, ok := gatewaycmd.ResolveModel(id, op)
	if !ok {
		return "", "", &errs.Error{Kind: errs.KindNotFound, Code: "model_not_found",
			Message: "the model " + strconv.Quote(id) + " does not exist or is not offered here (GET /v1/models lists them)"}
	}
	return provider, model, nil
}

// Answers of the OpenAI-compatible routes.
type (
	OpenAIChatCompletion struct {
		ID       string             `json:"id"`
		Object   string             `json:"object"`
		Created  int64              `json:"created"`
		Model    string             `json:"model"`
		Choices  []OpenAIChatChoice `json:"choices"`
		Usage    OpenAIUsage        `json:"usage"`
		Platform PlatformReceipt    `json:"platform"`
	}
	OpenAIChatChoice struct {
		Index        int               `json:"index"`
		Message      OpenAIChatMessage `json:"message"`
		FinishReason string            `json:"finish_reason"`
		Logprobs     *struct{}         `json:"logprobs"`
	}
	OpenAIChatMessage struct {
		Role      string           `json:"role"`
		Content   *string          `json:"content"`
		ToolCalls []OpenAIToolCall `json:"tool_calls,omitempty"`
	}
	OpenAIToolCall struct {
		Index    *int               `json:"index,omitempty"` // stream deltas only
		ID       string             `json:"id,omitempty"`
		Type     string             `json:"type,omitempty"`
		Function OpenAIToolFunction `json:"function"`
	}
	OpenAIToolFunction struct {
		Name      string `json:"name,omitempty"`
		Arguments string `json:"arguments"`
	}
	OpenAIUsage struct {
		PromptTokens     int64 `json:"prompt_tokens"`
		CompletionTokens int64 `json:"completion_tokens"`
		TotalTokens      int64 `json:"total_tokens"`
	}
	// PlatformReceipt is the gateway's own record of the call beside
	// OpenAI's members (SDKs keep unknown members): the usage event's
	// request id, what it cost and by which price table.
	PlatformReceipt struct {
		RequestID    string  `json:"request_id"`
		CostCents    float64 `json:"cost_cents"`
		PriceVersion string  `json:"price_version"`
		Sandbox      bool    `json:"sandbox"`
	}
	OpenAIChunk struct {
		ID       string             `json:"id"`
		Object   string             `json:"object"`
		Created  int64              `json:"created"`
		Model    string             `json:"model"`
		Choices  []OpenAIChunkDelta `json:"choices"`
		Usage    *OpenAIUsage       `json:"usage,omitempty"`
		Platform *PlatformReceipt   `json:"platform,omitempty"`
	}
	OpenAIChunkDelta struct {
		Index        int         `json:"index"`
		Delta        OpenAIDelta `json:"delta"`
		FinishReason *string     `json:"finish_reason"`
		Logprobs     *struct{}   `json:"logprobs"`
	}
	OpenAIDelta struct {
		Role      string           `json:"role,omitempty"`
		Content   *string          `json:"content,omitempty"`
		ToolCalls []OpenAIToolCall `json:"tool_calls,omitempty"`
	}
	OpenAIEmbeddings struct {
		Object   string            `json:"object"`
		Data     []OpenAIEmbedding `json:"data"`
		Model    string            `json:"model"`
		Usage    OpenAIEmbedUsage  `json:"usage"`
		Platform PlatformReceipt   `json:"platform"`
	}
	OpenAIEmbedding struct {
		Object    string `json:"object"`
		Index     int    `json:"index"`
		Embedding any    `json:"embedding"` // []float32, or base64 of little-endian float32s
	}
	OpenAIEmbedUsage struct {
		PromptTokens int64 `json:"prompt_tokens"`
		TotalTokens  int64 `json:"total_tokens"`
	}
	OpenAIModels struct {
		Object string        `json:"object"`
		Data   []OpenAIModel `json:"data"`
	}
	OpenAIModel struct {
		ID      string       `json:"id"`
		Object  string       `json:"object"`
		Created int64        `json:"created"`
		OwnedBy string       `json:"owned_by"`
		Pricing ModelPricing `json:"pricing"`
	}
	// ModelPricing is what a model's calls are charged, from the current
	// price table: per million input and output tokens, in US dollars (a
	// decimal string) and in the platform's micro-cents.
	ModelPricing struct {
		Operation                  string `json:"operation"`
		PriceVersion               string `json:"price_version"`
		Currency                   string `json:"currency"`
		InputPerMillionTokens      string `json:"input_per_million_tokens"`
		OutputPerMillionTokens     string `json:"output_per_million_tokens"`
		InputMicrocentsPerMillion  int64  `json:"input_microcents_per_million"`
		OutputMicrocentsPerMillion int64  `json:"output_microcents_per_million"`
		BYOK                       bool   `json:"byok"`
		Sandbox                    bool   `json:"sandbox"`
	}
)

var finishReasons = map[string]string{
	string(ai.FinishStop): "stop", string(ai.FinishLength): "length", string(ai.FinishToolCalls): "tool_calls",
	string(ai.FinishContentFilter): "content_filter",
}

// finishReasonOf is OpenAI's finish reason ("stop" for one it has no name for).
func finishReasonOf(r string) string {
	if f, ok := finishReasons[r]; ok {
		return f
	}
	return "stop"
}

func receiptOf(r gatewaycmd.Receipt, sandbox bool) PlatformReceipt {
	return PlatformReceipt{RequestID: r.RequestID, CostCents: r.CostCents, PriceVersion: r.PriceVersion, Sandbox: sandbox}
}

func modelID(provider, model string) string { return provider + "/" + model }

var openAIEnums = []httpapi.OutputOption{
	httpapi.EnumOf("choices[].finish_reason", "stop", "length", "tool_calls", "content_filter"),
	httpapi.EnumOf("choices[].message.role", "assistant"),
	httpapi.WithSchema("choices[].logprobs", `{"type":"null"}`),
	httpapi.WithSchema("object", `{"const":"chat.completion"}`),
}

func openAIArea(d Deps) Area {
	chat := httpapi.Action{Name: "openai.chat.completions.create", Method: http.MethodPost, Path: "/v1/chat/completions",
		Permission: "ai:invoke", Problems: aiProblems, Errors: openAIErrors, Streams: true,
		Summary: "OpenAI-compatible chat completion (model: an id of GET /v1/models, or a model's own name): the same metered call " +
			"as ai.completions.create; stream: true answers chat.completion.chunk events and data: [DONE]",
		InputSchema: openAIChatSchema, OutputSchema: httpapi.OutputOf(OpenAIChatCompletion{}, openAIEnums...),
		Handle: func(ctx context.Context, c *httpapi.Call) (httpapi.Reply, error) {
			var req OpenAIChatRequest
			if err := c.Decode(&req); err != nil {
				return httpapi.Reply{}, err
			}
			in, err := req.nativeInput()
			if err != nil {
				return httpapi.Reply{}, err
			}
			caller := callerOf(ctx, c.Principal)
			meta := chunkMeta{id: "chatcmpl-" + httpapi.RequestID(ctx), created: time.Now().Unix(), model: modelID(in.Provider, in.Model)}
			if in.Stream {
				usage := req.StreamOptions != nil && req.StreamOptions.IncludeUsage
				return httpapi.Reply{Stream: d.openAIStream(caller, in, meta, usage)}, nil
			}
			out, err := d.Client.Complete(ctx, caller, in)
			if err != nil {
				return httpapi.Reply{}, err
			}
			return httpapi.OK(openAICompletion(meta, out)), nil
		}}
	embeddings := httpapi.Action{Name: "openai.embeddings.create", Method: http.MethodPost, Path: "/v1/embeddings",
		Permission: "ai:invoke", Problems: aiProblems, Errors: openAIErrors,
		Summary:     "OpenAI-compatible embeddings: the same metered call as ai.embeddings.create (encoding_format float or base64)",
		InputSchema: openAIEmbeddingSchema,
		OutputSchema: httpapi.OutputOf(OpenAIEmbeddings{}, httpapi.WithSchema("object", `{"const":"list"}`),
			httpapi.WithSchema("data[].embedding", `{"anyOf":[{"type":"array","items":{"type":"number"}},{"type":"string","contentEncoding":"base64"}]}`)),
		Handle: func(ctx context.Context, c *httpapi.Call) (httpapi.Reply, error) {
			var req struct {
				Model          string          `json:"model"`
				Input          json.RawMessage `json:"input"`
				EncodingFormat string          `json:"encoding_format"`
				AppID          string          `json:"app_id"`
			}
			if err := c.Decode(&req); err != nil {
				return httpapi.Reply{}, err
			}
			provider, model, err := resolveModel(req.Model, prices.OpEmbedding)
			if err != nil {
				return httpapi.Reply{}, err
			}
			texts, err := textsOf(req.Input)
			if err != nil {
				return httpapi.Reply{}, err
			}
			out, err := d.Client.Embed(ctx, callerOf(ctx, c.Principal), gatewaycmd.EmbeddingInput{Input: texts, Provider: provider,
				Model: model, AppID: req.AppID})
			if err != nil {
				return httpapi.Reply{}, err
			}
			return httpapi.OK(openAIEmbeddings(out, req.EncodingFormat == "base64")), nil
		}}
	models := httpapi.Query(httpapi.Action{Name: "openai.models.list", Method: http.MethodGet, Path: "/v1/models",
		Permission: "ai:invoke", ReadOnly: true, Errors: openAIErrors,
		Summary: "The chat and embedding models this organization may call (OpenAI's model list), each with its price from the current table",
		OutputSchema: httpapi.OutputOf(OpenAIModels{}, httpapi.WithSchema("object", `{"const":"list"}`),
			httpapi.WithSchema("data[].object", `{"const":"model"}`), httpapi.EnumOf("data[].pricing.operation", prices.OpChat, prices.OpEmbedding))},
		func(ctx context.Context, p principal.Principal, _ Empty) (OpenAIModels, error) {
			offers, err := d.Client.Models(ctx, callerOf(ctx, p))
			if err != nil {
				return OpenAIModels{}, err
			}
			out := OpenAIModels{Object: "list", Data: []OpenAIModel{}}
			for _, o := range offers {
				out.Data = append(out.Data, OpenAIModel{ID: o.ID(), Object: "model", Created: priceTableTime(o.PriceVersion),
					OwnedBy: o.Provider, Pricing: pricingOf(o)})
			}
			return out, nil
		})
	return Area{Actions: []httpapi.Action{chat, embeddings, models}}
}

// priceTableTime is a model's created time: the day its price table took
// effect (stable across calls).
func priceTableTime(version string) int64 {
	t, err := time.Parse(time.DateOnly, version)
	if err != nil {
		return 0
	}
	return t.Unix()
}

func pricingOf(o gatewaycmd.ModelOffer) ModelPricing {
	return ModelPricing{Operation: o.Operation, PriceVersion: o.PriceVersion, Currency: "USD",
		InputPerMillionTokens: usd(o.Price.InputPerMillion), OutputPerMillionTokens: usd(o.Price.OutputPerMillion),
		InputMicrocentsPerMillion: o.Price.InputPerMillion, OutputMicrocentsPerMillion: o.Price.OutputPerMillion,
		BYOK: o.BYOK, Sandbox: o.Sandbox}
}

// usd writes micro-cents as US dollars, exactly (1 USD = 1e8 micro-cents).
func usd(microcents int64) string {
	s := strconv.FormatFloat(float64(microcents)/1e8, 'f', -1, 64)
	return s
}

// chunkMeta is what every answer of one completion carries.
type chunkMeta struct {
	id      string
	created int64
	model   string
}

func openAICompletion(m chunkMeta, c gatewaycmd.Completion) OpenAIChatCompletion {
	msg := OpenAIChatMessage{Role: "assistant"}
	if c.Text != "" || len(c.ToolCalls) == 0 {
		text := c.Text
		msg.Content = &text
	}
	for _, tc := range c.ToolCalls {
		msg.ToolCalls = append(msg.ToolCalls, OpenAIToolCall{ID: tc.ID, Type: "function",
			Function: OpenAIToolFunction{Name: tc.Name, Arguments: string(tc.Arguments)}})
	}
	return OpenAIChatCompletion{ID: m.id, Object: "chat.completion", Created: m.created, Model: modelID(c.Provider, c.Model),
		Choices: []OpenAIChatChoice{{Message: msg, FinishReason: finishReasonOf(c.FinishReason)}},
		Usage:   usageOf(c.Units), Platform: receiptOf(c.Receipt, c.Sandbox)}
}

func usageOf(u prices.Units) OpenAIUsage {
	return OpenAIUsage{PromptTokens: u.InputTokens, CompletionTokens: u.OutputTokens, TotalTokens: u.InputTokens + u.OutputTokens}
}

// openAIStream answers a streamed completion as chat.completion.chunk
// events: the assistant's role first, each delta as it arrives, the finish
// reason, the usage when stream_options.include_usage asks for it, then
// data: [DONE]. A failure before the first event is an ordinary error
// answer; after it, an error event in OpenAI's shape (the SDK raises it).
func (d Deps) openAIStream(caller gatewaycmd.Caller, in gatewaycmd.CompletionInput, m chunkMeta, includeUsage bool) httpapi.EventStream {
	return func(ctx context.Context, w *httpapi.EventWriter) error {
		chunk := func(delta OpenAIDelta, finish *string) OpenAIChunk {
			return OpenAIChunk{ID: m.id, Object: "chat.completion.chunk", Created: m.created, Model: m.model,
				Choices: []OpenAIChunkDelta{{Delta: delta, FinishReason: finish}}}
		}
		first := true
		sum, err := d.Client.Stream(ctx, caller, in, func(delta ai.Delta) error {
			out := OpenAIDelta{}
			if first {
				out.Role, first = "assistant", false
			}
			if delta.Text != "" {
				text := delta.Text
				out.Content = &text
			}
			if tc := delta.ToolCall; tc != nil {
				index := tc.Index
				call := OpenAIToolCall{Index: &index, ID: tc.ID, Function: OpenAIToolFunction{Name: tc.Name, Arguments: tc.Arguments}}
				if tc.ID != "" {
					call.Type = "function"
				}
				out.ToolCalls = []OpenAIToolCall{call}
			}
			return w.Send("", chunk(out, nil))
		})
		if err != nil {
			return err
		}
		finish := finishReasonOf(sum.FinishReason)
		if err := w.Send("", chunk(OpenAIDelta{}, &finish)); err != nil {
			return err
		}
		if includeUsage {
			usage, receipt := usageOf(sum.Units), receiptOf(sum.Receipt, sum.Sandbox)
			last := OpenAIChunk{ID: m.id, Object: "chat.completion.chunk", Created: m.created, Model: modelID(sum.Provider, sum.Model),
				Choices: []OpenAIChunkDelta{}, Usage: &usage, Platform: &receipt}
			if err := w.Send("", last); err != nil {
				return err
			}
		}
		return w.Done()
	}
}

func openAIEmbeddings(e gatewaycmd.Embeddings, asBase64 bool) OpenAIEmbeddings {
	out := OpenAIEmbeddings{Object: "list", Data: []OpenAIEmbedding{}, Model: modelID(e.Provider, e.Model),
		Usage: OpenAIEmbedUsage{PromptTokens: e.Units.InputTokens, TotalTokens: e.Units.InputTokens}, Platform: receiptOf(e.Receipt, e.Sandbox)}
	for i, v := range e.Embeddings {
		var vec any = v
		if asBase64 {
			vec = float32Base64(v)
		} else if v == nil {
			vec = []float32{}
		}
		out.Data = append(out.Data, OpenAIEmbedding{Object: "embedding", Index: i, Embedding: vec})
	}
	return out
}

// float32Base64 is OpenAI's base64 encoding of a vector: its float32s,
// little-endian, in standard base64 (what the openai package asks for by
// default and decodes).
func float32Base64(v []float32) string {
	raw := make([]byte, 4*len(v))
	for i, f := range v {
		binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(f))
	}
	return base64.StdEncoding.EncodeToString(raw)
}
