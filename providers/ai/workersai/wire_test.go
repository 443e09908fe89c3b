package workersai_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"mime"
	"mime/multipart"
	"testing"

	"github.com/platform/backend/providers/ai"
	"github.com/platform/backend/providers/ai/internal/conformance"
	"github.com/platform/backend/providers/ai/workersai"
	"github.com/platform/backend/providers/outcome"
)

const runPrefix = "/client/v4/accounts/" + account + "/ai/run/"

func TestChatOnTheWire(t *testing.T) {
	c, srv := start(t, workersai.Config{})
	req := conformance.ChatRequest()
	req.Tools = []ai.Tool{conformance.WeatherTool}
	if _, err := c.Complete(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	got := srv.Last()
	body := got.JSON()
	if got.Method != "POST" || got.Path != runPrefix+"@cf/meta/llama-3.3-70b-instruct-fp8-fast" ||
		got.Header.Get("Authorization") != "Bearer "+key || body["max_tokens"] != float64(64) || body["stream"] != nil {
		t.Fatalf("%s %v %v", got.Path, got.Header, body)
	}
	msg := body["messages"].([]any)[0].(map[string]any)
	tool := body["tools"].([]any)[0].(map[string]any)
	if msg["role"] != "user" || msg["content"] != conformance.Prompt || tool["type"] != "function" ||
		tool["function"].(map[string]any)["name"] != "get_weather" {
		t.Fatalf("%v %v", msg, tool)
	}
}

func TestVisionUsesTheVisionModelAndImageParts(t *testing.T) {
	c, srv := start(t, workersai.Config{})
	if _, err := ai.DescribeImage(context.Background(), c, ai.ImageDescriptionRequest{Image: ai.Image{MIMEType: "image/png", Data: []byte("png")}}); err != nil {
		t.Fatal(err)
	}
	got := srv.Last()
	parts := got.JSON()["messages"].([]any)[0].(map[string]any)["content"].([]any)
	img := parts[0].(map[string]any)
	if got.Path != runPrefix+"@cf/meta/llama-3.2-11b-vision-instruct" || img["type"] != "image_url" ||
		img["image_url"].(map[string]any)["url"] != "data:image/png;base64,cG5n" || parts[1].(map[string]any)["text"] != ai.DefaultDescribePrompt {
		t.Fatalf("%s %v", got.Path, parts)
	}
}

func TestJSONModeOnTheWire(t *testing.T) {
	c, srv := start(t, workersai.Config{})
	res, err := ai.Translate(context.Background(), c, conformance.Translation)
	if err != nil {
		t.Fatal(err)
	}
	rf := srv.Last().JSON()["response_format"].(map[string]any)
	if rf["type"] != "json_schema" || rf["json_schema"].(map[string]any)["type"] != "object" {
		t.Fatalf("%v", rf)
	}
	if res.Texts["greeting"] != "fake greeting" {
		t.Fatalf("%v", res.Texts)
	}
}

func TestEmbeddingsOnTheWire(t *testing.T) {
	c, srv := start(t, workersai.Config{})
	resp, err := c.Embed(context.Background(), ai.EmbeddingRequest{Input: []string{"zwölf", "ab"}})
	if err != nil {
		t.Fatal(err)
	}
	got := srv.Last()
	if got.Path != runPrefix+"@cf/baai/bge-base-en-v1.5" || len(got.JSON()["text"].([]any)) != 2 {
		t.Fatalf("%s %s", got.Path, got.Body)
	}
	if resp.Usage.InputCharacters != 7 || resp.Usage.InputTokens != 0 {
		t.Fatalf("%+v", resp.Usage)
	}
	if _, err := c.Embed(context.Background(), ai.EmbeddingRequest{Input: []string{"x"}, Dimensions: 3}); outcome.Of(err) != outcome.Invalid {
		t.Fatalf("dimensions: %v", err)
	}
}

func TestTranscriptionOnTheWire(t *testing.T) {
	c, srv := start(t, workersai.Config{})
	resp, err := c.Transcribe(context.Background(), ai.TranscriptionRequest{Audio: make([]byte, 8000), Language: "fr", Prompt: "Zoë"})
	if err != nil {
		t.Fatal(err)
	}
	body := srv.Last().JSON()
	audio, _ := base64.StdEncoding.DecodeString(body["audio"].(string))
	if srv.Last().Path != runPrefix+"@cf/openai/whisper-large-v3-turbo" || len(audio) != 8000 || body["language"] != "fr" || body["initial_prompt"] != "Zoë" {
		t.Fatalf("%v", body["language"])
	}
	if resp.Usage.AudioSeconds != 0.5 || resp.Language != "fr" {
		t.Fatalf("%+v", resp)
	}
}

func TestMarkdownIsMultipartFiles(t *testing.T) {
	c, srv := start(t, workersai.Config{})
	resp, err := c.ConvertToMarkdown(context.Background(), ai.MarkdownRequest{Files: []ai.File{
		{Name: "a.txt", MIMEType: "text/plain", Data: []byte("alpha beta")},
		{Name: "b.pdf", MIMEType: "application/pdf", Data: []byte("%PDF-1.7")},
	}})
	if err != nil {
		t.Fatal(err)
	}
	got := srv.Last()
	mt, params, _ := mime.ParseMediaType(got.Header.Get("Content-Type"))
	form, err := multipart.NewReader(bytes.NewReader(got.Body), params["boundary"]).ReadForm(1 << 20)
	if err != nil || mt != "multipart/form-data" || got.Path != "/client/v4/accounts/"+account+"/ai/tomarkdown" {
		t.Fatalf("%v %s %s", err, mt, got.Path)
	}
	if files := form.File["files"]; len(files) != 2 || files[1].Filename != "b.pdf" || files[1].Header.Get("Content-Type") != "application/pdf" {
		t.Fatalf("%+v", form.File)
	}
	if resp.Documents[0].Markdown != "# a.txt\n\nalpha beta" || resp.Documents[0].Tokens != 4 {
		t.Fatalf("%+v", resp.Documents[0])
	}
}

func TestAutoRAGSearchOnTheWire(t *testing.T) {
	c, srv := start(t, workersai.Config{})
	rewrite, threshold := true, 0.7
	resp, err := c.SearchRAG(context.Background(), ai.RAGSearchRequest{Instance: "kb", Query: "refunds", MaxResults: 2, RewriteQuery: &rewrite, ScoreThreshold: &threshold})
	if err != nil {
		t.Fatal(err)
	}
	got := srv.Last()
	var body struct {
		Query          string
		MaxNumResults  int  `json:"max_num_results"`
		RewriteQuery   bool `json:"rewrite_query"`
		RankingOptions struct {
			ScoreThreshold float64 `json:"score_threshold"`
		} `json:"ranking_options"`
	}
	if err := json.Unmarshal(got.Body, &body); err != nil || got.Path != "/client/v4/accounts/"+account+"/autorag/rags/kb/search" ||
		body.Query != "refunds" || body.MaxNumResults != 2 || !body.RewriteQuery || body.RankingOptions.ScoreThreshold != 0.7 {
		t.Fatalf("%s %+v", got.Path, body)
	}
	if len(resp.Results) != 2 || resp.SearchQuery != "rewritten: refunds" {
		t.Fatalf("%+v", resp)
	}
}

func TestUnusableNamesNeverReachThePath(t *testing.T) {
	c, srv := start(t, workersai.Config{})
	req := conformance.ChatRequest()
	for _, model := range []string{"@cf/../../tokens", "@cf/meta/x?y=1", "@cf/meta/%2e%2e"} {
		req.Model = model
		if _, err := c.Complete(context.Background(), req); outcome.Of(err) != outcome.Invalid {
			t.Fatalf("%q: %v", model, err)
		}
	}
	if _, err := c.SearchRAG(context.Background(), ai.RAGSearchRequest{Instance: "../x", Query: "q"}); outcome.Of(err) != outcome.Invalid {
		t.Fatalf("instance: %v", err)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("%d requests reached the fake", n)
	}
}

func TestAnotherAccountIsRefused(t *testing.T) {
	c, _ := start(t, workersai.Config{AccountID: "someone-else"})
	if _, err := c.Complete(context.Background(), conformance.ChatRequest()); outcome.Of(err) != outcome.Unauthorized {
		t.Fatalf("%v", err)
	}
}

func TestConfigValidate(t *testing.T) {
	tests := map[string]struct {
		cfg workersai.Config
		ok  bool
	}{
		"defaults":              {workersai.Config{APIKey: "k", AccountID: "abc"}, true},
		"no account":            {workersai.Config{APIKey: "k"}, false},
		"account with a slash":  {workersai.Config{APIKey: "k", AccountID: "a/b"}, false},
		"no key":                {workersai.Config{AccountID: "abc"}, false},
		"plain http is allowed": {workersai.Config{APIKey: "k", AccountID: "abc", BaseURL: "http://127.0.0.1:8787/client/v4"}, true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if err := tc.cfg.Validate(); (err == nil) != tc.ok {
				t.Fatalf("%v", err)
			}
		})
	}
}
