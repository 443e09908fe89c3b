package workersai_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/platform/backend/providers/ai"
	"github.com/platform/backend/providers/ai/internal/conformance"
	"github.com/platform/backend/providers/ai/workersai"
	"github.com/platform/backend/providers/outcome"
)

func recorded(t *testing.T, status int, header map[string]string, file string) *workersai.Client {
	t.Helper()
	url, _ := conformance.Recorded(t, status, header, "testdata/"+file)
	c, err := workersai.New(workersai.Config{BaseURL: url, APIKey: key, AccountID: account, Models: models()})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

var jsonHeader = map[string]string{"Content-Type": "application/json", "Cf-Ray": "8f1e2d3c4b5a6978-AMS"}

func TestRecordedChat(t *testing.T) {
	resp, err := recorded(t, 200, jsonHeader, "chat.json").Complete(context.Background(), conformance.ChatRequest())
	if err != nil {
		t.Fatal(err)
	}
	if resp.Usage != (ai.Usage{InputTokens: 42, OutputTokens: 12}) || resp.RequestID != "8f1e2d3c4b5a6978-AMS" ||
		resp.Model != "@cf/meta/llama-3.3-70b-instruct-fp8-fast" || resp.Text == "" || len(resp.ToolCalls) != 0 {
		t.Fatalf("%+v", resp)
	}
}

func TestRecordedJSONModeAnswersAnObject(t *testing.T) {
	resp, err := recorded(t, 200, jsonHeader, "chat_json_mode.json").Complete(context.Background(), conformance.ChatRequest())
	if err != nil {
		t.Fatal(err)
	}
	var got struct{ Capital string }
	if err := json.Unmarshal([]byte(resp.Text), &got); err != nil || got.Capital != "New Delhi" {
		t.Fatalf("%q", resp.Text)
	}
}

func TestRecordedToolCalls(t *testing.T) {
	resp, err := recorded(t, 200, jsonHeader, "chat_tool_calls.json").Complete(context.Background(), conformance.ChatRequest())
	if err != nil {
		t.Fatal(err)
	}
	var args map[string]string
	if len(resp.ToolCalls) != 1 || json.Unmarshal(resp.ToolCalls[0].Arguments, &args) != nil || args["location"] != "Austin, TX" ||
		resp.ToolCalls[0].Name != "get_weather" || resp.FinishReason != ai.FinishToolCalls || resp.Text != "" {
		t.Fatalf("%+v", resp)
	}
}

func TestRecordedStream(t *testing.T) {
	res, err := conformance.Collect(context.Background(), recorded(t, 200, map[string]string{"Content-Type": "text/event-stream"}, "chat_stream.sse"), conformance.ChatRequest())
	if err != nil {
		t.Fatal(err)
	}
	if res.Text != "New York is" || res.Deltas != 3 || res.Summary.Usage != (ai.Usage{InputTokens: 17, OutputTokens: 3}) || res.Summary.UsageMissing {
		t.Fatalf("%q %+v", res.Text, res.Summary)
	}
}

func TestRecordedEmbeddings(t *testing.T) {
	resp, err := recorded(t, 200, jsonHeader, "embeddings.json").Embed(context.Background(), ai.EmbeddingRequest{Input: []string{"héllo", "world"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Vectors) != 2 || len(resp.Vectors[1]) != 4 || resp.Vectors[1][0] != float32(-0.0301) || resp.Usage.InputCharacters != 10 {
		t.Fatalf("%+v", resp)
	}
}

func TestRecordedWhisper(t *testing.T) {
	resp, err := recorded(t, 200, jsonHeader, "whisper.json").Transcribe(context.Background(), ai.TranscriptionRequest{Audio: []byte("x")})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Usage.AudioSeconds != 12.48 || resp.Language != "en" || resp.Text != "Hello, this is a test recording of the platform." {
		t.Fatalf("%+v", resp)
	}
}

func TestRecordedToMarkdown(t *testing.T) {
	files := []ai.File{{Name: "good.html", MIMEType: "text/html", Data: []byte("<p>x</p>")}, {Name: "bad.pdf", MIMEType: "application/pdf", Data: []byte("%PDF")}}
	resp, err := recorded(t, 200, jsonHeader, "tomarkdown.json").ConvertToMarkdown(context.Background(), ai.MarkdownRequest{Files: files})
	if err != nil {
		t.Fatal(err)
	}
	good, bad := resp.Documents[0], resp.Documents[1]
	if good.Failed || good.Tokens != 49 || good.Markdown == "" || !bad.Failed || bad.Markdown != "" || resp.Usage.OutputTokens != 49 {
		t.Fatalf("%+v", resp)
	}
	resp, err = recorded(t, 200, jsonHeader, "tomarkdown_string_tokens.json").ConvertToMarkdown(context.Background(),
		ai.MarkdownRequest{Files: files[:1]})
	if err != nil || resp.Documents[0].Tokens != 7 {
		t.Fatalf("%v %+v", err, resp)
	}
}

func TestRecordedAutoRAGSearch(t *testing.T) {
	resp, err := recorded(t, 200, jsonHeader, "autorag_search.json").SearchRAG(context.Background(), ai.RAGSearchRequest{Instance: "my-rag", Query: "llama"})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Results) != 2 || resp.Results[0].Filename != "llama/logistics/llama-logistics.md" || resp.Results[0].Score != 0.45 ||
		resp.Results[1].Text != "Start with basic commands like 'Espresso Express!'" || resp.SearchQuery == "" || resp.NextPage != "" {
		t.Fatalf("%+v", resp)
	}
}

func TestRecordedFluxImage(t *testing.T) {
	resp, err := recorded(t, 200, jsonHeader, "flux.json").GenerateImage(context.Background(), ai.ImageRequest{Prompt: "x"})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Images) != 1 || resp.Images[0].MIMEType != "image/jpeg" || resp.Usage.Images != 1 {
		t.Fatalf("%+v", resp)
	}
}

func TestRecordedErrors(t *testing.T) {
	tests := []struct {
		file   string
		status int
		kind   outcome.Kind
		code   string
	}{
		{"error_auth.json", 403, outcome.Unauthorized, "10000"},
		{"error_capacity.json", 429, outcome.RateLimited, "3040"},
		{"unsuccessful_200.json", 200, outcome.ProviderFault, "3030"},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			_, err := recorded(t, tc.status, jsonHeader, tc.file).Complete(context.Background(), conformance.ChatRequest())
			e, ok := ai.AsError(err)
			if !ok || e.Kind != tc.kind || e.Code != tc.code || e.RequestID != "8f1e2d3c4b5a6978-AMS" {
				t.Fatalf("%#v", err)
			}
		})
	}
}
