package fake

import (
	"encoding/json"
	"net/http"

	"github.com/platform/backend/providers/ai/aifake"
)

type request struct {
	Model     string          `json:"model"`
	MaxTokens int             `json:"max_tokens"`
	System    json.RawMessage `json:"system"`
	Stream    bool            `json:"stream"`
	Messages  []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	Tools []struct {
		Name        string          `json:"name"`
		InputSchema json.RawMessage `json:"input_schema"`
	} `json:"tools"`
	ToolChoice *struct {
		Type string `json:"type"`
		Name string `json:"name"`
	} `json:"tool_choice"`
}

type block struct {
	Type    string          `json:"type"`
	Text    string          `json:"text"`
	Content json.RawMessage `json:"content"` // tool_result: string or blocks
	Source  *struct {
		Type      string `json:"type"`
		MediaType string `json:"media_type"`
		Data      string `json:"data"`
	} `json:"source"`
}

// blocks reads content: a string or an array of blocks.
func blocks(raw json.RawMessage) ([]block, bool) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []block{{Type: "text", Text: s}}, true
	}
	var bs []block
	return bs, json.Unmarshal(raw, &bs) == nil
}

// chat reads the request the way the real API validates it: max_tokens
// required, roles user/assistant alternating from user, images base64.
func chat(req request) (aifake.Chat, bool) {
	var c aifake.Chat
	if req.Model == "" || req.MaxTokens <= 0 || len(req.Messages) == 0 {
		return c, false
	}
	if len(req.System) > 0 {
		var sys string
		if json.Unmarshal(req.System, &sys) != nil {
			return c, false
		}
		c.Texts = append(c.Texts, sys)
	}
	for i, m := range req.Messages {
		want := "user"
		if i%2 == 1 {
			want = "assistant"
		}
		bs, ok := blocks(m.Content)
		if m.Role != want || !ok {
			return c, false
		}
		var text string
		c.LastIsToolResult = false
		for _, b := range bs {
			switch b.Type {
			case "text":
				if b.Text == "" {
					return c, false // the API refuses empty text blocks
				}
				text += b.Text
			case "image":
				if b.Source == nil || b.Source.Type != "base64" || b.Source.MediaType == "" || b.Source.Data == "" {
					return c, false
				}
				c.Images++
			case "tool_result":
				var s string
				_ = json.Unmarshal(b.Content, &s)
				c.Texts = append(c.Texts, s)
				c.LastIsToolResult, c.LastToolResult = true, s
			case "tool_use":
			default:
				return c, false
			}
		}
		c.Texts = append(c.Texts, text)
		if m.Role == "user" && text != "" {
			c.LastUserText = text
		}
	}
	if req.Messages[len(req.Messages)-1].Role != "user" {
		return c, false
	}
	for _, t := range req.Tools {
		c.Tools = append(c.Tools, aifake.Tool{Name: t.Name, Parameters: t.InputSchema})
	}
	if tc := req.ToolChoice; tc != nil && tc.Type == "tool" {
		c.ForcedTool = tc.Name
	}
	return c, true
}

func (s *Server) messages(w http.ResponseWriter, r *http.Request) {
	call, ok := s.Begin(w, r)
	if !ok {
		return
	}
	var req request
	if !call.Decode(&req) {
		return
	}
	c, ok := chat(req)
	if !ok || r.Header.Get("Anthropic-Version") != Version {
		call.Fail(http.StatusBadRequest)
		return
	}
	ans := aifake.Reply(c)
	model := req.Model + ModelSuffix
	stop := "end_turn"
	if ans.ToolCall != nil {
		stop = "tool_use"
	}
	if req.Stream {
		s.stream(call, model, stop, ans)
		return
	}
	var content []any
	if tc := ans.ToolCall; tc != nil {
		content = []any{map[string]any{"type": "tool_use", "id": "toolu_" + tc.Name, "name": tc.Name, "input": tc.Arguments}}
	} else {
		content = []any{map[string]any{"type": "text", "text": ans.Text}}
	}
	body := map[string]any{"id": "msg_fake", "type": "message", "role": "assistant", "model": model,
		"content": content, "stop_reason": stop, "stop_sequence": nil}
	if call.WantsUsage() {
		body["usage"] = map[string]any{"input_tokens": ans.InputTokens, "output_tokens": ans.OutputTokens,
			"cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
	}
	call.JSON(body)
}

// stream writes the API's event sequence: message_start, content_block_start,
// ping, content_block_delta..., content_block_stop, message_delta, message_stop.
func (s *Server) stream(call *aifake.Call, model, stop string, ans aifake.Answer) {
	ev := call.Events()
	msg := map[string]any{"id": "msg_fake", "type": "message", "role": "assistant", "model": model,
		"content": []any{}, "stop_reason": nil, "stop_sequence": nil}
	if call.WantsUsage() {
		msg["usage"] = map[string]any{"input_tokens": ans.InputTokens, "output_tokens": 1,
			"cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
	}
	if !ev.Send("message_start", map[string]any{"type": "message_start", "message": msg}) {
		return
	}
	var start map[string]any
	var deltas []map[string]any
	if tc := ans.ToolCall; tc != nil {
		start = map[string]any{"type": "tool_use", "id": "toolu_" + tc.Name, "name": tc.Name, "input": map[string]any{}}
		for _, frag := range aifake.Halves(string(tc.Arguments)) {
			deltas = append(deltas, map[string]any{"type": "input_json_delta", "partial_json": frag})
		}
	} else {
		start = map[string]any{"type": "text", "text": ""}
		for _, piece := range aifake.Pieces(ans.Text) {
			deltas = append(deltas, map[string]any{"type": "text_delta", "text": piece})
		}
	}
	if !ev.Send("content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": start}) {
		return
	}
	if !ev.Send("ping", map[string]any{"type": "ping"}) {
		return
	}
	for _, d := range deltas {
		if !ev.Delta("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0, "delta": d}) {
			return
		}
	}
	if !ev.Send("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0}) {
		return
	}
	md := map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}}
	if call.WantsUsage() {
		md["usage"] = map[string]any{"output_tokens": ans.OutputTokens}
	}
	if !ev.Send("message_delta", md) {
		return
	}
	ev.Send("message_stop", map[string]any{"type": "message_stop"})
}
