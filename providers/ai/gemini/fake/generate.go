package fake

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"slices"
	"strings"

	"github.com/platform/backend/providers/ai/aifake"
)

type request struct {
	Contents []struct {
		Role  string `json:"role"`
		Parts []part `json:"parts"`
	} `json:"contents"`
	SystemInstruction *struct {
		Parts []part `json:"parts"`
	} `json:"systemInstruction"`
	Tools []struct {
		FunctionDeclarations []struct {
			Name       string          `json:"name"`
			Parameters json.RawMessage `json:"parameters"`
		} `json:"functionDeclarations"`
	} `json:"tools"`
	GenerationConfig *struct {
		ResponseMIMEType   string          `json:"responseMimeType"`
		ResponseSchema     json.RawMessage `json:"responseSchema"`
		ResponseModalities []string        `json:"responseModalities"`
	} `json:"generationConfig"`
}

// part accepts both spellings of inline data, as the real API does.
type part struct {
	Text             string      `json:"text"`
	InlineData       *inlineData `json:"inline_data"`
	InlineDataCamel  *inlineData `json:"inlineData"`
	FunctionCall     *struct{}   `json:"functionCall"`
	FunctionResponse *struct {
		Name     string          `json:"name"`
		Response json.RawMessage `json:"response"`
	} `json:"functionResponse"`
}

type inlineData struct {
	MIMEType      string `json:"mime_type"`
	MIMETypeCamel string `json:"mimeType"`
	Data          string `json:"data"`
}

func (p part) image() *inlineData {
	if p.InlineData != nil {
		return p.InlineData
	}
	return p.InlineDataCamel
}

func chat(req request) (aifake.Chat, bool) {
	var c aifake.Chat
	if len(req.Contents) == 0 {
		return c, false
	}
	if si := req.SystemInstruction; si != nil {
		for _, p := range si.Parts {
			c.Texts = append(c.Texts, p.Text)
		}
	}
	for _, ct := range req.Contents {
		if ct.Role != "user" && ct.Role != "model" {
			return c, false
		}
		var text string
		c.LastIsToolResult = false
		for _, p := range ct.Parts {
			switch {
			case p.image() != nil:
				img := p.image()
				if img.Data == "" || (img.MIMEType == "" && img.MIMETypeCamel == "") {
					return c, false
				}
				c.Images++
			case p.FunctionResponse != nil:
				if p.FunctionResponse.Name == "" || !isObject(p.FunctionResponse.Response) {
					return c, false
				}
				c.LastIsToolResult, c.LastToolResult = true, string(p.FunctionResponse.Response)
				c.Texts = append(c.Texts, c.LastToolResult)
			case p.FunctionCall != nil:
			default:
				text += p.Text
			}
		}
		c.Texts = append(c.Texts, text)
		if ct.Role == "user" && text != "" {
			c.LastUserText = text
		}
	}
	for _, t := range req.Tools {
		for _, d := range t.FunctionDeclarations {
			c.Tools = append(c.Tools, aifake.Tool{Name: d.Name, Parameters: d.Parameters})
		}
	}
	if gc := req.GenerationConfig; gc != nil && len(gc.ResponseSchema) > 0 {
		if gc.ResponseMIMEType != "application/json" {
			return c, false // the real API wants both
		}
		c.Schema = gc.ResponseSchema
	}
	return c, true
}

func isObject(raw json.RawMessage) bool {
	var m map[string]json.RawMessage
	return json.Unmarshal(raw, &m) == nil && m != nil
}

// models serves {model}:generateContent and {model}:streamGenerateContent.
func (s *Server) models(w http.ResponseWriter, r *http.Request) {
	model, method, _ := strings.Cut(r.PathValue("call"), ":")
	call, ok := s.Begin(w, r)
	if !ok {
		return
	}
	stream := method == "streamGenerateContent"
	if model == "" || (method != "generateContent" && !stream) || (stream && r.URL.Query().Get("alt") != "sse") {
		call.Fail(http.StatusNotFound)
		return
	}
	var req request
	if !call.Decode(&req) {
		return
	}
	c, ok := chat(req)
	if !ok {
		call.Fail(http.StatusBadRequest)
		return
	}
	version := model + ModelSuffix
	if gc := req.GenerationConfig; gc != nil && slices.Contains(gc.ResponseModalities, "IMAGE") && !stream {
		s.image(call, version, c)
		return
	}
	ans := aifake.Reply(c)
	usage := func(final bool) map[string]any {
		u := map[string]any{"promptTokenCount": ans.InputTokens, "totalTokenCount": ans.InputTokens}
		if final {
			u["candidatesTokenCount"], u["totalTokenCount"] = ans.OutputTokens, ans.InputTokens+ans.OutputTokens
		}
		return u
	}
	answer := func(parts []any, finish string, final bool) map[string]any {
		cand := map[string]any{"content": map[string]any{"parts": parts, "role": "model"}, "index": 0}
		if finish != "" {
			cand["finishReason"] = finish
		}
		out := map[string]any{"candidates": []any{cand}, "modelVersion": version, "responseId": s.responseID()}
		if call.WantsUsage() {
			out["usageMetadata"] = usage(final)
		}
		return out
	}
	if !stream {
		if tc := ans.ToolCall; tc != nil {
			call.JSON(answer([]any{functionCall(tc)}, "STOP", true))
		} else {
			call.JSON(answer([]any{map[string]any{"text": ans.Text}}, "STOP", true))
		}
		return
	}
	ev := call.Events()
	if tc := ans.ToolCall; tc != nil {
		ev.Delta("", answer([]any{functionCall(tc)}, "STOP", true))
		return
	}
	pieces := aifake.Pieces(ans.Text)
	for i, p := range pieces {
		last := i == len(pieces)-1
		finish := ""
		if last {
			finish = "STOP"
		}
		if !ev.Delta("", answer([]any{map[string]any{"text": p}}, finish, last)) {
			return
		}
	}
}

// image answers an IMAGE-modality request with one inline PNG.
func (s *Server) image(call *aifake.Call, version string, c aifake.Chat) {
	body := map[string]any{
		"candidates": []any{map[string]any{"content": map[string]any{"role": "model", "parts": []any{
			map[string]any{"text": "Here is your image."},
			map[string]any{"inlineData": map[string]any{"mimeType": "image/png",
				"data": base64.StdEncoding.EncodeToString(aifake.PNG(c.LastUserText, 0))}},
		}}, "finishReason": "STOP", "index": 0}},
		"modelVersion": version, "responseId": s.responseID(),
	}
	if call.WantsUsage() {
		in := aifake.Words(c.LastUserText)
		body["usageMetadata"] = map[string]any{"promptTokenCount": in, "candidatesTokenCount": aifake.ImageOutputTokens,
			"totalTokenCount": in + aifake.ImageOutputTokens}
	}
	call.JSON(body)
}

// Signature is the thoughtSignature the fake puts on its function calls,
// as thinking models do; clients must send it back with the call.
const Signature = "fake-thought-signature"

func functionCall(tc *aifake.ToolCall) map[string]any {
	return map[string]any{"functionCall": map[string]any{"name": tc.Name, "args": tc.Arguments}, "thoughtSignature": Signature}
}
