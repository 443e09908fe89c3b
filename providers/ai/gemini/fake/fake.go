// Package fake is a Gemini API server for tests and the sandbox:
// /v1beta/models/{model}:generateContent and :streamGenerateContent?alt=sse
// with x-goog-api-key, Google's error shape (a bad key is 400
// INVALID_ARGUMENT with ErrorInfo API_KEY_INVALID, as the real API answers;
// 429 carries RetryInfo), deterministic answers (see aifake.Reply) and the
// faults a test scripts on its Kit.
package fake

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/platform/backend/providers/ai/aifake"
)

// ModelSuffix is appended to the requested model in modelVersion.
const ModelSuffix = "-001"

// Server is the fake. Start mounts it at the root; URL is the adapter's base URL.
type Server struct {
	*aifake.Server
	key string
}

// New makes a fake accepting apiKey.
func New(apiKey string) *Server {
	s := &Server{key: apiKey}
	s.Server = aifake.NewServer(protocol{s}, nil)
	s.HandleFunc("POST /v1beta/models/{call}", s.models)
	return s
}

// Start runs a fake until the test ends.
func Start(tb testing.TB, apiKey string) *Server {
	s := New(apiKey)
	s.Server.Start(tb, "")
	return s
}

func (s *Server) responseID() string { return fmt.Sprintf("fake-response-%d", s.Seq("response")) }

type protocol struct{ s *Server }

func (p protocol) Authorized(r *http.Request) bool { return r.Header.Get("X-Goog-Api-Key") == p.s.key }

// WriteError writes {"error":{"code","message","status","details"}}.
func (p protocol) WriteError(w http.ResponseWriter, status int, retryAfter time.Duration) {
	code, state := status, "INVALID_ARGUMENT"
	var details []any
	switch {
	case status == http.StatusUnauthorized: // the real API's answer to a bad key
		code = http.StatusBadRequest
		details = []any{map[string]any{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "API_KEY_INVALID",
			"domain": "googleapis.com", "metadata": map[string]any{"service": "generativelanguage.googleapis.com"}}}
	case status == http.StatusForbidden:
		state = "PERMISSION_DENIED"
	case status == http.StatusNotFound:
		state = "NOT_FOUND"
	case status == http.StatusTooManyRequests:
		state = "RESOURCE_EXHAUSTED"
		details = []any{map[string]any{"@type": "type.googleapis.com/google.rpc.RetryInfo",
			"retryDelay": fmt.Sprintf("%gs", retryAfter.Seconds())}}
	case status == http.StatusServiceUnavailable:
		state = "UNAVAILABLE"
	case status >= 500:
		state = "INTERNAL"
	}
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.WriteHeader(code)
	b, _ := json.Marshal(map[string]any{"error": map[string]any{"code": code, "status": state,
		"message": "fake error: " + aifake.SecretMarker, "details": details}})
	_, _ = w.Write(b)
}
