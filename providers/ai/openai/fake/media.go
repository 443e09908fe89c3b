package fake

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/platform/backend/providers/ai/aifake"
)

func (s *Server) embeddings(w http.ResponseWriter, r *http.Request) {
	call, ok := s.Begin(w, r)
	if !ok {
		return
	}
	var req struct {
		Model      string          `json:"model"`
		Input      json.RawMessage `json:"input"`
		Dimensions int             `json:"dimensions"`
	}
	if !call.Decode(&req) {
		return
	}
	var inputs []string
	var one string
	if json.Unmarshal(req.Input, &one) == nil {
		inputs = []string{one}
	} else if json.Unmarshal(req.Input, &inputs) != nil || len(inputs) == 0 || req.Model == "" {
		call.Fail(http.StatusBadRequest)
		return
	}
	dims := req.Dimensions
	if dims <= 0 {
		dims = 8
	}
	data := make([]any, len(inputs))
	tokens := 0
	for i, in := range inputs {
		data[i] = map[string]any{"object": "embedding", "index": i, "embedding": aifake.Vector(in, dims)}
		tokens += aifake.Words(in)
	}
	body := map[string]any{"object": "list", "data": data, "model": req.Model + ModelSuffix}
	if call.WantsUsage() {
		body["usage"] = map[string]any{"prompt_tokens": tokens, "total_tokens": tokens}
	}
	call.JSON(body)
}

// transcriptions reads multipart/form-data: file, model, language, prompt,
// response_format (json only, like gpt-4o-transcribe).
func (s *Server) transcriptions(w http.ResponseWriter, r *http.Request) {
	call, ok := s.Begin(w, r)
	if !ok {
		return
	}
	r.Body = io.NopCloser(strings.NewReader(string(call.Body)))
	if err := r.ParseMultipartForm(64 << 20); err != nil {
		call.Fail(http.StatusBadRequest)
		return
	}
	f, _, err := r.FormFile("file")
	if err != nil || r.FormValue("model") == "" || (r.FormValue("response_format") != "" && r.FormValue("response_format") != "json") {
		call.Fail(http.StatusBadRequest)
		return
	}
	audio, _ := io.ReadAll(f)
	body := map[string]any{"text": aifake.Transcript(len(audio))}
	if call.WantsUsage() {
		body["usage"] = map[string]any{"type": "duration", "seconds": aifake.AudioSeconds(len(audio))}
	}
	call.JSON(body)
}

func (s *Server) images(w http.ResponseWriter, r *http.Request) {
	call, ok := s.Begin(w, r)
	if !ok {
		return
	}
	var req struct {
		Model  string `json:"model"`
		Prompt string `json:"prompt"`
		N      int    `json:"n"`
	}
	if !call.Decode(&req) {
		return
	}
	if req.Model == "" || req.Prompt == "" {
		call.Fail(http.StatusBadRequest)
		return
	}
	n := max(req.N, 1)
	data := make([]any, n)
	for i := range data {
		data[i] = map[string]any{"b64_json": base64.StdEncoding.EncodeToString(aifake.PNG(req.Prompt, i))}
	}
	body := map[string]any{"created": time.Now().Unix(), "data": data}
	if call.WantsUsage() {
		body["usage"] = map[string]any{"input_tokens": aifake.Words(req.Prompt),
			"output_tokens": n * aifake.ImageOutputTokens, "total_tokens": aifake.Words(req.Prompt) + n*aifake.ImageOutputTokens}
	}
	call.JSON(body)
}
