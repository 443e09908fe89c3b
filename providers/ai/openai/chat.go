package openai

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/platform/backend/providers/ai"
)

// Complete runs POST /chat/completions.
func (c *Client) Complete(ctx context.Context, req ai.CompletionRequest) (*ai.CompletionResponse, error) {
	body, err := c.chatRequest(ai.CapChat, req)
	if err != nil {
		return nil, err
	}
	var resp chatResponse
	meta, err := c.call.Do(ctx, c.request(ai.CapChat, "/chat/completions", body), &resp)
	if err != nil {
		return nil, err
	}
	if len(resp.Choices) == 0 {
		return nil, c.call.Fault(ai.CapChat, meta, "answer without choices")
	}
	ch := resp.Choices[0]
	out := &ai.CompletionResponse{
		FinishReason: finishReason(ch.FinishReason),
		Model:        ai.Pick(resp.Model, body.Model),
		RequestID:    ai.Pick(meta.RequestID, resp.ID),
		UsageMissing: resp.Usage == nil,
	}
	if ch.Message.Content != nil {
		out.Text = *ch.Message.Content
	}
	if ch.Message.Content == nil && ch.Message.Refusal != nil {
		out.FinishReason = ai.FinishContentFilter
	}
	for _, tc := range ch.Message.ToolCalls {
		out.ToolCalls = append(out.ToolCalls, ai.ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: arguments(tc.Function.Arguments)})
	}
	if resp.Usage != nil {
		out.Usage = usage(*resp.Usage)
	}
	return out, nil
}

// chatRequest checks req against the connection and writes it the
// protocol's way.
func (c *Client) chatRequest(asked ai.Capability, req ai.CompletionRequest) (chatRequest, error) {
	if err := ai.CheckCompletion(ai.ProtocolOpenAI, c.conn.Capabilities, asked, req); err != nil {
		return chatRequest{}, err
	}
	out := chatRequest{Model: c.models.ForCompletion(req), Temperature: req.Temperature}
	if out.Model == "" {
		return chatRequest{}, ai.Invalid(ai.ProtocolOpenAI, asked, "no model")
	}
	if c.legacy {
		out.MaxTokens = req.MaxTokens
	} else {
		out.MaxCompletionTokens = req.MaxTokens
	}
	for _, m := range req.Messages {
		out.Messages = append(out.Messages, message(m))
	}
	for _, t := range req.Tools {
		out.Tools = append(out.Tools, chatTool{Type: "function",
			Function: chatFunction{Name: t.Name, Description: t.Description, Parameters: t.Parameters}})
	}
	if rf := req.ResponseFormat; rf != nil {
		out.ResponseFormat = &responseFormat{Type: "json_schema",
			JSONSchema: jsonSchema{Name: rf.Name, Strict: rf.Strict, Schema: rf.Schema}}
	}
	return out, nil
}

func message(m ai.Message) chatMessage {
	out := chatMessage{Role: string(m.Role), ToolCallID: m.ToolCallID}
	if m.Role != ai.RoleTool {
		out.Name = m.Name
	}
	hasImage := false
	for _, p := range m.Content {
		hasImage = hasImage || p.Image != nil
	}
	switch {
	case hasImage:
		parts := make([]contentPart, 0, len(m.Content))
		for _, p := range m.Content {
			if p.Image != nil {
				parts = append(parts, contentPart{Type: "image_url", ImageURL: &imageURL{URL: p.Image.DataURL()}})
			} else {
				parts = append(parts, contentPart{Type: "text", Text: p.Text})
			}
		}
		out.Content = parts
	case len(m.Content) == 0 && len(m.ToolCalls) > 0:
		out.Content = nil // null beside tool calls
	default:
		out.Content = m.TextOf()
	}
	for _, tc := range m.ToolCalls {
		args := string(tc.Arguments)
		if args == "" {
			args = "{}"
		}
		out.ToolCalls = append(out.ToolCalls, chatToolCall{ID: tc.ID, Type: "function",
			Function: chatCallFunction{Name: tc.Name, Arguments: args}})
	}
	return out
}

func finishReason(s string) ai.FinishReason {
	switch s {
	case "stop":
		return ai.FinishStop
	case "length":
		return ai.FinishLength
	case "tool_calls", "function_call":
		return ai.FinishToolCalls
	case "content_filter":
		return ai.FinishContentFilter
	case "":
		return ""
	default:
		return ai.FinishOther
	}
}

func usage(u chatUsage) ai.Usage {
	out := ai.Usage{InputTokens: u.PromptTokens, OutputTokens: u.CompletionTokens}
	if u.PromptTokensDetails != nil {
		out.CacheReadTokens = u.PromptTokensDetails.CachedTokens
	}
	return out
}

// arguments keeps a call's JSON arguments; text that is not JSON (models do
// that) is kept as a JSON string so the value stays valid JSON.
func arguments(s string) []byte {
	s = strings.TrimSpace(s)
	if s == "" {
		return []byte("{}")
	}
	if json.Valid([]byte(s)) {
		return []byte(s)
	}
	b, _ := json.Marshal(s)
	return b
}
