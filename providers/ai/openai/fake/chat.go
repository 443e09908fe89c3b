package fake

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/platform/backend/providers/ai/aifake"
)

type chatRequest struct {
	Model         string        `json:"model"`
	Messages      []chatMessage `json:"messages"`
	Stream        bool          `json:"stream"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	Tools []struct {
		Type     string `json:"type"`
		Function struct {
			Name       string          `json:"name"`
			Parameters json.RawMessage `json:"parameters"`
		} `json:"function"`
	} `json:"tools"`
	ResponseFormat *struct {
		Type       string `json:"type"`
		JSONSchema struct {
			Name   string          `json:"name"`
			Schema json.RawMessage `json:"schema"`
		} `json:"json_schema"`
	} `json:"response_format"`
}

type chatMessage struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	ToolCallID string          `json:"tool_call_id"`
}

// texts reads content: a string, or parts of type text / image_url.
func (m chatMessage) texts() (text string, images int, ok bool) {
	if len(m.Content) == 0 || string(m.Content) == "null" {
		return "", 0, true
	}
	if json.Unmarshal(m.Content, &text) == nil {
		return text, 0, true
	}
	var parts []struct {
		Type     string `json:"type"`
		Text     string `json:"text"`
		ImageURL *struct {
			URL string `json:"url"`
		} `json:"image_url"`
	}
	if json.Unmarshal(m.Content, &parts) != nil {
		return "", 0, false
	}
	for _, p := range parts {
		switch p.Type {
		case "text":
			text += p.Text
		case "image_url":
			if p.ImageURL == nil || p.ImageURL.URL == "" {
				return "", 0, false
			}
			images++
		default:
			return "", 0, false
		}
	}
	return text, images, true
}

func (s *Server) chat(w http.ResponseWriter, r *http.Request) {
	call, ok := s.Begin(w, r)
	if !ok {
		return
	}
	var req chatRequest
	if !call.Decode(&req) {
		return
	}
	if req.Model == "" || len(req.Messages) == 0 {
		call.Fail(http.StatusBadRequest)
		return
	}
	var chat aifake.Chat
	for _, m := range req.Messages {
		text, images, ok := m.texts()
		if !ok {
			call.Fail(http.StatusBadRequest)
			return
		}
		chat.Turn(m.Role, text)
		chat.Images += images
	}
	for _, t := range req.Tools {
		chat.Tools = append(chat.Tools, aifake.Tool{Name: t.Function.Name, Parameters: t.Function.Parameters})
	}
	if rf := req.ResponseFormat; rf != nil && rf.Type == "json_schema" {
		chat.Schema = rf.JSONSchema.Schema
	}
	ans := aifake.Reply(chat)
	model := req.Model + ModelSuffix
	finish := "stop"
	if ans.ToolCall != nil {
		finish = "tool_calls"
	}
	usage := map[string]any{"prompt_tokens": ans.InputTokens, "completion_tokens": ans.OutputTokens,
		"total_tokens":          ans.InputTokens + ans.OutputTokens,
		"prompt_tokens_details": map[string]any{"cached_tokens": 0}}
	if !req.Stream {
		msg := map[string]any{"role": "assistant", "content": nil, "refusal": nil}
		if ans.ToolCall != nil {
			msg["tool_calls"] = []any{map[string]any{"id": ans.ToolCall.ID, "type": "function",
				"function": map[string]any{"name": ans.ToolCall.Name, "arguments": string(ans.ToolCall.Arguments)}}}
		} else {
			msg["content"] = ans.Text
		}
		body := map[string]any{"id": "chatcmpl-fake", "object": "chat.completion", "created": time.Now().Unix(),
			"model": model, "choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}}}
		if call.WantsUsage() {
			body["usage"] = usage
		}
		call.JSON(body)
		return
	}
	ev := call.Events()
	chunk := func(delta map[string]any, finish any) map[string]any {
		return map[string]any{"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": time.Now().Unix(),
			"model": model, "choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}, "usage": nil}
	}
	if !ev.Send("", chunk(map[string]any{"role": "assistant", "content": ""}, nil)) {
		return
	}
	if tc := ans.ToolCall; tc != nil {
		first := map[string]any{"index": 0, "id": tc.ID, "type": "function", "function": map[string]any{"name": tc.Name, "arguments": ""}}
		if !ev.Delta("", chunk(map[string]any{"tool_calls": []any{first}}, nil)) {
			return
		}
		for _, frag := range aifake.Halves(string(tc.Arguments)) {
			more := map[string]any{"index": 0, "function": map[string]any{"arguments": frag}}
			if !ev.Delta("", chunk(map[string]any{"tool_calls": []any{more}}, nil)) {
				return
			}
		}
	} else {
		for _, piece := range aifake.Pieces(ans.Text) {
			if !ev.Delta("", chunk(map[string]any{"content": piece}, nil)) {
				return
			}
		}
	}
	if !ev.Send("", chunk(map[string]any{}, finish)) {
		return
	}
	if req.StreamOptions != nil && req.StreamOptions.IncludeUsage && call.WantsUsage() {
		if !ev.Send("", map[string]any{"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": time.Now().Unix(),
			"model": model, "choices": []any{}, "usage": usage}) {
			return
		}
	}
	ev.Send("", "[DONE]")
}
