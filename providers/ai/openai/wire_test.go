package openai_test

import (
	"bytes"
	"context"
	"encoding/json"
	"mime"
	"mime/multipart"
	"strings"
	"testing"

	"github.com/platform/backend/providers/ai"
	"github.com/platform/backend/providers/ai/internal/conformance"
	"github.com/platform/backend/providers/ai/openai"
	"github.com/platform/backend/providers/outcome"
)

// What goes on the wire: path, method, headers, body members.

func TestChatRequestOnTheWire(t *testing.T) {
	temp := 0.2
	req := ai.CompletionRequest{
		MaxTokens:   64,
		Temperature: &temp,
		Messages: []ai.Message{
			ai.Text(ai.RoleSystem, "be brief"),
			{Role: ai.RoleUser, Content: []ai.Part{{Text: "what is this"}, {Image: &ai.Image{MIMEType: "image/png", Data: []byte("png")}}}},
			{Role: ai.RoleAssistant, ToolCalls: []ai.ToolCall{{ID: "call_1", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Oslo"}`)}}},
			{Role: ai.RoleTool, ToolCallID: "call_1", Content: []ai.Part{{Text: "cold"}}},
		},
		Tools:          []ai.Tool{conformance.WeatherTool},
		ResponseFormat: &ai.ResponseFormat{Name: "answer", Strict: true, Schema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"string"}}}`)},
	}
	c, srv := start(t, openai.Config{})
	if _, err := c.Complete(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	got := srv.Last()
	if got.Method != "POST" || got.Path != "/v1/chat/completions" || got.Header.Get("Authorization") != "Bearer "+key ||
		got.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("%s %s %v", got.Method, got.Path, got.Header)
	}
	var body struct {
		Model               string
		MaxCompletionTokens int  `json:"max_completion_tokens"`
		MaxTokens           *int `json:"max_tokens"`
		Temperature         float64
		Stream              *bool
		Messages            []map[string]any
		Tools               []map[string]any
		ResponseFormat      map[string]any `json:"response_format"`
	}
	if err := json.Unmarshal(got.Body, &body); err != nil {
		t.Fatal(err)
	}
	if body.Model != "gpt-4o-mini" || body.MaxCompletionTokens != 64 || body.MaxTokens != nil || body.Temperature != 0.2 || body.Stream != nil {
		t.Fatalf("%+v", body)
	}
	if m := body.Messages[0]; m["role"] != "system" || m["content"] != "be brief" {
		t.Fatalf("system %v", m)
	}
	parts := body.Messages[1]["content"].([]any)
	img := parts[1].(map[string]any)
	if img["type"] != "image_url" || img["image_url"].(map[string]any)["url"] != "data:image/png;base64,cG5n" {
		t.Fatalf("image part %v", img)
	}
	asst := body.Messages[2]
	calls := asst["tool_calls"].([]any)
	fn := calls[0].(map[string]any)["function"].(map[string]any)
	if asst["content"] != nil || fn["name"] != "get_weather" || fn["arguments"] != `{"city":"Oslo"}` {
		t.Fatalf("assistant %v", asst)
	}
	if tool := body.Messages[3]; tool["role"] != "tool" || tool["tool_call_id"] != "call_1" || tool["content"] != "cold" {
		t.Fatalf("tool %v", tool)
	}
	if tl := body.Tools[0]; tl["type"] != "function" || tl["function"].(map[string]any)["name"] != "get_weather" {
		t.Fatalf("tools %v", body.Tools)
	}
	rf := body.ResponseFormat
	js := rf["json_schema"].(map[string]any)
	if rf["type"] != "json_schema" || js["name"] != "answer" || js["strict"] != true || js["schema"].(map[string]any)["type"] != "object" {
		t.Fatalf("response_format %v", rf)
	}
}

func TestStreamAsksForUsage(t *testing.T) {
	c, srv := start(t, openai.Config{})
	if _, err := conformance.Collect(context.Background(), c, conformance.ChatRequest()); err != nil {
		t.Fatal(err)
	}
	body := srv.Last().JSON()
	if body["stream"] != true || body["stream_options"].(map[string]any)["include_usage"] != true {
		t.Fatalf("%v", body)
	}
}

func TestLegacyMaxTokens(t *testing.T) {
	c, srv := start(t, openai.Config{LegacyMaxTokens: true})
	if _, err := c.Complete(context.Background(), conformance.ChatRequest()); err != nil {
		t.Fatal(err)
	}
	body := srv.Last().JSON()
	if body["max_tokens"] != float64(64) || body["max_completion_tokens"] != nil {
		t.Fatalf("%v", body)
	}
}

func TestModelAndRequestIDComeFromTheAnswer(t *testing.T) {
	c, _ := start(t, openai.Config{})
	resp, err := c.Complete(context.Background(), conformance.ChatRequest())
	if err != nil {
		t.Fatal(err)
	}
	if resp.Model != "gpt-4o-mini-fake-snapshot" || !strings.HasPrefix(resp.RequestID, "req_fake_") {
		t.Fatalf("model %q request id %q", resp.Model, resp.RequestID)
	}
}

func TestEmbeddingsOnTheWire(t *testing.T) {
	c, srv := start(t, openai.Config{})
	resp, err := c.Embed(context.Background(), ai.EmbeddingRequest{Input: []string{"one two", "three"}, Dimensions: 4})
	if err != nil {
		t.Fatal(err)
	}
	got := srv.Last()
	body := got.JSON()
	if got.Path != "/v1/embeddings" || body["model"] != "text-embedding-3-small" || body["dimensions"] != float64(4) ||
		body["encoding_format"] != "float" || len(body["input"].([]any)) != 2 {
		t.Fatalf("%s %v", got.Path, body)
	}
	if len(resp.Vectors[0]) != 4 || resp.Usage.InputTokens != 3 {
		t.Fatalf("%+v", resp)
	}
}

func TestTranscriptionIsMultipart(t *testing.T) {
	c, srv := start(t, openai.Config{})
	if _, err := c.Transcribe(context.Background(), ai.TranscriptionRequest{Audio: []byte("RIFFaudio"), MIMEType: "audio/wav",
		Language: "de", Prompt: "names: Zoë"}); err != nil {
		t.Fatal(err)
	}
	got := srv.Last()
	mt, params, err := mime.ParseMediaType(got.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/form-data" || got.Path != "/v1/audio/transcriptions" {
		t.Fatalf("%s %s", got.Path, got.Header.Get("Content-Type"))
	}
	form, err := multipart.NewReader(bytes.NewReader(got.Body), params["boundary"]).ReadForm(1 << 20)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"model": "whisper-1", "response_format": "json", "language": "de", "prompt": "names: Zoë"}
	for k, v := range want {
		if form.Value[k][0] != v {
			t.Fatalf("%s = %q", k, form.Value[k])
		}
	}
	if f := form.File["file"]; len(f) != 1 || f[0].Filename != "audio.wav" || f[0].Header.Get("Content-Type") != "audio/wav" {
		t.Fatalf("file %+v", f)
	}
}

func TestImageGenerationOnTheWire(t *testing.T) {
	c, srv := start(t, openai.Config{})
	resp, err := c.GenerateImage(context.Background(), ai.ImageRequest{Prompt: "a red bicycle", N: 2, Size: "1024x1024"})
	if err != nil {
		t.Fatal(err)
	}
	body := srv.Last().JSON()
	if srv.Last().Path != "/v1/images/generations" || body["model"] != "gpt-image-1" || body["n"] != float64(2) || body["size"] != "1024x1024" {
		t.Fatalf("%v", body)
	}
	if resp.Usage.Images != 2 || resp.Usage.InputTokens != 3 || len(resp.Images) != 2 {
		t.Fatalf("%+v", resp.Usage)
	}
}

func TestInputRefusedBeforeTheNetwork(t *testing.T) {
	c, srv := start(t, openai.Config{})
	tests := map[string]ai.CompletionRequest{
		"no messages":        {},
		"unknown role":       {Messages: []ai.Message{ai.Text("robot", "x")}},
		"tool without id":    {Messages: []ai.Message{ai.Text(ai.RoleTool, "x")}},
		"schema not object":  {Messages: []ai.Message{ai.Text(ai.RoleUser, "x")}, ResponseFormat: &ai.ResponseFormat{Name: "a", Schema: json.RawMessage(`{"type":"array"}`)}},
		"tool params broken": {Messages: []ai.Message{ai.Text(ai.RoleUser, "x")}, Tools: []ai.Tool{{Name: "t", Parameters: json.RawMessage(`[1]`)}}},
		"image without type": {Messages: []ai.Message{{Role: ai.RoleUser, Content: []ai.Part{{Image: &ai.Image{Data: []byte("x")}}}}}},
	}
	for name, req := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := c.Complete(context.Background(), req)
			if outcome.Of(err) != outcome.Invalid {
				t.Fatalf("%v", err)
			}
		})
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("%d requests reached the fake", n)
	}
}

func TestConfigValidate(t *testing.T) {
	tests := map[string]struct {
		cfg openai.Config
		ok  bool
	}{
		"defaults":                 {openai.Config{APIKey: "k"}, true},
		"compatible base URL":      {openai.Config{APIKey: "k", BaseURL: "https://api.x.ai/v1"}, true},
		"no key":                   {openai.Config{}, false},
		"relative URL":             {openai.Config{APIKey: "k", BaseURL: "api.openai.com/v1"}, false},
		"credentials in URL":       {openai.Config{APIKey: "k", BaseURL: "https://user:pw@api.openai.com/v1"}, false},
		"negative timeout":         {openai.Config{APIKey: "k", Timeout: -1}, false},
		"capability it cannot do":  {openai.Config{APIKey: "k", Capabilities: ai.CapChat | ai.CapRAGSearch}, false},
		"fewer capabilities is ok": {openai.Config{APIKey: "k", Capabilities: ai.CapChat}, true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if err := tc.cfg.Validate(); (err == nil) != tc.ok {
				t.Fatalf("Validate() = %v", err)
			}
			if _, err := openai.New(tc.cfg); (err == nil) != tc.ok {
				t.Fatalf("New() = %v", err)
			}
		})
	}
}
