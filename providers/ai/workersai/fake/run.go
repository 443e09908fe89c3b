package fake

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/platform/backend/providers/ai/aifake"
)

// run serves ai/run/{model}; the model's name says what kind of model it is.
func (s *Server) run(w http.ResponseWriter, r *http.Request) {
	call, ok := s.begin(w, r)
	if !ok {
		return
	}
	model := r.PathValue("model")
	switch {
	case !strings.HasPrefix(model, "@cf/") && !strings.HasPrefix(model, "@hf/"):
		call.Fail(http.StatusNotFound)
	case strings.Contains(model, "bge") || strings.Contains(model, "embedding"):
		s.embeddings(call)
	case strings.Contains(model, "whisper"):
		s.whisper(call)
	case strings.Contains(model, "flux") || strings.Contains(model, "diffusion"):
		s.image(call)
	default:
		s.chat(call)
	}
}

func (s *Server) embeddings(call *aifake.Call) {
	var req struct {
		Text json.RawMessage `json:"text"`
	}
	if !call.Decode(&req) {
		return
	}
	var texts []string
	var one string
	if json.Unmarshal(req.Text, &one) == nil {
		texts = []string{one}
	} else if json.Unmarshal(req.Text, &texts) != nil || len(texts) == 0 {
		call.Fail(http.StatusBadRequest)
		return
	}
	const dims = 8
	data := make([][]float32, len(texts))
	for i, t := range texts {
		data[i] = aifake.Vector(t, dims)
	}
	ok(call, map[string]any{"shape": []int{len(texts), dims}, "data": data, "pooling": "mean"})
}

func (s *Server) whisper(call *aifake.Call) {
	var req struct {
		Audio    string `json:"audio"`
		Language string `json:"language"`
	}
	if !call.Decode(&req) {
		return
	}
	audio, err := base64.StdEncoding.DecodeString(req.Audio)
	if err != nil || len(audio) == 0 {
		call.Fail(http.StatusBadRequest)
		return
	}
	text := aifake.Transcript(len(audio))
	res := map[string]any{"text": text, "word_count": aifake.Words(text), "vtt": "WEBVTT\n\n00:00.000 --> 00:01.000\n" + text}
	if call.WantsUsage() {
		res["transcription_info"] = map[string]any{"language": fallback(req.Language, "en"), "language_probability": 1,
			"duration": aifake.AudioSeconds(len(audio)), "duration_after_vad": aifake.AudioSeconds(len(audio))}
	}
	ok(call, res)
}

func (s *Server) image(call *aifake.Call) {
	var req struct {
		Prompt string `json:"prompt"`
	}
	if !call.Decode(&req) {
		return
	}
	if req.Prompt == "" {
		call.Fail(http.StatusBadRequest)
		return
	}
	ok(call, map[string]any{"image": base64.StdEncoding.EncodeToString(aifake.PNG(req.Prompt, 0))})
}

func fallback(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

type chatRequest struct {
	Messages []struct {
		Role       string          `json:"role"`
		Content    json.RawMessage `json:"content"`
		ToolCallID string          `json:"tool_call_id"`
	} `json:"messages"`
	Prompt string `json:"prompt"`
	Stream bool   `json:"stream"`
	Tools  []struct {
		Type     string `json:"type"`
		Function struct {
			Name       string          `json:"name"`
			Parameters json.RawMessage `json:"parameters"`
		} `json:"function"`
	} `json:"tools"`
	ResponseFormat *struct {
		Type       string          `json:"type"`
		JSONSchema json.RawMessage `json:"json_schema"`
	} `json:"response_format"`
}

func (s *Server) chat(call *aifake.Call) {
	var req chatRequest
	if !call.Decode(&req) {
		return
	}
	var c aifake.Chat
	if req.Prompt != "" {
		req.Messages = append(req.Messages, struct {
			Role       string          `json:"role"`
			Content    json.RawMessage `json:"content"`
			ToolCallID string          `json:"tool_call_id"`
		}{Role: "user", Content: mustJSON(req.Prompt)})
	}
	if len(req.Messages) == 0 {
		call.Fail(http.StatusBadRequest)
		return
	}
	for _, m := range req.Messages {
		var text string
		if json.Unmarshal(m.Content, &text) != nil {
			var parts []struct {
				Type     string `json:"type"`
				Text     string `json:"text"`
				ImageURL *struct {
					URL string `json:"url"`
				} `json:"image_url"`
			}
			if json.Unmarshal(m.Content, &parts) != nil {
				call.Fail(http.StatusBadRequest)
				return
			}
			for _, p := range parts {
				if p.Type == "image_url" && p.ImageURL != nil && strings.HasPrefix(p.ImageURL.URL, "data:") {
					c.Images++
				}
				text += p.Text
			}
		}
		c.Turn(m.Role, text)
	}
	for _, t := range req.Tools {
		c.Tools = append(c.Tools, aifake.Tool{Name: t.Function.Name, Parameters: t.Function.Parameters})
	}
	if rf := req.ResponseFormat; rf != nil && rf.Type == "json_schema" {
		c.Schema = rf.JSONSchema
	}
	ans := aifake.Reply(c)
	usage := map[string]any{"prompt_tokens": ans.InputTokens, "completion_tokens": ans.OutputTokens,
		"total_tokens": ans.InputTokens + ans.OutputTokens}
	var calls []any
	if tc := ans.ToolCall; tc != nil {
		calls = []any{map[string]any{"name": tc.Name, "arguments": tc.Arguments}}
	}
	if !req.Stream {
		res := map[string]any{"response": ans.Text, "tool_calls": calls}
		if len(c.Schema) > 0 {
			res["response"] = json.RawMessage(ans.Text) // JSON mode answers the value itself
		}
		if call.WantsUsage() {
			res["usage"] = usage
		}
		ok(call, res)
		return
	}
	ev := call.Events()
	if calls != nil {
		if !ev.Delta("", map[string]any{"response": "", "tool_calls": calls}) {
			return
		}
	} else {
		for _, p := range aifake.Pieces(ans.Text) {
			if !ev.Delta("", map[string]any{"response": p, "p": "abcdefgh"}) {
				return
			}
		}
	}
	if call.WantsUsage() {
		if !ev.Send("", map[string]any{"response": "", "usage": usage}) {
			return
		}
	}
	ev.Send("", "[DONE]")
}

func mustJSON(s string) json.RawMessage {
	b, _ := json.Marshal(s)
	return b
}
