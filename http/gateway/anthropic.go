package gateway

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"

	gatewaycmd "github.com/platform/backend/commands/gateway"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/gateway/prices"
	"github.com/platform/backend/domain/text"
	httpapi "github.com/platform/backend/http"
	"github.com/platform/backend/providers/ai"
)

// The Anthropic-compatible face of the gateway (issue 23): POST
// /v1/messages in Anthropic's Messages format, for the anthropic SDK
// pointed at the gateway's base URL with a platform API key (x-api-key or
// a bearer token). Like the OpenAI routes (openai.go), an action whose
// handler translates the request into ai.completions.create's input, calls
// the same metered Client method, and translates the answer (and the
// streamed events) back; errors are Anthropic's {"type": "error", "error":
// {type, message}}, a reached cap 402 billing_error (the SDK's
// PaymentRequiredError).

var anthropicErrors = &httpapi.ErrorDialect{
	Name: "Anthropic", InvalidStatus: http.StatusBadRequest, StreamEvent: "error",
	Body: func(status int, p httpapi.Problem) any {
		return AnthropicError{Type: "error", Error: AnthropicErrorBody{Type: anthropicErrorType(status), Message: httpapi.MessageOf(p),
			Errors: p.Errors}, RequestID: p.RequestID}
	},
	Schema: json.RawMessage(`{"type":"object","required":["type","error"],"properties":{"type":{"const":"error"},
		"error":{"type":"object","required":["type","message"],"properties":{"type":{"type":"string"},"message":{"type":"string"},
			"errors":` + httpapi.FieldErrorsSchema + `}},
		"request_id":{"type":"string"}}}`),
}

// AnthropicError is Anthropic's error body.
type AnthropicError struct {
	Type      string             `json:"type"`
	Error     AnthropicErrorBody `json:"error"`
	RequestID string             `json:"request_id"`
}

// AnthropicErrorBody is Anthropic's error object, with the failing members
// of invalid input beside its members (as OpenAIErrorBody).
type AnthropicErrorBody struct {
	Type    string       `json:"type"`
	Message string       `json:"message"`
	Errors  []errs.Field `json:"errors,omitempty"`
}

var anthropicErrorTypes = map[int]string{
	http.StatusUnauthorized: "authentication_error", http.StatusPaymentRequired: "billing_error",
	http.StatusForbidden: "permission_error", http.StatusNotFound: "not_found_error",
	http.StatusRequestEntityTooLarge: "request_too_large", http.StatusTooManyRequests: "rate_limit_error",
	http.StatusServiceUnavailable: "overloaded_error", http.StatusGatewayTimeout: "timeout_error",
}

func anthropicErrorType(status int) string {
	if t, ok := anthropicErrorTypes[status]; ok {
		return t
	}
	if status >= 500 {
		return "api_error"
	}
	return "invalid_request_error"
}

var (
	anthropicText  = `{"type":"object","additionalProperties":false,"required":["type","text"],"properties":{"type":{"const":"text"},"text":` + contentText + `}}`
	anthropicImage = `{"type":"object","additionalProperties":false,"required":["type","source"],"properties":{"type":{"const":"image"},
		"source":{"type":"object","additionalProperties":false,"required":["type","media_type","data"],"properties":{"type":{"const":"base64"},
			"media_type":{"type":"string","enum":["image/jpeg","image/png","image/gif","image/webp"]},"data":` + base64Schema + `}}}}`
	anthropicToolUse = `{"type":"object","additionalProperties":false,"required":["type","id","name","input"],"properties":{"type":{"const":"tool_use"},
		"id":` + httpapi.LineSchema(1, text.MaxID) + `,"name":` + toolName + `,"input":{"type":"object"}}}`
	anthropicToolResult = `{"type":"object","additionalProperties":false,"required":["type","tool_use_id"],"properties":{"type":{"const":"tool_result"},
		"tool_use_id":` + httpapi.LineSchema(1, text.MaxID) + `,"is_error":{"type":"boolean"},
		"content":{"anyOf":[` + contentText + `,{"type":"array","maxItems":64,"items":` + anthropicText + `}]}}}`
	anthropicMessage = `{"type":"object","additionalProperties":false,"required":["role","content"],"properties":{
		"role":{"type":"string","enum":["user","assistant"]},
		"content":{"anyOf":[` + contentText + `,{"type":"array","minItems":1,"maxItems":64,"items":{"oneOf":[` +
		anthropicText + `,` + anthropicImage + `,` + anthropicToolUse + `,` + anthropicToolResult + `]}}]}}}`
	anthropicTool = `{"type":"object","additionalProperties":false,"required":["name","input_schema"],"properties":{
		"name":` + toolName + `,"description":` + httpapi.TextSchema(0, 4000) + `,
		"input_schema":{"type":"object","required":["type"],"properties":{"type":{"const":"object"}}}}}`
)

var anthropicMessagesSchema = httpapi.Object([]string{"model", "max_tokens", "messages"}, map[string]string{
	"model":       openAIModel,
	"max_tokens":  maxTokensSchema,
	"messages":    `{"type":"array","minItems":1,"maxItems":256,"items":` + anthropicMessage + `}`,
	"system":      `{"anyOf":[` + contentText + `,{"type":"array","maxItems":64,"items":` + anthropicText + `}]}`,
	"temperature": `{"type":"number","minimum":0,"maximum":1}`,
	"stream":      booleanSchema,
	"tools":       `{"type":"array","maxItems":64,"items":` + anthropicTool + `}`,
	"tool_choice": `{"type":"object","additionalProperties":false,"required":["type"],"properties":{"type":{"enum":["auto","none"]},
		"disable_parallel_tool_use":{"type":"boolean"}}}`,
	"metadata": `{"type":"object","additionalProperties":false,"properties":{"user_id":` + httpapi.LineSchema(0, text.MaxID) + `}}`,
	"app_id":   appIDSchema,
})

// AnthropicRequest is POST /v1/messages' input.
type AnthropicRequest struct {
	Model       string             `json:"model"`
	MaxTokens   int                `json:"max_tokens"`
	Messages    []AnthropicMessage `json:"messages"`
	System      json.RawMessage    `json:"system"`
	Temperature *float64           `json:"temperature"`
	Stream      bool               `json:"stream"`
	Tools       []struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		InputSchema json.RawMessage `json:"input_schema"`
	} `json:"tools"`
	ToolChoice *struct {
		Type string `json:"type"`
	} `json:"tool_choice"`
	AppID string `json:"app_id"`
}

type AnthropicMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// AnthropicBlock is one content block of a request or an answer.
type AnthropicBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	ToolUseID string          `json:"tool_use_id,omitempty"`
	Content   json.RawMessage `json:"content,omitempty"`
	Source    *struct {
		MediaType string `json:"media_type"`
		Data      string `json:"data"`
	} `json:"source,omitempty"`
}

// blocksOf reads a content member: a string is one text block.
func blocksOf(raw json.RawMessage) []AnthropicBlock {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []AnthropicBlock{{Type: "text", Text: s}}
	}
	var blocks []AnthropicBlock
	_ = json.Unmarshal(raw, &blocks) // the input schema checked the shape
	return blocks
}

// textOf joins the text blocks of a content member.
func textOf(raw json.RawMessage) string {
	var parts []string
	for _, b := range blocksOf(raw) {
		if b.Type == "text" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}

func jsonOf(v any) json.RawMessage {
	raw, _ := json.Marshal(v)
	return raw
}

// nativeInput is the same completion as ai.completions.create's input: the
// system prompt a system turn, a user turn's tool results tool turns ahead
// of its text and images, an assistant turn's tool_use blocks its tool calls.
func (r AnthropicRequest) nativeInput() (gatewaycmd.CompletionInput, error) {
	provider, model, err := resolveModel(r.Model, prices.OpChat)
	if err != nil {
		return gatewaycmd.CompletionInput{}, err
	}
	in := gatewaycmd.CompletionInput{Provider: provider, Model: model, MaxTokens: r.MaxTokens, Temperature: r.Temperature,
		Stream: r.Stream, AppID: r.AppID, UseCase: "chat"}
	if len(r.System) > 0 {
		if s := textOf(r.System); s != "" {
			in.Messages = append(in.Messages, gatewaycmd.MessageInput{Role: "system", Content: jsonOf(s)})
		}
	}
	for _, m := range r.Messages {
		var parts []map[string]any
		var calls []gatewaycmd.ToolCallInput
		for _, b := range blocksOf(m.Content) {
			switch b.Type {
			case "text":
				parts = append(parts, map[string]any{"type": "text", "text": b.Text})
			case "image":
				parts = append(parts, map[string]any{"type": "image_url",
					"image_url": map[string]any{"url": "data:" + b.Source.MediaType + ";base64," + b.Source.Data}})
			case "tool_use":
				var call gatewaycmd.ToolCallInput
				call.ID, call.Type, call.Function.Name, call.Function.Arguments = b.ID, "function", b.Name, string(b.Input)
				calls = append(calls, call)
			case "tool_result":
				id := b.ToolUseID
				in.Messages = append(in.Messages, gatewaycmd.MessageInput{Role: "tool", ToolCallID: &id, Content: jsonOf(textOf(b.Content))})
			}
		}
		if len(parts) == 0 && len(calls) == 0 {
			continue
		}
		msg := gatewaycmd.MessageInput{Role: m.Role, ToolCalls: calls, Content: json.RawMessage("null")}
		if len(parts) > 0 {
			msg.Content = jsonOf(parts)
		}
		in.Messages = append(in.Messages, msg)
	}
	if r.ToolChoice == nil || r.ToolChoice.Type != "none" {
		for _, t := range r.Tools {
			var tool gatewaycmd.ToolInput
			tool.Type, tool.Function.Name, tool.Function.Description, tool.Function.Parameters = "function", t.Name, t.Description, t.InputSchema
			in.Tools = append(in.Tools, tool)
		}
	}
	if len(in.Messages) == 0 {
		return in, errs.InvalidField("/messages", "a message needs content")
	}
	return in, nil
}

// AnthropicMessageOut is a Messages answer.
type AnthropicMessageOut struct {
	ID           string           `json:"id"`
	Type         string           `json:"type"`
	Role         string           `json:"role"`
	Model        string           `json:"model"`
	Content      []AnthropicBlock `json:"content"`
	StopReason   *string          `json:"stop_reason"`
	StopSequence *string          `json:"stop_sequence"`
	Usage        AnthropicUsage   `json:"usage"`
	Platform     *PlatformReceipt `json:"platform,omitempty"`
}

type AnthropicUsage struct {
	InputTokens  int64 `json:"input_tokens"`
	OutputTokens int64 `json:"output_tokens"`
}

var stopReasons = map[string]string{
	string(ai.FinishStop): "end_turn", string(ai.FinishLength): "max_tokens", string(ai.FinishToolCalls): "tool_use",
	string(ai.FinishContentFilter): "refusal",
}

func stopReasonOf(r string) *string {
	s, ok := stopReasons[r]
	if !ok {
		s = "end_turn"
	}
	return &s
}

var anthropicBlockSchema = `{"oneOf":[
	{"type":"object","additionalProperties":false,"required":["type","text"],"properties":{"type":{"const":"text"},"text":{"type":"string"}}},
	{"type":"object","additionalProperties":false,"required":["type","id","name","input"],"properties":{"type":{"const":"tool_use"},
		"id":{"type":"string"},"name":{"type":"string"},"input":{"type":"object"}}}]}`

func anthropicArea(d Deps) Area {
	messages := httpapi.Action{Name: "anthropic.messages.create", Method: http.MethodPost, Path: "/v1/messages",
		Permission: "ai:invoke", Problems: aiProblems, Errors: anthropicErrors, Streams: true,
		Summary: "Anthropic-compatible Messages call (model: an id of GET /v1/models, or a model's own name): the same metered call " +
			"as ai.completions.create; stream: true answers Anthropic's events (message_start ... message_stop)",
		InputSchema: anthropicMessagesSchema,
		OutputSchema: httpapi.OutputOf(AnthropicMessageOut{}, httpapi.WithSchema("content[]", anthropicBlockSchema),
			httpapi.WithSchema("type", `{"const":"message"}`), httpapi.WithSchema("role", `{"const":"assistant"}`),
			httpapi.WithSchema("stop_sequence", `{"type":"null"}`),
			httpapi.WithSchema("stop_reason", `{"enum":["end_turn","max_tokens","tool_use","refusal"]}`)),
		Handle: func(ctx context.Context, c *httpapi.Call) (httpapi.Reply, error) {
			var req AnthropicRequest
			if err := c.Decode(&req); err != nil {
				return httpapi.Reply{}, err
			}
			in, err := req.nativeInput()
			if err != nil {
				return httpapi.Reply{}, err
			}
			caller := callerOf(ctx, c.Principal)
			id := "msg_" + strings.ReplaceAll(httpapi.RequestID(ctx), "-", "")
			if in.Stream {
				return httpapi.Reply{Stream: d.anthropicStream(caller, in, id)}, nil
			}
			out, err := d.Client.Complete(ctx, caller, in)
			if err != nil {
				return httpapi.Reply{}, err
			}
			return httpapi.OK(anthropicAnswer(id, out)), nil
		}}
	return Area{Actions: []httpapi.Action{messages}}
}

func anthropicAnswer(id string, c gatewaycmd.Completion) AnthropicMessageOut {
	out := AnthropicMessageOut{ID: id, Type: "message", Role: "assistant", Model: modelID(c.Provider, c.Model),
		Content: []AnthropicBlock{}, StopReason: stopReasonOf(c.FinishReason),
		Usage: AnthropicUsage{InputTokens: c.Units.InputTokens, OutputTokens: c.Units.OutputTokens}}
	receipt := receiptOf(c.Receipt, c.Sandbox)
	out.Platform = &receipt
	if c.Text != "" {
		out.Content = append(out.Content, AnthropicBlock{Type: "text", Text: c.Text})
	}
	for _, tc := range c.ToolCalls {
		out.Content = append(out.Content, AnthropicBlock{Type: "tool_use", ID: tc.ID, Name: tc.Name, Input: tc.Arguments})
	}
	return out
}

// anthropicBlocks turns the provider-neutral deltas into Anthropic's
// content block events: a block starts when the kind of delta changes (text,
// or a new tool call) and stops before the next one starts.
type anthropicBlocks struct {
	w       *httpapi.EventWriter
	index   int // the open block, -1 none
	kind    string
	toolIdx map[int]int // the delta's tool call index -> its block
}

func (b *anthropicBlocks) open(kind string, block map[string]any) error {
	if err := b.stop(); err != nil {
		return err
	}
	b.index++
	b.kind = kind
	return b.w.Send("content_block_start", map[string]any{"type": "content_block_start", "index": b.index, "content_block": block})
}

func (b *anthropicBlocks) stop() error {
	if b.kind == "" {
		return nil
	}
	b.kind = ""
	return b.w.Send("content_block_stop", map[string]any{"type": "content_block_stop", "index": b.index})
}

func (b *anthropicBlocks) delta(d ai.Delta) error {
	if d.Text != "" {
		if b.kind != "text" {
			if err := b.open("text", map[string]any{"type": "text", "text": ""}); err != nil {
				return err
			}
		}
		return b.w.Send("content_block_delta", map[string]any{"type": "content_block_delta", "index": b.index,
			"delta": map[string]any{"type": "text_delta", "text": d.Text}})
	}
	tc := d.ToolCall
	if tc == nil {
		return nil
	}
	if tc.ID != "" {
		if err := b.open("tool_use", map[string]any{"type": "tool_use", "id": tc.ID, "name": tc.Name, "input": map[string]any{}}); err != nil {
			return err
		}
		b.toolIdx[tc.Index] = b.index
	}
	index, ok := b.toolIdx[tc.Index]
	if !ok || tc.Arguments == "" {
		return nil
	}
	return b.w.Send("content_block_delta", map[string]any{"type": "content_block_delta", "index": index,
		"delta": map[string]any{"type": "input_json_delta", "partial_json": tc.Arguments}})
}

// anthropicStream answers a streamed Messages call in Anthropic's events:
// message_start, the content blocks, message_delta with the stop reason
// and usage, message_stop. A failure after the first event is an error
// event in Anthropic's shape (the SDK raises it).
func (d Deps) anthropicStream(caller gatewaycmd.Caller, in gatewaycmd.CompletionInput, id string) httpapi.EventStream {
	return func(ctx context.Context, w *httpapi.EventWriter) error {
		started := false
		start := func() error {
			started = true
			return w.Send("message_start", map[string]any{"type": "message_start", "message": AnthropicMessageOut{ID: id, Type: "message",
				Role: "assistant", Model: modelID(in.Provider, in.Model), Content: []AnthropicBlock{}}})
		}
		blocks := &anthropicBlocks{w: w, index: -1, toolIdx: map[int]int{}}
		sum, err := d.Client.Stream(ctx, caller, in, func(delta ai.Delta) error {
			if !started {
				if err := start(); err != nil {
					return err
				}
			}
			return blocks.delta(delta)
		})
		if err != nil {
			return err
		}
		if !started {
			if err := start(); err != nil {
				return err
			}
		}
		if err := blocks.stop(); err != nil {
			return err
		}
		receipt := receiptOf(sum.Receipt, sum.Sandbox)
		if err := w.Send("message_delta", map[string]any{"type": "message_delta",
			"delta":    map[string]any{"stop_reason": stopReasonOf(sum.FinishReason), "stop_sequence": nil},
			"usage":    AnthropicUsage{InputTokens: sum.Units.InputTokens, OutputTokens: sum.Units.OutputTokens},
			"platform": receipt}); err != nil {
			return err
		}
		return w.Send("message_stop", map[string]any{"type": "message_stop"})
	}
}
