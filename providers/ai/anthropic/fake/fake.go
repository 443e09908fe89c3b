// Package fake is an Anthropic Messages API server for tests and the
// sandbox: POST /v1/messages with x-api-key and anthropic-version, the
// API's content blocks, its SSE event sequence, deterministic answers (see
// aifake.Reply) and the faults a test scripts on its Kit.
package fake

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/platform/backend/providers/ai/aifake"
)

// ModelSuffix is appended to the requested model in answers (an alias
// answered by a dated snapshot).
const ModelSuffix = "-20250101"

// Version is the anthropic-version the fake accepts.
const Version = "2023-06-01"

// Server is the fake. Start mounts it at the root; URL is the adapter's base URL.
type Server struct {
	*aifake.Server
	key string
}

// New makes a fake accepting apiKey.
func New(apiKey string) *Server {
	s := &Server{key: apiKey}
	s.Server = aifake.NewServer(protocol{s}, func(h http.Header) { h.Set("Request-Id", fmt.Sprintf("req_fake_%d", s.Seq("request"))) })
	s.HandleFunc("POST /v1/messages", s.messages)
	return s
}

// Start runs a fake until the test ends.
func Start(tb testing.TB, apiKey string) *Server {
	s := New(apiKey)
	s.Server.Start(tb, "")
	return s
}

type protocol struct{ s *Server }

func (p protocol) Authorized(r *http.Request) bool { return r.Header.Get("X-Api-Key") == p.s.key }

// errorTypes are the API's error types by status.
var errorTypes = map[int]string{
	400: "invalid_request_error", 401: "authentication_error", 403: "permission_error", 404: "not_found_error",
	413: "request_too_large", 429: "rate_limit_error", 500: "api_error", 529: "overloaded_error",
}

// WriteError writes {"type":"error","error":{"type","message"},"request_id"};
// a 429 carries retry-after in seconds.
func (p protocol) WriteError(w http.ResponseWriter, status int, retryAfter time.Duration) {
	typ, ok := errorTypes[status]
	if !ok {
		typ = "invalid_request_error"
		if status >= 500 {
			typ = "api_error"
		}
	}
	if status == http.StatusTooManyRequests {
		w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(retryAfter.Seconds()))))
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	b, _ := json.Marshal(map[string]any{"type": "error", "request_id": w.Header().Get("Request-Id"),
		"error": map[string]any{"type": typ, "message": "fake error: " + aifake.SecretMarker}})
	_, _ = w.Write(b)
}
