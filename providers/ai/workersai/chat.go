package workersai

import (
	"context"
	"encoding/json"
	"strconv"

	"github.com/platform/backend/providers/ai"
)

type chatRequest struct {
	Messages       []chatMessage   `json:"messages"`
	MaxTokens      int             `json:"max_tokens,omitempty"`
	Temperature    *float64        `json:"temperature,omitempty"`
	Stream         bool            `json:"stream,omitempty"`
	Tools          []chatTool      `json:"tools,omitempty"`
	ResponseFormat *responseFormat `json:"response_format,omitempty"`
}

type chatMessage struct {
	Role       string         `json:"role"`
	Content    any            `json:"content"` // string, or text and image_url parts for vision models
	ToolCallID string         `json:"tool_call_id,omitempty"`
	ToolCalls  []chatToolCall `json:"tool_calls,omitempty"`
}

type contentPart struct {
	Type     string `json:"type"`
	Text     string `json:"text,omitempty"`
	ImageURL *struct {
		URL string `json:"url"`
	} `json:"image_url,omitempty"`
}

type chatTool struct {
	Type     string `json:"type"` // "function"
	Function struct {
		Name        string          `json:"name"`
		Description string          `json:"description,omitempty"`
		Parameters  json.RawMessage `json:"parameters,omitempty"`
	} `json:"function"`
}

type chatToolCall struct {
	ID       string `json:"id,omitempty"`
	Type     string `json:"type,omitempty"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// responseFormat is Workers AI's JSON mode: the schema itself under json_schema.
type responseFormat struct {
	Type       string          `json:"type"` // "json_schema"
	JSONSchema json.RawMessage `json:"json_schema"`
}

// chatResult is what text-generation models put in result. response is a
// string, or the JSON value itself in JSON mode; tool calls come either as
// {name, arguments: object} or in OpenAI's {id, function: {name, arguments}}.
type chatResult struct {
	Response  json.RawMessage  `json:"response"`
	ToolCalls []resultToolCall `json:"tool_calls"`
	Usage     *struct {
		PromptTokens     int64 `json:"prompt_tokens"`
		CompletionTokens int64 `json:"completion_tokens"`
	} `json:"usage"`
}

type resultToolCall struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	Function  *struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"function"`
}

func (t resultToolCall) normalize(i int) ai.ToolCall {
	name, args := t.Name, t.Arguments
	if t.Function != nil {
		name, args = t.Function.Name, t.Function.Arguments
	}
	var s string
	if json.Unmarshal(args, &s) == nil { // arguments as a JSON string holding JSON
		if json.Valid([]byte(s)) {
			args = json.RawMessage(s)
		}
	}
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage(`{}`)
	}
	id := t.ID
	if id == "" {
		id = name + "-" + strconv.Itoa(i)
	}
	return ai.ToolCall{ID: id, Name: name, Arguments: args}
}

func (r chatResult) usage() (ai.Usage, bool) {
	if r.Usage == nil {
		return ai.Usage{}, true
	}
	return ai.Usage{InputTokens: r.Usage.PromptTokens, OutputTokens: r.Usage.CompletionTokens}, false
}

// text reads response: a string, or (JSON mode) the value as JSON text.
func text(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}

// Complete runs accounts/{id}/ai/run/{model} with messages.
func (c *Client) Complete(ctx context.Context, req ai.CompletionRequest) (*ai.CompletionResponse, error) {
	model, body, err := c.chatRequest(ai.CapChat, req)
	if err != nil {
		return nil, err
	}
	r, err := c.run(ai.CapChat, model, body)
	if err != nil {
		return nil, err
	}
	res, meta, err := do[chatResult](ctx, c, r)
	if err != nil {
		return nil, err
	}
	out := &ai.CompletionResponse{Text: text(res.Response), Model: model, RequestID: meta.RequestID, FinishReason: ai.FinishStop}
	for i, tc := range res.ToolCalls {
		out.ToolCalls = append(out.ToolCalls, tc.normalize(i))
	}
	if len(out.ToolCalls) > 0 {
		out.FinishReason = ai.FinishToolCalls
	}
	out.Usage, out.UsageMissing = res.usage()
	return out, nil
}

func (c *Client) chatRequest(asked ai.Capability, req ai.CompletionRequest) (string, chatRequest, error) {
	if err := ai.CheckCompletion(ai.ProtocolWorkersAI, c.conn.Capabilities, asked, req); err != nil {
		return "", chatRequest{}, err
	}
	model := c.models.ForCompletion(req)
	if model == "" {
		return "", chatRequest{}, ai.Invalid(ai.ProtocolWorkersAI, asked, "no model")
	}
	out := chatRequest{MaxTokens: req.MaxTokens, Temperature: req.Temperature}
	for _, m := range req.Messages {
		msg := chatMessage{Role: string(m.Role), ToolCallID: m.ToolCallID, Content: m.TextOf()}
		if req.HasImages() && m.Role == ai.RoleUser {
			var parts []contentPart
			for _, p := range m.Content {
				if p.Image != nil {
					part := contentPart{Type: "image_url"}
					part.ImageURL = &struct {
						URL string `json:"url"`
					}{URL: p.Image.DataURL()}
					parts = append(parts, part)
				} else if p.Text != "" {
					parts = append(parts, contentPart{Type: "text", Text: p.Text})
				}
			}
			msg.Content = parts
		}
		for _, tc := range m.ToolCalls {
			call := chatToolCall{ID: tc.ID, Type: "function"}
			call.Function.Name, call.Function.Arguments = tc.Name, string(tc.Arguments)
			msg.ToolCalls = append(msg.ToolCalls, call)
		}
		out.Messages = append(out.Messages, msg)
	}
	for _, t := range req.Tools {
		tool := chatTool{Type: "function"}
		tool.Function.Name, tool.Function.Description, tool.Function.Parameters = t.Name, t.Description, t.Parameters
		out.Tools = append(out.Tools, tool)
	}
	if rf := req.ResponseFormat; rf != nil {
		out.ResponseFormat = &responseFormat{Type: "json_schema", JSONSchema: rf.Schema}
	}
	return model, out, nil
}
