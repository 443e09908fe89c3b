package gateway_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/platform/backend/internal/apptest"
	"github.com/platform/backend/providers/ai"
	"github.com/platform/backend/providers/fakekit"
)

// openAIError is OpenAI's error body.
type openAIError struct {
	Error struct {
		Message string  `json:"message"`
		Type    string  `json:"type"`
		Param   *string `json:"param"`
		Code    string  `json:"code"`
	} `json:"error"`
}

func expectOpenAIError(t *testing.T, res apptest.Response, status int, typ, code, param string) openAIError {
	t.Helper()
	var e openAIError
	if res.Status != status || !strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") {
		t.Fatalf("got %d %s (%s), want %d", res.Status, res.Header.Get("Content-Type"), res.Body, status)
	}
	res.JSON(t, &e)
	got := ""
	if e.Error.Param != nil {
		got = *e.Error.Param
	}
	if e.Error.Type != typ || e.Error.Code != code || got != param || e.Error.Message == "" {
		t.Fatalf("error %s, want type %s code %s param %q", res.Body, typ, code, param)
	}
	return e
}

// TestOpenAICompatibleErrors: every error of the OpenAI-compatible routes,
// the kernel's checks included, is OpenAI's error object with the
// platform's status and code (what the openai package reads); invalid
// input is 400 naming the member OpenAI's way; a member the gateway cannot
// honour is refused, not dropped; an unknown model is 404 model_not_found.
func TestOpenAICompatibleErrors(t *testing.T) {
	h := start(t)
	msgs := []map[string]any{{"role": "user", "content": "hi"}}
	expectOpenAIError(t, h.Do(t, "gateway", http.MethodPost, "/v1/chat/completions", "-", map[string]any{"model": "gpt-4o-mini", "messages": msgs}),
		http.StatusUnauthorized, "authentication_error", "authentication_required", "")
	expectOpenAIError(t, post(t, h, "/v1/chat/completions", "", map[string]any{"model": "gpt-4o-mini", "messages": msgs, "stop": "x"}),
		http.StatusBadRequest, "invalid_request_error", "invalid_input", "stop")
	expectOpenAIError(t, post(t, h, "/v1/chat/completions", "", map[string]any{"model": "gpt-4o-mini",
		"messages": []map[string]any{{"role": "user", "content": []map[string]any{{"type": "image_url", "image_url": map[string]any{"url": "https://example.com/x.png"}}}}}}),
		http.StatusBadRequest, "invalid_request_error", "invalid_input", "messages[0].content")
	e := expectOpenAIError(t, post(t, h, "/v1/chat/completions", "", map[string]any{"model": "gpt-9", "messages": msgs}),
		http.StatusNotFound, "invalid_request_error", "model_not_found", "")
	if !strings.Contains(e.Error.Message, `"gpt-9"`) {
		t.Fatalf("message %q", e.Error.Message)
	}
	expectOpenAIError(t, post(t, h, "/v1/chat/completions", "", map[string]any{"model": "ai_provider_1/gpt-9", "messages": msgs}),
		http.StatusBadRequest, "invalid_request_error", "invalid_input", "model")
	expectOpenAIError(t, h.Do(t, "gateway", http.MethodPost, "/v1/embeddings", "", []byte(`{"model":"x","input":"y"}`), "Content-Type", "text/plain"),
		http.StatusUnsupportedMediaType, "invalid_request_error", "unsupported_media_type", "")

	// Anthropic's shape on /v1/messages.
	res := h.Do(t, "gateway", http.MethodPost, "/v1/messages", "", map[string]any{"model": "claude-haiku-4-5", "messages": msgs})
	var ae struct {
		Type  string `json:"type"`
		Error struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		} `json:"error"`
		RequestID string `json:"request_id"`
	}
	res.JSON(t, &ae)
	if res.Status != http.StatusBadRequest || ae.Type != "error" || ae.Error.Type != "invalid_request_error" ||
		!strings.Contains(ae.Error.Message, "max_tokens") || ae.RequestID != res.Header.Get("X-Request-Id") {
		t.Fatalf("anthropic error %d %s", res.Status, res.Body)
	}

	// The native routes keep problem+json.
	apptest.ExpectProblem(t, post(t, h, "/api/ai/completions", "", map[string]any{"stop": "x"}), http.StatusUnprocessableEntity, "invalid_input")
}

// TestOpenAICompatibleCallsAreIdempotent: /v1/chat/completions honours
// Idempotency-Key exactly as /api/ai/completions does (the same wrapper): a
// repeat answers the first answer's bytes again, streamed too, with one
// provider call and one usage event each; another body under the key is
// 422; a stream cut by the provider ends with an error event in OpenAI's
// shape, never [DONE].
func TestOpenAICompatibleCallsAreIdempotent(t *testing.T) {
	h := start(t)
	kit := fake(t, h, ai.Provider1)
	body := map[string]any{"model": "gpt-4o-mini", "messages": []map[string]any{{"role": "user", "content": "once"}}}
	first := keyed(t, h, "/v1/chat/completions", "", "oa-1", body)
	apptest.Must(t, first, http.StatusOK, "first")
	again := keyed(t, h, "/v1/chat/completions", "", "oa-1", body)
	apptest.Must(t, again, http.StatusOK, "again")
	if !bytes.Equal(first.Body, again.Body) || again.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("replay %s vs %s (%v)", again.Body, first.Body, again.Header)
	}
	other := keyed(t, h, "/v1/chat/completions", "", "oa-1", map[string]any{"model": "gpt-4o-mini",
		"messages": []map[string]any{{"role": "user", "content": "another"}}})
	expectOpenAIError(t, other, http.StatusUnprocessableEntity, "invalid_request_error", "idempotency_key_reused", "")

	stream := func(key string) (int, string) {
		b := map[string]any{"model": "gpt-4o-mini", "stream": true, "messages": []map[string]any{{"role": "user", "content": "one two three four five"}}}
		raw, _ := json.Marshal(b)
		req, _ := http.NewRequest(http.MethodPost, h.URLs["gateway"]+"/v1/chat/completions", bytes.NewReader(raw))
		req.Header.Set("Authorization", "Bearer "+h.APIKey)
		req.Header.Set("Content-Type", "application/json")
		if key != "" {
			req.Header.Set("Idempotency-Key", key)
		}
		res, err := h.Client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var out strings.Builder
		sc := bufio.NewScanner(res.Body)
		for sc.Scan() {
			out.WriteString(sc.Text() + "\n")
		}
		return res.StatusCode, out.String()
	}
	status, s1 := stream("oa-2")
	_, s2 := stream("oa-2")
	if status != http.StatusOK || s1 != s2 || !strings.Contains(s1, `"object":"chat.completion.chunk"`) ||
		!strings.HasSuffix(s1, "data: [DONE]\n\n") || strings.Contains(s1, "event:") {
		t.Fatalf("streams:\n%s\n---\n%s", s1, s2)
	}
	if n := len(kit.Requests()); n != 2 {
		t.Fatalf("the provider saw %d calls, want 2 (one per key)", n)
	}
	if n := usageCount(t, h, h.OrgID); n != 2 {
		t.Fatalf("%d usage events, want 2", n)
	}

	// Cut after two deltas: an OpenAI error object as a plain data event
	// (the openai package raises it), no [DONE].
	kit.Next(1, fakekit.Fault{Kind: fakekit.Cut, After: 2})
	_, cut := stream("")
	if !strings.Contains(cut, `data: {"error":{`) || strings.Contains(cut, "[DONE]") {
		t.Fatalf("cut stream:\n%s", cut)
	}
}
