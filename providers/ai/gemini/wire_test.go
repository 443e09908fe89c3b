package gemini_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/platform/backend/providers/ai"
	"github.com/platform/backend/providers/ai/gemini"
	"github.com/platform/backend/providers/ai/gemini/fake"
	"github.com/platform/backend/providers/ai/internal/conformance"
	"github.com/platform/backend/providers/outcome"
)

func TestGenerateContentOnTheWire(t *testing.T) {
	temp := 0.3
	req := ai.CompletionRequest{
		MaxTokens:   100,
		Temperature: &temp,
		Messages: []ai.Message{
			ai.Text(ai.RoleSystem, "be brief"),
			{Role: ai.RoleUser, Content: []ai.Part{{Text: "weather?"}, {Image: &ai.Image{MIMEType: "image/webp", Data: []byte("webp")}}}},
			{Role: ai.RoleAssistant, ToolCalls: []ai.ToolCall{{ID: "c1", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Oslo"}`)}}},
			{Role: ai.RoleTool, ToolCallID: "c1", Content: []ai.Part{{Text: "cold"}}},
		},
		Tools: []ai.Tool{conformance.WeatherTool},
	}
	c, srv := start(t, gemini.Config{})
	if _, err := c.Complete(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	got := srv.Last()
	if got.Method != "POST" || got.Path != "/v1beta/models/gemini-2.5-flash:generateContent" || got.RawQuery != "" ||
		got.Header.Get("X-Goog-Api-Key") != key {
		t.Fatalf("%s %s?%s %v", got.Method, got.Path, got.RawQuery, got.Header)
	}
	var body struct {
		Contents []struct {
			Role  string
			Parts []map[string]any
		}
		SystemInstruction struct{ Parts []map[string]any }
		Tools             []struct{ FunctionDeclarations []map[string]any }
		GenerationConfig  map[string]any
	}
	if err := json.Unmarshal(got.Body, &body); err != nil {
		t.Fatal(err)
	}
	if body.SystemInstruction.Parts[0]["text"] != "be brief" || len(body.Contents) != 3 ||
		body.Contents[0].Role != "user" || body.Contents[1].Role != "model" || body.Contents[2].Role != "user" {
		t.Fatalf("%+v", body)
	}
	img := body.Contents[0].Parts[1]["inline_data"].(map[string]any)
	if img["mime_type"] != "image/webp" || img["data"] != "d2VicA==" {
		t.Fatalf("image %v", img)
	}
	if fc := body.Contents[1].Parts[0]["functionCall"].(map[string]any); fc["name"] != "get_weather" {
		t.Fatalf("call %v", fc)
	}
	fr := body.Contents[2].Parts[0]["functionResponse"].(map[string]any)
	if fr["name"] != "get_weather" || fr["response"].(map[string]any)["result"] != "cold" {
		t.Fatalf("tool result %v", fr)
	}
	decl := body.Tools[0].FunctionDeclarations[0]
	if decl["name"] != "get_weather" || decl["parameters"].(map[string]any)["type"] != "OBJECT" {
		t.Fatalf("declaration %v", decl)
	}
	if gc := body.GenerationConfig; gc["maxOutputTokens"] != float64(100) || gc["temperature"] != 0.3 {
		t.Fatalf("generationConfig %v", gc)
	}
}

func TestThoughtSignatureGoesBackWithTheCall(t *testing.T) {
	c, srv := start(t, gemini.Config{})
	req := conformance.ChatRequest()
	req.Tools = []ai.Tool{conformance.WeatherTool}
	resp, err := c.Complete(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.ToolCalls) != 1 || resp.ToolCalls[0].Signature != fake.Signature {
		t.Fatalf("%+v", resp.ToolCalls)
	}
	req.Messages = append(req.Messages, ai.Message{Role: ai.RoleAssistant, ToolCalls: resp.ToolCalls},
		ai.Message{Role: ai.RoleTool, ToolCallID: resp.ToolCalls[0].ID, Content: []ai.Part{{Text: `{"temp":3}`}}})
	if _, err := c.Complete(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	var body struct {
		Contents []struct {
			Parts []map[string]any
		}
	}
	if err := json.Unmarshal(srv.Last().Body, &body); err != nil {
		t.Fatal(err)
	}
	call := body.Contents[1].Parts[0]
	result := body.Contents[2].Parts[0]["functionResponse"].(map[string]any)
	if call["thoughtSignature"] != fake.Signature || result["response"].(map[string]any)["temp"] != float64(3) {
		t.Fatalf("%v %v", call, result)
	}
}

func TestStreamUsesAltSSE(t *testing.T) {
	c, srv := start(t, gemini.Config{})
	if _, err := conformance.Collect(context.Background(), c, conformance.ChatRequest()); err != nil {
		t.Fatal(err)
	}
	if got := srv.Last(); got.Path != "/v1beta/models/gemini-2.5-flash:streamGenerateContent" || got.RawQuery != "alt=sse" {
		t.Fatalf("%s?%s", got.Path, got.RawQuery)
	}
}

func TestStructuredOutputUsesResponseSchema(t *testing.T) {
	c, srv := start(t, gemini.Config{})
	if _, err := ai.Translate(context.Background(), c, conformance.Translation); err != nil {
		t.Fatal(err)
	}
	gc := srv.Last().JSON()["generationConfig"].(map[string]any)
	schema := gc["responseSchema"].(map[string]any)
	if gc["responseMimeType"] != "application/json" || schema["type"] != "OBJECT" || schema["additionalProperties"] != nil {
		t.Fatalf("%v", gc)
	}
	if order := schema["propertyOrdering"].([]any); len(order) != 2 || order[0] != "farewell" {
		t.Fatalf("property ordering %v", order)
	}
}

func TestImageGenerationOnTheWire(t *testing.T) {
	c, srv := start(t, gemini.Config{})
	resp, err := c.GenerateImage(context.Background(), ai.ImageRequest{Prompt: "a red bicycle", Size: "1920x1080"})
	if err != nil {
		t.Fatal(err)
	}
	got := srv.Last()
	gc := got.JSON()["generationConfig"].(map[string]any)
	if got.Path != "/v1beta/models/gemini-2.5-flash-image:generateContent" ||
		gc["imageConfig"].(map[string]any)["aspectRatio"] != "16:9" || len(gc["responseModalities"].([]any)) != 2 {
		t.Fatalf("%s %v", got.Path, gc)
	}
	if resp.Usage.Images != 1 || resp.Usage.InputTokens != 3 {
		t.Fatalf("%+v", resp.Usage)
	}
	if _, err := c.GenerateImage(context.Background(), ai.ImageRequest{Prompt: "x", N: 2}); outcome.Of(err) != outcome.Invalid {
		t.Fatalf("n=2: %v", err)
	}
}

func TestSchemaRewrite(t *testing.T) {
	tests := map[string]struct{ in, want string }{
		"types upper-case, unknown keywords dropped": {
			`{"$schema":"x","type":"object","additionalProperties":false,"properties":{"a":{"type":"string","format":"date"}},"required":["a"]}`,
			`{"properties":{"a":{"format":"date","type":"STRING"}},"propertyOrdering":["a"],"required":["a"],"type":"OBJECT"}`},
		"nullable from a type list": {`{"type":["integer","null"]}`, `{"nullable":true,"type":"INTEGER"}`},
		"const as enum":             {`{"type":"string","const":"x"}`, `{"enum":["x"],"type":"STRING"}`},
		"nested items and anyOf": {`{"type":"array","items":{"anyOf":[{"type":"string"},{"type":"number"}]}}`,
			`{"items":{"anyOf":[{"type":"STRING"},{"type":"NUMBER"}]},"type":"ARRAY"}`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := string(gemini.Schema(json.RawMessage(tc.in))); got != tc.want {
				t.Fatalf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

func TestConfigValidate(t *testing.T) {
	tests := map[string]struct {
		cfg gemini.Config
		ok  bool
	}{
		"defaults":                {gemini.Config{APIKey: "k"}, true},
		"no key":                  {gemini.Config{}, false},
		"key in the URL":          {gemini.Config{APIKey: "k", BaseURL: "https://generativelanguage.googleapis.com?key=x"}, false},
		"capability it cannot do": {gemini.Config{APIKey: "k", Capabilities: ai.CapTranscription}, false},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if err := tc.cfg.Validate(); (err == nil) != tc.ok {
				t.Fatalf("%v", err)
			}
		})
	}
}
