package httpapi_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gorilla/mux"

	httpapi "github.com/platform/backend/http"
)

// exactService has an action on /api/things/{id}, a plain route /plain and
// an exact route /exact; both plain routes answer 200 "ok".
func exactService(exact map[string]http.Handler) httpapi.Service {
	ok := func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok") }
	return httpapi.Service{Name: "test", Actions: []httpapi.Action{{
		Name: "test.things.get", Method: http.MethodGet, Path: "/api/things/{id}", AuthorizationMode: httpapi.AuthPublic,
		Summary: "a thing", ReadOnly: true, InputSchema: json.RawMessage(`{"type":"object","properties":{"id":{"type":"string"}}}`),
		OutputSchema: json.RawMessage(`{"type":"object"}`),
		Handle: func(context.Context, *httpapi.Call) (httpapi.Reply, error) {
			return httpapi.Reply{Body: map[string]bool{"ok": true}}, nil
		},
	}}, Routes: func(r *mux.Router) { r.HandleFunc("/plain", ok) }, Exact: exact}
}

func exactDeps() httpapi.Deps {
	return httpapi.Deps{Limiter: httpapi.NewLimiter(httpapi.RateLimitConfig{}), Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
}

// TestExactRoutesAnswerAsRoutesDo: an exact route (served ahead of the
// router) gets what a plain route of the router gets, for every request:
// the kernel's headers, the same route checks (a body that is not JSON,
// a NUL in the query), and its other paths still reach the router. A path
// the router also serves, by any method, is refused at start.
func TestExactRoutesAnswerAsRoutesDo(t *testing.T) {
	ok := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok") })
	h, err := httpapi.NewHandler(exactService(map[string]http.Handler{"/exact": ok}), exactDeps())
	if err != nil {
		t.Fatal(err)
	}
	serve := func(method, target, contentType, body string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(method, target, strings.NewReader(body))
		if contentType != "" {
			req.Header.Set("Content-Type", contentType)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}
	for _, tc := range []struct {
		method, query, contentType, body string
		want                             int
	}{
		{http.MethodGet, "", "", "", http.StatusOK},
		{http.MethodPost, "", "", "", http.StatusOK},
		{http.MethodPost, "", "application/json", `{}`, http.StatusOK},
		{http.MethodPost, "", "text/plain", "hello", http.StatusUnsupportedMediaType},
		{http.MethodGet, "?q=a%00b", "", "", http.StatusUnprocessableEntity},
	} {
		plain := serve(tc.method, "/plain"+tc.query, tc.contentType, tc.body)
		exact := serve(tc.method, "/exact"+tc.query, tc.contentType, tc.body)
		if plain.Code != tc.want || exact.Code != tc.want {
			t.Errorf("%s %s (%s): plain route %d, exact route %d; want %d", tc.method, tc.query, tc.contentType, plain.Code, exact.Code, tc.want)
		}
		for _, name := range []string{"X-Content-Type-Options", "Content-Type"} {
			if plain.Header().Get(name) != exact.Header().Get(name) {
				t.Errorf("%s %s: header %s: plain %q, exact %q", tc.method, tc.query, name, plain.Header().Get(name), exact.Header().Get(name))
			}
		}
		if exact.Header().Get(httpapi.HeaderRequestID) == "" {
			t.Errorf("%s %s: the exact route's answer has no request id", tc.method, tc.query)
		}
		if code := problemCode(t, exact); code != problemCode(t, plain) {
			t.Errorf("%s %s: plain %s, exact %s", tc.method, tc.query, plain.Body, exact.Body)
		}
	}
	for _, path := range []string{"/api/things/1", "/plain", "/exact/", "/nowhere"} {
		want := http.StatusOK
		if path == "/exact/" || path == "/nowhere" {
			want = http.StatusNotFound
		}
		if got := serve(http.MethodGet, path, "", "").Code; got != want {
			t.Errorf("GET %s: %d, want %d", path, got, want)
		}
	}

	for _, path := range []string{"/api/things/7", "/plain", "/api/health", "exact", "/a/../exact"} {
		if _, err := httpapi.NewHandler(exactService(map[string]http.Handler{path: ok}), exactDeps()); err == nil {
			t.Errorf("an exact route on %s was accepted", path)
		}
	}
}

// problemCode is an answer's problem code ("" for a success).
func problemCode(t *testing.T, rec *httptest.ResponseRecorder) string {
	t.Helper()
	if rec.Code < 400 {
		return ""
	}
	var p struct {
		Code string `json:"code"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &p); err != nil || p.Code == "" {
		t.Fatalf("%d %s: not a problem (%v)", rec.Code, rec.Body, err)
	}
	return p.Code
}
