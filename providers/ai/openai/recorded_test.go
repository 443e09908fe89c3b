package openai_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/platform/backend/providers/ai"
	"github.com/platform/backend/providers/ai/internal/conformance"
	"github.com/platform/backend/providers/ai/openai"
	"github.com/platform/backend/providers/outcome"
)

// Recorded answers of the real API (documented shapes, with the members the
// fake does not send) must decode into the normalized types.

func recorded(t *testing.T, status int, header map[string]string, file string) *openai.Client {
	t.Helper()
	url, _ := conformance.Recorded(t, status, header, "testdata/"+file)
	c, err := openai.New(openai.Config{BaseURL: url + "/v1", APIKey: key, Models: models})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

var jsonHeader = map[string]string{"Content-Type": "application/json", "X-Request-Id": "req_recorded"}
var sseHeader = map[string]string{"Content-Type": "text/event-stream; charset=utf-8", "X-Request-Id": "req_recorded"}

func TestRecordedChatCompletion(t *testing.T) {
	resp, err := recorded(t, 200, jsonHeader, "chat_completion.json").Complete(context.Background(), conformance.ChatRequest())
	if err != nil {
		t.Fatal(err)
	}
	want := ai.Usage{InputTokens: 1117, OutputTokens: 46, CacheReadTokens: 1024}
	if resp.Usage != want || resp.Model != "gpt-4o-2024-08-06" || resp.RequestID != "req_recorded" ||
		resp.FinishReason != ai.FinishStop || resp.Text == "" {
		t.Fatalf("%+v", resp)
	}
}

func TestRecordedToolCalls(t *testing.T) {
	resp, err := recorded(t, 200, jsonHeader, "chat_tool_calls.json").Complete(context.Background(), conformance.ChatRequest())
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.ToolCalls) != 1 || resp.ToolCalls[0].ID != "call_abc123" || resp.ToolCalls[0].Name != "get_current_weather" {
		t.Fatalf("%+v", resp.ToolCalls)
	}
	var args map[string]string
	if err := json.Unmarshal(resp.ToolCalls[0].Arguments, &args); err != nil || args["location"] != "Boston, MA" {
		t.Fatalf("arguments %s", resp.ToolCalls[0].Arguments)
	}
	if resp.FinishReason != ai.FinishToolCalls || resp.Text != "" {
		t.Fatalf("%+v", resp)
	}
}

func TestRecordedStream(t *testing.T) {
	res, err := conformance.Collect(context.Background(), recorded(t, 200, sseHeader, "chat_stream.sse"), conformance.ChatRequest())
	if err != nil {
		t.Fatal(err)
	}
	s := res.Summary
	if res.Text != "Hello there!" || res.Deltas != 2 || s.Usage.InputTokens != 9 || s.Usage.OutputTokens != 3 ||
		s.Model != "gpt-4o-mini-2024-07-18" || s.FinishReason != ai.FinishStop || s.UsageMissing {
		t.Fatalf("%+v %+v", res, s)
	}
}

func TestRecordedStreamToolCalls(t *testing.T) {
	res, err := conformance.Collect(context.Background(), recorded(t, 200, sseHeader, "chat_stream_tool_calls.sse"), conformance.ChatRequest())
	if err != nil {
		t.Fatal(err)
	}
	tc := res.ToolCalls[0]
	if tc == nil || tc.ID != "call_DdmO9pD3xa9XTPNJ32zg2hcA" || tc.Name != "get_weather" || tc.Arguments != `{"location":"Paris, France"}` {
		t.Fatalf("%+v", tc)
	}
	if res.Summary.FinishReason != ai.FinishToolCalls || res.Summary.Usage.OutputTokens != 16 {
		t.Fatalf("%+v", res.Summary)
	}
}

func TestRecordedEmbeddingsInIndexOrder(t *testing.T) {
	resp, err := recorded(t, 200, jsonHeader, "embeddings.json").Embed(context.Background(), ai.EmbeddingRequest{Input: []string{"a", "b"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Vectors) != 2 || resp.Vectors[0][0] != float32(0.0023064255) || resp.Vectors[1][0] != float32(-0.0028842222) ||
		resp.Usage.InputTokens != 8 {
		t.Fatalf("%+v", resp)
	}
}

func TestRecordedTranscriptions(t *testing.T) {
	tests := map[string]ai.Usage{
		"transcription.json":        {AudioSeconds: 9},
		"transcription_tokens.json": {InputTokens: 14, OutputTokens: 45},
	}
	for file, want := range tests {
		t.Run(file, func(t *testing.T) {
			resp, err := recorded(t, 200, jsonHeader, file).Transcribe(context.Background(),
				ai.TranscriptionRequest{Audio: []byte("x"), MIMEType: "audio/wav"})
			if err != nil {
				t.Fatal(err)
			}
			if resp.Usage != want || resp.Text == "" {
				t.Fatalf("%+v", resp)
			}
		})
	}
}

func TestRecordedImageGeneration(t *testing.T) {
	resp, err := recorded(t, 200, jsonHeader, "image_generation.json").GenerateImage(context.Background(), ai.ImageRequest{Prompt: "x"})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Images) != 1 || resp.Images[0].MIMEType != "image/png" ||
		resp.Usage != (ai.Usage{Images: 1, InputTokens: 50, OutputTokens: 50}) {
		t.Fatalf("%+v", resp)
	}
}

func TestRecordedErrors(t *testing.T) {
	tests := []struct {
		file   string
		status int
		header map[string]string
		kind   outcome.Kind
		code   string
	}{
		{"error_rate_limit.json", 429, map[string]string{"Retry-After": "20", "Content-Type": "application/json"}, outcome.RateLimited, "rate_limit_exceeded"},
		{"error_invalid_key.json", 401, jsonHeader, outcome.Unauthorized, "invalid_api_key"},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			_, err := recorded(t, tc.status, tc.header, tc.file).Complete(context.Background(), conformance.ChatRequest())
			e, ok := ai.AsError(err)
			if !ok || e.Kind != tc.kind || e.Code != tc.code || e.Status != tc.status {
				t.Fatalf("%#v", err)
			}
			if tc.status == http.StatusTooManyRequests && e.RetryAfter.Seconds() != 20 {
				t.Fatalf("retry after %s", e.RetryAfter)
			}
		})
	}
}
