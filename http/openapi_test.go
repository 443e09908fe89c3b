package httpapi

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestOutputOf: members follow encoding/json (omitempty optional, pointers
// nullable, embedded structs inline), options refine them, and an option
// naming no member panics.
func TestOutputOf(t *testing.T) {
	type inner struct {
		A string `json:"a"`
	}
	type sample struct {
		inner
		B  *time.Time `json:"b"`
		C  string     `json:"c,omitempty"`
		D  []inner    `json:"d"`
		E  *string    `json:"e,omitempty"`
		no string
	}
	got := string(OutputOf(sample{}, EnumOf("d[].a", "x", "y"), Nullable("d")))
	want := `{"additionalProperties":false,"properties":{"a":{"type":"string"},"b":{"format":"date-time","type":["string","null"]},` +
		`"c":{"type":"string"},"d":{"items":{"additionalProperties":false,"properties":{"a":{"enum":["x","y"],"type":"string"}},` +
		`"required":["a"],"type":"object"},"type":["array","null"]},"e":{"type":"string"}},"required":["a","b","d"],"type":"object"}`
	if got != want {
		t.Fatalf("outputOf:\n got %s\nwant %s", got, want)
	}
	defer func() {
		if recover() == nil {
			t.Fatal("an option naming no member did not panic")
		}
	}()
	OutputOf(sample{}, EnumOf("nope", "x"))
}

// TestCheckOutput: the debug check turns an answer that its schema refuses
// into a 500 naming the member; without it the answer goes out as it is.
func TestCheckOutput(t *testing.T) {
	body := map[string]any{"n": "not a number"}
	svc := Service{Name: "t", Actions: []Action{{Name: "t.get", Method: http.MethodGet, Path: "/t", ReadOnly: true,
		OutputSchema: ObjectOf(map[string]json.RawMessage{"n": Raw(intOut)}),
		Handle:       func(context.Context, *Call) (Reply, error) { return OK(body), nil }}}}
	for _, check := range []bool{true, false} {
		h, err := NewHandler(svc, Deps{Limiter: NewLimiter(RateLimitConfig{}), CheckOutput: check,
			Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
		if err != nil {
			t.Fatal(err)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/t", nil))
		switch {
		case check && (rec.Code != http.StatusInternalServerError || !strings.Contains(rec.Body.String(), "output_schema_violation") ||
			!strings.Contains(rec.Body.String(), "/n")):
			t.Fatalf("checked: %d %s", rec.Code, rec.Body)
		case !check && rec.Code != http.StatusOK:
			t.Fatalf("unchecked: %d %s", rec.Code, rec.Body)
		}
	}
	body = map[string]any{"n": 3}
	h, _ := NewHandler(svc, Deps{Limiter: NewLimiter(RateLimitConfig{}), CheckOutput: true})
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/t", nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("a conforming answer: %d %s", rec.Code, rec.Body)
	}
}

// TestNoIdempotencyKey: a mutation marked NoIdempotencyKey gets no
// Idempotency-Key from the router (one sent is ignored: neither checked nor
// passed on) and its OpenAPI operation offers none, nor the 422 of a reused
// key; a mutation without the mark keeps both.
func TestNoIdempotencyKey(t *testing.T) {
	seen := map[string]string{}
	action := func(name string, unkeyed bool) Action {
		return Action{Name: name, Method: http.MethodPost, Path: "/" + name, AuthorizationMode: AuthPublic, NoIdempotencyKey: unkeyed,
			InvalidStatus: http.StatusBadRequest, // invalid input 400 (a webhook's): 422 is then only a reused key
			OutputSchema:  ObjectOf(map[string]json.RawMessage{"ok": Raw(`{"type":"boolean"}`)}),
			Handle: func(_ context.Context, c *Call) (Reply, error) {
				seen[name] = c.Meta.IdempotencyKey
				return OK(map[string]any{"ok": true}), nil
			}}
	}
	svc := Service{Name: "t", Actions: []Action{action("keyed", false), action("unkeyed", true)}}
	h, err := NewHandler(svc, Deps{Limiter: NewLimiter(RateLimitConfig{}), Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	call := func(path, key string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(`{}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set(HeaderIdempotencyKey, key)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}
	if rec := call("/keyed", "k-1"); rec.Code != http.StatusOK || seen["keyed"] != "k-1" {
		t.Fatalf("keyed: %d %s, key %q", rec.Code, rec.Body, seen["keyed"])
	}
	if rec := call("/unkeyed", "k-1"); rec.Code != http.StatusOK || seen["unkeyed"] != "" {
		t.Fatalf("unkeyed: %d %s, key %q passed on", rec.Code, rec.Body, seen["unkeyed"])
	}
	long := strings.Repeat("k", 300)
	if rec := call("/keyed", long); rec.Code != http.StatusBadRequest || !strings.Contains(rec.Body.String(), "/header/Idempotency-Key") {
		t.Fatalf("keyed, a long key: %d %s", rec.Code, rec.Body)
	}
	if rec := call("/unkeyed", long); rec.Code != http.StatusOK {
		t.Fatalf("unkeyed, a long key is ignored: %d %s", rec.Code, rec.Body)
	}
	raw, _ := json.Marshal(OpenAPI(svc))
	var doc struct {
		Paths map[string]map[string]struct {
			Parameters []struct{ Name string } `json:"parameters"`
			Responses  map[string]any          `json:"responses"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]bool{"/keyed": true, "/unkeyed": false} {
		op := doc.Paths[path]["post"]
		header := false
		for _, p := range op.Parameters {
			header = header || p.Name == HeaderIdempotencyKey
		}
		_, reuse := op.Responses["422"]
		if header != want || reuse != want {
			t.Errorf("%s: Idempotency-Key offered %v, 422 documented %v, want %v", path, header, reuse, want)
		}
	}
}
