package anthropic_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/platform/backend/providers/ai"
	"github.com/platform/backend/providers/ai/anthropic"
	"github.com/platform/backend/providers/ai/internal/conformance"
	"github.com/platform/backend/providers/outcome"
)

func recorded(t *testing.T, status int, header map[string]string, file string) *anthropic.Client {
	t.Helper()
	url, _ := conformance.Recorded(t, status, header, "testdata/"+file)
	c, err := anthropic.New(anthropic.Config{BaseURL: url, APIKey: key, Models: models})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

var jsonHeader = map[string]string{"Content-Type": "application/json", "Request-Id": "req_recorded"}
var sseHeader = map[string]string{"Content-Type": "text/event-stream", "Request-Id": "req_recorded"}

func TestRecordedMessageCountsCacheTokensAsInput(t *testing.T) {
	resp, err := recorded(t, 200, jsonHeader, "message.json").Complete(context.Background(), conformance.ChatRequest())
	if err != nil {
		t.Fatal(err)
	}
	want := ai.Usage{InputTokens: 12 + 100 + 2048, OutputTokens: 15, CacheReadTokens: 2048, CacheWriteTokens: 100}
	if resp.Usage != want || resp.Model != "claude-sonnet-4-5-20250929" || resp.RequestID != "req_recorded" ||
		resp.Text != "Hello! How can I help you today?" || resp.FinishReason != ai.FinishStop {
		t.Fatalf("%+v", resp)
	}
}

func TestRecordedToolUse(t *testing.T) {
	resp, err := recorded(t, 200, jsonHeader, "message_tool_use.json").Complete(context.Background(), conformance.ChatRequest())
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.ToolCalls) != 1 || resp.ToolCalls[0].ID != "toolu_01A09q90qw90lq917835lq9" || resp.FinishReason != ai.FinishToolCalls {
		t.Fatalf("%+v", resp)
	}
	var args map[string]string
	if err := json.Unmarshal(resp.ToolCalls[0].Arguments, &args); err != nil || args["location"] != "San Francisco, CA" {
		t.Fatalf("%s", resp.ToolCalls[0].Arguments)
	}
}

func TestRecordedStream(t *testing.T) {
	res, err := conformance.Collect(context.Background(), recorded(t, 200, sseHeader, "stream.sse"), conformance.ChatRequest())
	if err != nil {
		t.Fatal(err)
	}
	s := res.Summary
	if res.Text != "Hello!" || s.Usage.InputTokens != 25 || s.Usage.OutputTokens != 15 || s.UsageMissing ||
		s.FinishReason != ai.FinishStop || s.Model != "claude-opus-4-1-20250805" {
		t.Fatalf("%q %+v", res.Text, s)
	}
}

func TestRecordedStreamToolUse(t *testing.T) {
	res, err := conformance.Collect(context.Background(), recorded(t, 200, sseHeader, "stream_tool_use.sse"), conformance.ChatRequest())
	if err != nil {
		t.Fatal(err)
	}
	tc := res.ToolCalls[0]
	if res.Text != "Okay, let's check the weather." || tc == nil || tc.ID != "toolu_01T1x1fJ34qAmk2tNTrN7Up6" ||
		tc.Arguments != `{"location": "San Francisco, CA"}` || res.Summary.FinishReason != ai.FinishToolCalls ||
		res.Summary.Usage.OutputTokens != 89 {
		t.Fatalf("%q %+v %+v", res.Text, tc, res.Summary)
	}
}

func TestRecordedStreamErrorEvent(t *testing.T) {
	res, err := conformance.Collect(context.Background(), recorded(t, 200, sseHeader, "stream_error.sse"), conformance.ChatRequest())
	e, ok := ai.AsError(err)
	if !ok || e.Kind != outcome.ProviderFault || e.Code != "overloaded_error" {
		t.Fatalf("%v", err)
	}
	if res.Text != "Partial" || !res.Summary.UsageMissing || res.Summary.Usage.InputTokens != 10 {
		t.Fatalf("%q %+v", res.Text, res.Summary)
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
		{"error_overloaded.json", 529, jsonHeader, outcome.ProviderFault, "overloaded_error"},
		{"error_rate_limit.json", 429, map[string]string{"Retry-After": "17", "Content-Type": "application/json"}, outcome.RateLimited, "rate_limit_error"},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			_, err := recorded(t, tc.status, tc.header, tc.file).Complete(context.Background(), conformance.ChatRequest())
			e, ok := ai.AsError(err)
			if !ok || e.Kind != tc.kind || e.Code != tc.code {
				t.Fatalf("%v", err)
			}
			if tc.status == 429 && e.RetryAfter.Seconds() != 17 {
				t.Fatalf("retry after %s", e.RetryAfter)
			}
		})
	}
}
