package anthropic_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/platform/backend/providers/ai"
	"github.com/platform/backend/providers/ai/anthropic"
	"github.com/platform/backend/providers/ai/internal/conformance"
)

func TestMessagesRequestOnTheWire(t *testing.T) {
	temp := 1.5
	req := ai.CompletionRequest{
		Temperature: &temp,
		Messages: []ai.Message{
			ai.Text(ai.RoleSystem, "be brief"),
			ai.Text(ai.RoleSystem, "answer in English"),
			{Role: ai.RoleUser, Content: []ai.Part{{Image: &ai.Image{MIMEType: "image/jpeg", Data: []byte("jpg")}}, {Text: "weather?"}}},
			{Role: ai.RoleAssistant, ToolCalls: []ai.ToolCall{
				{ID: "toolu_1", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Oslo"}`)},
				{ID: "toolu_2", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Rome"}`)},
			}},
			{Role: ai.RoleTool, ToolCallID: "toolu_1", Content: []ai.Part{{Text: "cold"}}},
			{Role: ai.RoleTool, ToolCallID: "toolu_2", Content: []ai.Part{{Text: "warm"}}},
		},
		Tools: []ai.Tool{conformance.WeatherTool},
	}
	c, srv := start(t, anthropic.Config{})
	if _, err := c.Complete(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	got := srv.Last()
	if got.Path != "/v1/messages" || got.Method != "POST" || got.Header.Get("X-Api-Key") != key ||
		got.Header.Get("Anthropic-Version") != "2023-06-01" || got.Header.Get("Authorization") != "" {
		t.Fatalf("%s %s %v", got.Method, got.Path, got.Header)
	}
	var body struct {
		Model       string
		MaxTokens   int `json:"max_tokens"`
		System      string
		Temperature float64
		Messages    []struct {
			Role    string
			Content []map[string]any
		}
		Tools []map[string]any
	}
	if err := json.Unmarshal(got.Body, &body); err != nil {
		t.Fatal(err)
	}
	if body.Model != "claude-haiku-4-5" || body.MaxTokens != anthropic.DefaultMaxTokens || body.Temperature != 1 ||
		body.System != "be brief\n\nanswer in English" {
		t.Fatalf("%+v", body)
	}
	if len(body.Messages) != 3 || body.Messages[0].Role != "user" || body.Messages[1].Role != "assistant" || body.Messages[2].Role != "user" {
		t.Fatalf("turns %+v", body.Messages)
	}
	img := body.Messages[0].Content[0]
	src := img["source"].(map[string]any)
	if img["type"] != "image" || src["type"] != "base64" || src["media_type"] != "image/jpeg" || src["data"] != "anBn" {
		t.Fatalf("image %v", img)
	}
	if use := body.Messages[1].Content[1]; use["type"] != "tool_use" || use["id"] != "toolu_2" || use["input"].(map[string]any)["city"] != "Rome" {
		t.Fatalf("tool_use %v", use)
	}
	results := body.Messages[2].Content
	if len(results) != 2 || results[0]["type"] != "tool_result" || results[0]["tool_use_id"] != "toolu_1" || results[1]["content"] != "warm" {
		t.Fatalf("tool results merged into one user turn: %v", results)
	}
	if body.Tools[0]["name"] != "get_weather" || body.Tools[0]["input_schema"].(map[string]any)["type"] != "object" {
		t.Fatalf("tools %v", body.Tools)
	}
}

func TestStructuredOutputIsAForcedTool(t *testing.T) {
	c, srv := start(t, anthropic.Config{})
	res, err := ai.Translate(context.Background(), c, conformance.Translation)
	if err != nil {
		t.Fatal(err)
	}
	body := srv.Last().JSON()
	choice := body["tool_choice"].(map[string]any)
	tools := body["tools"].([]any)
	if choice["type"] != "tool" || choice["name"] != ai.TranslationSchemaName || len(tools) != 1 ||
		tools[0].(map[string]any)["name"] != ai.TranslationSchemaName {
		t.Fatalf("%v %v", choice, tools)
	}
	if res.Texts["greeting"] != "fake greeting" || res.Response.FinishReason != ai.FinishStop || len(res.Response.ToolCalls) != 0 {
		t.Fatalf("%+v %+v", res.Texts, res.Response)
	}
}

func TestStructuredOutputStreamsAsText(t *testing.T) {
	c, _ := start(t, anthropic.Config{})
	req, err := ai.TranslationCompletion(conformance.Translation)
	if err != nil {
		t.Fatal(err)
	}
	res, err := conformance.Collect(context.Background(), c, req)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]string
	if err := json.Unmarshal([]byte(res.Text), &got); err != nil || got["farewell"] != "fake farewell" || len(res.ToolCalls) != 0 {
		t.Fatalf("%q %v", res.Text, res.ToolCalls)
	}
	if res.Summary.FinishReason != ai.FinishStop {
		t.Fatalf("%+v", res.Summary)
	}
}

func TestConfigValidate(t *testing.T) {
	tests := map[string]struct {
		cfg anthropic.Config
		ok  bool
	}{
		"defaults":                {anthropic.Config{APIKey: "k"}, true},
		"no key":                  {anthropic.Config{}, false},
		"bad URL":                 {anthropic.Config{APIKey: "k", BaseURL: "ftp://x"}, false},
		"capability it cannot do": {anthropic.Config{APIKey: "k", Capabilities: ai.CapEmbeddings}, false},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if err := tc.cfg.Validate(); (err == nil) != tc.ok {
				t.Fatalf("%v", err)
			}
		})
	}
}
