package gemini_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/platform/backend/providers/ai"
	"github.com/platform/backend/providers/ai/gemini"
	"github.com/platform/backend/providers/ai/internal/conformance"
	"github.com/platform/backend/providers/outcome"
)

func recorded(t *testing.T, status int, contentType, file string) *gemini.Client {
	t.Helper()
	url, _ := conformance.Recorded(t, status, map[string]string{"Content-Type": contentType}, "testdata/"+file)
	c, err := gemini.New(gemini.Config{BaseURL: url, APIKey: key, Models: models})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

const jsonType = "application/json; charset=UTF-8"

func TestRecordedGenerateContentCountsThoughtsAsOutput(t *testing.T) {
	resp, err := recorded(t, 200, jsonType, "generate_content.json").Complete(context.Background(), conformance.ChatRequest())
	if err != nil {
		t.Fatal(err)
	}
	if resp.Usage != (ai.Usage{InputTokens: 8, OutputTokens: 12 + 1024}) || resp.Model != "gemini-2.5-flash" ||
		resp.RequestID != "lcqYaOaQBdGvz7IPtJ6A2Ag" || resp.FinishReason != ai.FinishStop || resp.Text == "" {
		t.Fatalf("%+v", resp)
	}
}

func TestRecordedFunctionCall(t *testing.T) {
	resp, err := recorded(t, 200, jsonType, "function_call.json").Complete(context.Background(), conformance.ChatRequest())
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.ToolCalls) != 1 || resp.ToolCalls[0].Name != "schedule_meeting" || resp.ToolCalls[0].ID == "" ||
		resp.FinishReason != ai.FinishToolCalls || resp.Usage.CacheReadTokens != 64 {
		t.Fatalf("%+v", resp)
	}
	var args map[string]any
	if err := json.Unmarshal(resp.ToolCalls[0].Arguments, &args); err != nil || args["topic"] != "Q3 planning" {
		t.Fatalf("%s", resp.ToolCalls[0].Arguments)
	}
}

func TestRecordedStream(t *testing.T) {
	res, err := conformance.Collect(context.Background(), recorded(t, 200, "text/event-stream", "stream.sse"), conformance.ChatRequest())
	if err != nil {
		t.Fatal(err)
	}
	s := res.Summary
	if res.Text != "The sky is blue because of Rayleigh scattering." || res.Deltas != 2 || s.UsageMissing ||
		s.Usage != (ai.Usage{InputTokens: 9, OutputTokens: 11}) || s.RequestID != "stream-resp-1" || s.FinishReason != ai.FinishStop {
		t.Fatalf("%q %+v", res.Text, s)
	}
}

func TestRecordedBlockedPromptIsAnEmptyFilteredAnswer(t *testing.T) {
	resp, err := recorded(t, 200, jsonType, "blocked_prompt.json").Complete(context.Background(), conformance.ChatRequest())
	if err != nil {
		t.Fatal(err)
	}
	if resp.FinishReason != ai.FinishContentFilter || resp.Text != "" || resp.Usage.InputTokens != 7 {
		t.Fatalf("%+v", resp)
	}
}

func TestRecordedImageGeneration(t *testing.T) {
	resp, err := recorded(t, 200, jsonType, "image_generation.json").GenerateImage(context.Background(), ai.ImageRequest{Prompt: "banana"})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Images) != 1 || resp.Images[0].MIMEType != "image/png" || len(resp.Images[0].Data) == 0 ||
		resp.Usage != (ai.Usage{InputTokens: 12, OutputTokens: 1290, Images: 1}) {
		t.Fatalf("%+v", resp)
	}
}

func TestRecordedErrors(t *testing.T) {
	tests := []struct {
		file   string
		status int
		kind   outcome.Kind
		code   string
		retry  time.Duration
	}{
		{"error_api_key_invalid.json", 400, outcome.Unauthorized, "API_KEY_INVALID", 0},
		{"error_resource_exhausted.json", 429, outcome.RateLimited, "RESOURCE_EXHAUSTED", 38 * time.Second},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			_, err := recorded(t, tc.status, jsonType, tc.file).Complete(context.Background(), conformance.ChatRequest())
			e, ok := ai.AsError(err)
			if !ok || e.Kind != tc.kind || e.Code != tc.code || e.RetryAfter != tc.retry {
				t.Fatalf("%#v", err)
			}
		})
	}
}
