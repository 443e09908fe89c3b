package gateway_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	gatewaycmd "github.com/platform/backend/commands/gateway"
	"github.com/platform/backend/internal/apptest"
	"github.com/platform/backend/internal/testenv"
	"github.com/platform/backend/providers/ai"
	"github.com/platform/backend/providers/fakekit"
)

// keyed posts a gateway call with an Idempotency-Key.
func keyed(t *testing.T, h *apptest.Harness, path, token, key string, body any) apptest.Response {
	t.Helper()
	return h.Do(t, "gateway", http.MethodPost, path, token, body, "Idempotency-Key", key)
}

// usageCount counts an organization's usage events on the write side.
func usageCount(t *testing.T, h *apptest.Harness, org string) int {
	t.Helper()
	return int(h.Count(t, `SELECT count(*) FROM es_events WHERE organization_id = $1 AND event_type = 'gateway.usage.recorded'`, org))
}

// TestConcurrentRetriesOfACallPayOnce (issue 18, item 1): 20 clients send
// the same completion under one Idempotency-Key at once, as clients
// retrying after a timeout do: one provider call, one usage event; every
// other answer is the first one replayed (the same bytes, marked
// Idempotent-Replayed) or 409 request_in_progress while it runs. Another
// body under the key is 422 and calls nothing; another organization's equal
// key is its own; a failed call frees its key.
func TestConcurrentRetriesOfACallPayOnce(t *testing.T) {
	h := start(t)
	kit := fake(t, h, ai.Provider1)
	body := map[string]any{"prompt": "once only", "max_tokens": 50}

	// Held at the provider: all 19 repeats meet the running call.
	gate := fakekit.NewGate()
	kit.Next(1, fakekit.Fault{Kind: fakekit.Hold, Gate: gate})
	first := make(chan apptest.Response, 1)
	go func() { first <- keyed(t, h, "/api/ai/completions", "", "retry-1", body) }()
	<-gate.Entered()
	var wg sync.WaitGroup
	repeats := make([]apptest.Response, 19)
	for i := range repeats {
		wg.Add(1)
		go func() { defer wg.Done(); repeats[i] = keyed(t, h, "/api/ai/completions", "", "retry-1", body) }()
	}
	wg.Wait()
	for _, r := range repeats {
		apptest.ExpectProblem(t, r, http.StatusConflict, "request_in_progress")
		if r.Header.Get("Retry-After") == "" {
			t.Fatalf("409 without Retry-After: %v", r.Header)
		}
	}
	gate.Open()
	res := <-first
	apptest.Must(t, res, http.StatusOK, "the first call")
	again := keyed(t, h, "/api/ai/completions", "", "retry-1", body)
	apptest.Must(t, again, http.StatusOK, "the retry")
	if again.Header.Get("Idempotent-Replayed") != "true" || !bytes.Equal(again.Body, res.Body) || res.Header.Get("Idempotent-Replayed") != "" {
		t.Fatalf("retry: replayed %q, body %s; first %s", again.Header.Get("Idempotent-Replayed"), again.Body, res.Body)
	}

	// Free-running: 20 at once, none held.
	answers := make([]apptest.Response, 20)
	for i := range answers {
		wg.Add(1)
		go func() { defer wg.Done(); answers[i] = keyed(t, h, "/api/ai/completions", "", "retry-2", body) }()
	}
	wg.Wait()
	var ok []byte
	oks := 0
	for _, r := range answers {
		switch r.Status {
		case http.StatusOK:
			oks++
			if ok != nil && !bytes.Equal(ok, r.Body) {
				t.Fatalf("two different answers under one key:\n%s\n%s", ok, r.Body)
			}
			ok = r.Body
		case http.StatusConflict:
			apptest.ExpectProblem(t, r, http.StatusConflict, "request_in_progress")
		default:
			t.Fatalf("answered %d %s", r.Status, r.Body)
		}
	}
	if oks == 0 {
		t.Fatal("no call was answered")
	}
	if kit.Calls() != 2 {
		t.Fatalf("the provider was called %d times for two keys", kit.Calls())
	}

	// Another body under the key: 422, nothing called.
	apptest.ExpectProblem(t, keyed(t, h, "/api/ai/completions", "", "retry-1", map[string]any{"prompt": "another", "max_tokens": 50}),
		http.StatusUnprocessableEntity, "idempotency_key_reused")
	// Another action under the key is another request too.
	apptest.ExpectProblem(t, keyed(t, h, "/api/ai/embeddings", "", "retry-1", map[string]any{"input": "once only"}),
		http.StatusUnprocessableEntity, "idempotency_key_reused")
	if kit.Calls() != 2 || usageCount(t, h, h.OrgID) != 2 {
		t.Fatalf("%d provider calls, %d usage events; want 2 and 2", kit.Calls(), usageCount(t, h, h.OrgID))
	}
	// Another organization's equal key is its own call.
	org2, other := h.NewOrganization(t, "Other", testenv.UniqueName("other"), apptest.DefaultScopes...)
	apptest.Must(t, keyed(t, h, "/api/ai/completions", other, "retry-1", body), http.StatusOK, "another organization's key")
	if kit.Calls() != 3 || usageCount(t, h, org2) != 1 {
		t.Fatalf("another organization's key: %d provider calls, %d usage events", kit.Calls(), usageCount(t, h, org2))
	}
	// A failed call frees its key: the retry is a new call.
	kit.Next(1, fakekit.Status(500))
	apptest.ExpectProblem(t, keyed(t, h, "/api/ai/completions", "", "retry-3", body), http.StatusBadGateway, "provider_error")
	retried := keyed(t, h, "/api/ai/completions", "", "retry-3", body)
	apptest.Must(t, retried, http.StatusOK, "after a failure")
	if retried.Header.Get("Idempotent-Replayed") != "" || kit.Calls() != 5 || usageCount(t, h, h.OrgID) != 4 {
		t.Fatalf("after a failure: replayed %q, %d provider calls, %d usage events", retried.Header.Get("Idempotent-Replayed"),
			kit.Calls(), usageCount(t, h, h.OrgID))
	}
}

// TestStreamedCallsReplayAsStreams: a streamed completion under a key is
// replayed as the same server-sent events, byte for byte, with no provider
// call; and one whose client leaves half-way runs to its end, so the
// client's retry gets the whole answer instead of paying for a second call.
func TestStreamedCallsReplayAsStreams(t *testing.T) {
	h := start(t)
	kit := fake(t, h, ai.Provider2)
	body := map[string]any{"provider": "ai_provider_2", "prompt": "one two three four", "stream": true}
	res := keyed(t, h, "/api/ai/completions", "", "stream-1", body)
	apptest.Must(t, res, http.StatusOK, "stream")
	if res.Header.Get("Content-Type") != "text/event-stream" || !strings.HasSuffix(string(res.Body), "data: [DONE]\n\n") {
		t.Fatalf("stream %v %s", res.Header, res.Body)
	}
	again := keyed(t, h, "/api/ai/completions", "", "stream-1", body)
	apptest.Must(t, again, http.StatusOK, "replayed stream")
	if again.Header.Get("Content-Type") != "text/event-stream" || again.Header.Get("Idempotent-Replayed") != "true" || !bytes.Equal(again.Body, res.Body) {
		t.Fatalf("replayed stream %v:\n%s\nfirst:\n%s", again.Header, again.Body, res.Body)
	}
	if kit.Calls() != 1 || usageCount(t, h, h.OrgID) != 1 {
		t.Fatalf("%d provider calls, %d usage events; want 1 and 1", kit.Calls(), usageCount(t, h, h.OrgID))
	}

	// The client leaves after the first delta; the call goes on.
	gate := kit.HoldDeltas()
	raw, _ := json.Marshal(map[string]any{"provider": "ai_provider_2", "prompt": "five six seven eight", "stream": true})
	ctx, leave := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, h.URLs["gateway"]+"/api/ai/completions", bytes.NewReader(raw))
	req.Header.Set("Authorization", "Bearer "+h.APIKey)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", "stream-2")
	left, err := h.Client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(left.Body).ReadString('\n')
	if line != "event: delta\n" {
		t.Fatalf("first line %q", line)
	}
	leave()
	left.Body.Close()
	apptest.ExpectProblem(t, keyed(t, h, "/api/ai/completions", "", "stream-2", map[string]any{"provider": "ai_provider_2",
		"prompt": "five six seven eight", "stream": true}), http.StatusConflict, "request_in_progress")
	gate.Open()
	var whole apptest.Response
	apptest.Eventually(t, 20*time.Second, "the answer of the stream the client left", func() bool {
		whole = keyed(t, h, "/api/ai/completions", "", "stream-2", map[string]any{"provider": "ai_provider_2", "prompt": "five six seven eight", "stream": true})
		return whole.Status == http.StatusOK
	})
	text := ""
	for _, l := range strings.Split(string(whole.Body), "\n") {
		if d, ok := strings.CutPrefix(l, "data: {\"text\":"); ok {
			var s string
			_ = json.Unmarshal([]byte(strings.TrimSuffix(d, "}")), &s)
			text += s
		}
	}
	if whole.Header.Get("Idempotent-Replayed") != "true" || text != "echo: five six seven eight" || !strings.Contains(string(whole.Body), `"outcome":"ok"`) {
		t.Fatalf("the retry after leaving got %q:\n%s", text, whole.Body)
	}
	events := usageEvents(t, h, "", 2)
	if kit.Calls() != 2 || len(events) != 2 || events[0]["outcome"] != "ok" || events[0]["estimated"] != false {
		t.Fatalf("%d provider calls; usage %v", kit.Calls(), events)
	}
}

// TestStoredAnswersAreSealedAndExpire: a kept answer is ciphertext under
// the key ring (the answer's text is nowhere in the row); 24 hours on, the
// key is free (the same request is a new call); a claim left by a process
// that died is free once its lease ends; the sweeper deletes expired rows.
func TestStoredAnswersAreSealedAndExpire(t *testing.T) {
	h := start(t)
	kit := fake(t, h, ai.Provider1)
	body := map[string]any{"prompt": "a secret plan", "max_tokens": 50}
	res := keyed(t, h, "/api/ai/completions", "", "expire-1", body)
	apptest.Must(t, res, http.StatusOK, "call")
	var keyID string
	var answer []byte
	if err := h.App.Pool.QueryRow(context.Background(), `SELECT state, key_id, answer FROM gateway_idempotency WHERE organization_id = $1 AND key = $2`,
		h.OrgID, "expire-1").Scan(new(string), &keyID, &answer); err != nil {
		t.Fatal(err)
	}
	if keyID == "" || len(answer) == 0 || bytes.Contains(answer, []byte("secret plan")) ||
		bytes.Contains(answer, []byte(base64.StdEncoding.EncodeToString([]byte("secret plan")))) {
		t.Fatalf("stored answer under key %q is not sealed: %q", keyID, answer)
	}
	// The answer's 24 hours pass.
	if _, err := h.App.Pool.Exec(context.Background(), `UPDATE gateway_idempotency SET expires_at = now() - interval '1 second'
		WHERE organization_id = $1 AND key = 'expire-1'`, h.OrgID); err != nil {
		t.Fatal(err)
	}
	fresh := keyed(t, h, "/api/ai/completions", "", "expire-1", body)
	apptest.Must(t, fresh, http.StatusOK, "after expiry")
	if fresh.Header.Get("Idempotent-Replayed") != "" || kit.Calls() != 2 || usageCount(t, h, h.OrgID) != 2 {
		t.Fatalf("after expiry: replayed %q, %d provider calls", fresh.Header.Get("Idempotent-Replayed"), kit.Calls())
	}
	// A claim whose process died with its call: 409 within its lease, taken
	// over after it.
	if _, err := h.App.Pool.Exec(context.Background(), `INSERT INTO gateway_idempotency (organization_id, key, request_hash, claim, state,
		created_at, expires_at) SELECT organization_id, 'expire-2', request_hash, 'dead-process', 'running', now(), now() + interval '1 hour'
		FROM gateway_idempotency WHERE organization_id = $1 AND key = 'expire-1'`, h.OrgID); err != nil {
		t.Fatal(err)
	}
	apptest.ExpectProblem(t, keyed(t, h, "/api/ai/completions", "", "expire-2", body), http.StatusConflict, "request_in_progress")
	if _, err := h.App.Pool.Exec(context.Background(), `UPDATE gateway_idempotency SET expires_at = now() - interval '1 second'
		WHERE organization_id = $1 AND key = 'expire-2'`, h.OrgID); err != nil {
		t.Fatal(err)
	}
	apptest.Must(t, keyed(t, h, "/api/ai/completions", "", "expire-2", body), http.StatusOK, "a dead claim taken over")
	if kit.Calls() != 3 {
		t.Fatalf("%d provider calls, want 3", kit.Calls())
	}
	handlers := apptest.Provided[*gatewaycmd.Handlers](h)
	if n, err := handlers.SweepAnswers(context.Background(), time.Now().Add(time.Hour)); err != nil || n != 0 {
		t.Fatalf("swept %d answers within their day (%v)", n, err)
	}
	n, err := handlers.SweepAnswers(context.Background(), time.Now().Add(gatewaycmd.AnswerTTL+time.Minute))
	if err != nil || n != 2 || h.Count(t, `SELECT count(*) FROM gateway_idempotency`) != 0 {
		t.Fatalf("swept %d expired answers (%v), %d left", n, err, h.Count(t, `SELECT count(*) FROM gateway_idempotency`))
	}
}

// TestEveryCallActionHonoursIdempotencyKeys: each call action of the
// gateway (every action a spend cap can refuse, as its OpenAPI operation
// declares 402) answers a repeat under its key with the first answer,
// marked replayed, and records one usage event, however often it is sent.
func TestEveryCallActionHonoursIdempotencyKeys(t *testing.T) {
	h := startEdge(t, edgeOptions{})
	b64 := func(b []byte) string { return base64.StdEncoding.EncodeToString(b) }
	notify, err := h.Access().Keys().Issue(context.Background(), "notifications", 0)
	if err != nil {
		t.Fatal(err)
	}
	calls := []struct {
		action, path, token string
		body                map[string]any
	}{
		{"ai.completions.create", "/api/ai/completions", "", map[string]any{"prompt": "hi"}},
		{"ai.translations.create", "/api/ai/translations", "", map[string]any{"target_locale": "de", "texts": map[string]string{"greeting": "Hello"}}},
		{"ai.embeddings.create", "/api/ai/embeddings", "", map[string]any{"input": "one text"}},
		{"ai.markdown.create", "/api/ai/markdown", "", map[string]any{"filename": "notes.txt", "data_base64": b64([]byte("# Title")), "mime_type": "text/plain"}},
		{"ai.image.describe", "/api/ai/image/describe", "", map[string]any{"filename": "dot.png", "data_base64": b64(png), "max_tokens": 50}},
		{"ai.autorag.search", "/api/ai/autorag/search", "", map[string]any{"instance": "docs", "query": "how do caps work"}},
		{"ai.transcriptions.create", "/api/ai/transcriptions", "", map[string]any{"audioBase64": b64(make([]byte, 3000)), "mime_type": "audio/wav"}},
		{"ai.images.create", "/api/ai/images", "", map[string]any{"prompt": "a red rocket"}},
		{"email.send", "/api/email/send", "", map[string]any{"to": "k@example.com", "from": "Shop <shop@example.com>", "subject": "Once", "text": "x"}},
		{"instant_message.send", "/api/instant-message/send", notify, map[string]any{"to": "+15551234567", "type": "text", "text": "Your code"}},
		{"payments.processor.invoke", "/api/payments/processor", "", map[string]any{"operation": "customers.create", "params": map[string]any{"email": "b@example.com"}}},
		// The OpenAI and Anthropic dialects of the same calls.
		{"openai.chat.completions.create", "/v1/chat/completions", "", map[string]any{"model": "gpt-4o-mini",
			"messages": []map[string]any{{"role": "user", "content": "hi"}}}},
		{"openai.embeddings.create", "/v1/embeddings", "", map[string]any{"model": "text-embedding-3-small", "input": "one text"}},
		{"anthropic.messages.create", "/v1/messages", "", map[string]any{"model": "claude-haiku-4-5", "max_tokens": 50,
			"messages": []map[string]any{{"role": "user", "content": "hi"}}}},
	}
	// The table is every call action.
	var doc struct {
		Paths map[string]map[string]struct {
			OperationID string         `json:"operationId"`
			Responses   map[string]any `json:"responses"`
		} `json:"paths"`
	}
	get(t, h, "/api/openapi.json", "").JSON(t, &doc)
	metered := map[string]bool{}
	for _, ops := range doc.Paths {
		for _, op := range ops {
			if _, ok := op.Responses["402"]; ok {
				metered[op.OperationID] = true
			}
		}
	}
	for _, c := range calls {
		delete(metered, c.action)
	}
	if len(metered) > 0 {
		t.Fatalf("call actions without a case here: %v", metered)
	}
	for _, c := range calls {
		before := h.Count(t, `SELECT count(*) FROM es_events WHERE event_type = 'gateway.usage.recorded'`)
		first := keyed(t, h, c.path, c.token, "every-"+c.action, c.body)
		apptest.Must(t, first, http.StatusOK, c.action)
		for range 2 {
			again := keyed(t, h, c.path, c.token, "every-"+c.action, c.body)
			apptest.Must(t, again, http.StatusOK, c.action+" again")
			if again.Header.Get("Idempotent-Replayed") != "true" || !bytes.Equal(again.Body, first.Body) {
				t.Fatalf("%s: the repeat is not the first answer: %s\nfirst: %s", c.action, again.Body, first.Body)
			}
		}
		if n := h.Count(t, `SELECT count(*) FROM es_events WHERE event_type = 'gateway.usage.recorded'`) - before; n != 1 {
			t.Fatalf("%s: %d usage events for one call sent three times", c.action, n)
		}
	}
}
