// Package fake is an OpenAI API server for tests and the sandbox: the same
// paths, headers and bodies as the real API (chat completions with SSE
// streaming, embeddings, transcriptions, image generations), deterministic
// answers (see aifake.Reply) and the faults a test scripts on its Kit.
package fake

import (
	"fmt"
	"math"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/platform/backend/providers/ai/aifake"
)

// ModelSuffix is appended to the requested model in answers, the way the
// real API names the snapshot that answered ("gpt-4o-mini-2024-07-18").
const ModelSuffix = "-fake-snapshot"

// Server is the fake. Mount it under any prefix; Start mounts it at the root
// and its URL (the adapter's base URL) ends in /v1.
type Server struct {
	*aifake.Server
	key string
}

// New makes a fake accepting apiKey.
func New(apiKey string) *Server {
	s := &Server{key: apiKey}
	s.Server = aifake.NewServer(protocol{s}, func(h http.Header) { h.Set("X-Request-Id", fmt.Sprintf("req_fake_%d", s.Seq("request"))) })
	s.HandleFunc("POST /v1/chat/completions", s.chat)
	s.HandleFunc("POST /v1/embeddings", s.embeddings)
	s.HandleFunc("POST /v1/audio/transcriptions", s.transcriptions)
	s.HandleFunc("POST /v1/images/generations", s.images)
	return s
}

// Start runs a fake until the test ends.
func Start(tb testing.TB, apiKey string) *Server {
	s := New(apiKey)
	s.Server.Start(tb, "/v1")
	return s
}

type protocol struct{ s *Server }

func (p protocol) Authorized(r *http.Request) bool {
	return r.Header.Get("Authorization") == "Bearer "+p.s.key
}

// WriteError writes {"error":{"message","type","param","code"}}; a 429
// carries retry-after (seconds) and retry-after-ms.
func (p protocol) WriteError(w http.ResponseWriter, status int, retryAfter time.Duration) {
	typ, code := "invalid_request_error", any(nil)
	switch {
	case status == http.StatusUnauthorized:
		code = "invalid_api_key"
	case status == http.StatusTooManyRequests:
		typ, code = "requests", "rate_limit_exceeded"
		w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(retryAfter.Seconds()))))
		w.Header().Set("Retry-After-Ms", strconv.FormatInt(retryAfter.Milliseconds(), 10))
	case status >= 500:
		typ = "server_error"
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	fmt.Fprintf(w, `{"error":{"message":"fake error %d: %s","type":%q,"param":null,"code":%s}}`,
		status, aifake.SecretMarker, typ, jsonValue(code))
}

func jsonValue(v any) string {
	if v == nil {
		return "null"
	}
	return strconv.Quote(fmt.Sprint(v))
}
