package anthropic

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"

	"github.com/platform/backend/providers/ai"
)

// Complete runs POST /v1/messages.
func (c *Client) Complete(ctx context.Context, req ai.CompletionRequest) (*ai.CompletionResponse, error) {
	body, err := c.messagesRequest(ai.CapChat, req)
	if err != nil {
		return nil, err
	}
	var resp messagesResponse
	meta, err := c.call.Do(ctx, c.request(ai.CapChat, body), &resp)
	if err != nil {
		return nil, err
	}
	out := &ai.CompletionResponse{
		FinishReason: finishReason(resp.StopReason),
		Model:        ai.Pick(resp.Model, body.Model),
		RequestID:    ai.Pick(meta.RequestID, resp.ID),
	}
	structured := structuredTool(req)
	for _, b := range resp.Content {
		switch {
		case b.Type == "text":
			out.Text += b.Text
		case b.Type == "tool_use" && structured != "" && b.Name == structured:
			out.Text, out.FinishReason = string(b.Input), ai.FinishStop
		case b.Type == "tool_use":
			out.ToolCalls = append(out.ToolCalls, ai.ToolCall{ID: b.ID, Name: b.Name, Arguments: b.Input})
		}
	}
	if structured != "" && out.Text == "" {
		return nil, c.call.Fault(ai.CapChat, meta, "structured answer missing")
	}
	out.Usage, out.UsageMissing = normalize(resp.Usage)
	return out, nil
}

// structuredTool names the forced tool that carries structured output.
func structuredTool(req ai.CompletionRequest) string {
	if req.ResponseFormat == nil {
		return ""
	}
	return req.ResponseFormat.Name
}

// messagesRequest checks req against the connection and writes it the
// protocol's way: system turns joined into system; tool results as
// user-turn tool_result blocks; adjacent turns of one role merged (the API
// wants user and assistant to alternate).
func (c *Client) messagesRequest(asked ai.Capability, req ai.CompletionRequest) (messagesRequest, error) {
	if err := ai.CheckCompletion(ai.ProtocolAnthropic, c.conn.Capabilities, asked, req); err != nil {
		return messagesRequest{}, err
	}
	out := messagesRequest{Model: c.models.ForCompletion(req), MaxTokens: req.MaxTokens, Temperature: req.Temperature}
	if out.Model == "" {
		return messagesRequest{}, ai.Invalid(ai.ProtocolAnthropic, asked, "no model")
	}
	if out.MaxTokens == 0 {
		out.MaxTokens = c.maxTokens
	}
	if t := out.Temperature; t != nil && *t > 1 {
		one := 1.0 // the gateway accepts 0..2, Anthropic 0..1: the most random it allows
		out.Temperature = &one
	}
	var system []string
	for _, m := range req.Messages {
		var role string
		var blocks []block
		switch m.Role {
		case ai.RoleSystem:
			system = append(system, m.TextOf())
			continue
		case ai.RoleTool:
			role = "user"
			blocks = []block{{Type: "tool_result", ToolUseID: m.ToolCallID, Content: m.TextOf()}}
		default:
			role = string(m.Role)
			blocks = contentBlocks(m)
		}
		if len(blocks) == 0 {
			continue
		}
		if n := len(out.Messages); n > 0 && out.Messages[n-1].Role == role {
			out.Messages[n-1].Content = append(out.Messages[n-1].Content, blocks...)
			continue
		}
		out.Messages = append(out.Messages, message{Role: role, Content: blocks})
	}
	out.System = strings.Join(system, "\n\n")
	if len(out.Messages) == 0 {
		return messagesRequest{}, ai.Invalid(ai.ProtocolAnthropic, asked, "no user or assistant message")
	}
	for _, t := range req.Tools {
		out.Tools = append(out.Tools, tool{Name: t.Name, Description: t.Description, InputSchema: schemaOrEmpty(t.Parameters)})
	}
	if rf := req.ResponseFormat; rf != nil {
		for _, t := range req.Tools {
			if t.Name == rf.Name {
				return messagesRequest{}, ai.Invalid(ai.ProtocolAnthropic, asked, "a tool has the response format's name")
			}
		}
		out.Tools = append(out.Tools, tool{Name: rf.Name, InputSchema: rf.Schema,
			Description: "Give your answer as this tool's input, matching its schema exactly."})
		out.ToolChoice = &toolChoice{Type: "tool", Name: rf.Name}
	}
	return out, nil
}

func contentBlocks(m ai.Message) []block {
	var out []block
	for _, p := range m.Content {
		switch {
		case p.Image != nil:
			out = append(out, block{Type: "image", Source: &imageSource{Type: "base64", MediaType: p.Image.MIMEType,
				Data: base64.StdEncoding.EncodeToString(p.Image.Data)}})
		case p.Text != "": // the API refuses empty text blocks
			out = append(out, block{Type: "text", Text: p.Text})
		}
	}
	for _, tc := range m.ToolCalls {
		out = append(out, block{Type: "tool_use", ID: tc.ID, Name: tc.Name, Input: schemaOrEmpty(tc.Arguments)})
	}
	return out
}

func schemaOrEmpty(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return json.RawMessage(`{}`)
	}
	return raw
}

func finishReason(s string) ai.FinishReason {
	switch s {
	case "end_turn", "stop_sequence":
		return ai.FinishStop
	case "max_tokens", "model_context_window_exceeded":
		return ai.FinishLength
	case "tool_use":
		return ai.FinishToolCalls
	case "refusal":
		return ai.FinishContentFilter
	case "":
		return ""
	default:
		return ai.FinishOther
	}
}

// normalize counts every input token billed: input_tokens excludes the
// prompt-cache reads and writes, which are billed too.
func normalize(u *usage) (ai.Usage, bool) {
	if u == nil || u.InputTokens == nil || u.OutputTokens == nil {
		return ai.Usage{}, true
	}
	return ai.Usage{
		InputTokens:      *u.InputTokens + u.CacheCreationInputTokens + u.CacheReadInputTokens,
		OutputTokens:     *u.OutputTokens,
		CacheReadTokens:  u.CacheReadInputTokens,
		CacheWriteTokens: u.CacheCreationInputTokens,
	}, false
}
