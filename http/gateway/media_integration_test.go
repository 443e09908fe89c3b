package gateway_test

import (
	"encoding/base64"
	"net/http"
	"testing"

	"github.com/platform/backend/internal/apptest"
)

// png is a 1x1 PNG.
var png = []byte{0x89, 'P', 'N', 'G', 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 'I', 'H', 'D', 'R', 0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0,
	0x1f, 0x15, 0xc4, 0x89, 0, 0, 0, 0x0a, 'I', 'D', 'A', 'T', 0x78, 0x9c, 0x63, 0, 1, 0, 0, 5, 0, 1, 0x0d, 0x0a, 0x2d, 0xb4, 0, 0, 0, 0,
	'I', 'E', 'N', 'D', 0xae, 0x42, 0x60, 0x82}

// TestEveryAIActionIsMetered: each AI action answers through the sandbox
// and leaves one usage event of its action with a cost above zero.
func TestEveryAIActionIsMetered(t *testing.T) {
	h := start(t)
	b64 := func(b []byte) string { return base64.StdEncoding.EncodeToString(b) }
	calls := []struct {
		path, action string
		body         map[string]any
	}{
		{"/api/ai/translations", "ai.translations", map[string]any{"target_locale": "de", "texts": map[string]string{"greeting": "Hello", "bye": "Goodbye"}}},
		{"/api/ai/embeddings", "ai.embeddings", map[string]any{"input": "one text"}},
		{"/api/ai/embeddings", "ai.embeddings", map[string]any{"input": []string{"first", "second"}, "provider": "ai_provider_5"}},
		{"/api/ai/markdown", "ai.markdown", map[string]any{"filename": "notes.txt", "data_base64": b64([]byte("# Title\nbody")), "mime_type": "text/plain"}},
		{"/api/ai/image/describe", "ai.image.describe", map[string]any{"filename": "dot.png", "data_base64": b64(png), "max_tokens": 50}},
		{"/api/ai/autorag/search", "ai.autorag.search", map[string]any{"instance": "docs", "query": "how do caps work", "max_num_results": 3}},
		{"/api/ai/transcriptions", "ai.transcriptions", map[string]any{"audioBase64": b64(make([]byte, 3000)), "mime_type": "audio/wav", "duration_ms": 2000}},
		{"/api/ai/completions", "ai.completions", map[string]any{"provider": "ai_provider_5", "prompt": "hi"}},
		{"/api/ai/completions", "ai.completions", map[string]any{"provider": "ai_provider_4", "messages": []map[string]any{{"role": "system", "content": "be brief"},
			{"role": "user", "content": []map[string]any{{"type": "text", "text": "what is this"}, {"type": "image_url", "image_url": map[string]any{"url": "data:image/png;base64," + b64(png)}}}}}}},
	}
	for _, c := range calls {
		res := post(t, h, c.path, "", c.body)
		apptest.Must(t, res, http.StatusOK, c.path)
	}
	events := usageEvents(t, h, "", len(calls))
	seen := map[string]int{}
	for _, e := range events {
		seen[e["event_type"].(string)]++
		if e["outcome"] != "ok" || e["cost_cents"].(float64) <= 0 {
			t.Errorf("usage %v", e)
		}
	}
	for _, c := range calls {
		if seen[c.action] == 0 {
			t.Errorf("no usage event of %s", c.action)
		}
	}
}
