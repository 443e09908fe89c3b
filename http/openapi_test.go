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
