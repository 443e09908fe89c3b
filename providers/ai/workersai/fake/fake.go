// Package fake is a Cloudflare Workers AI REST server for tests and the
// sandbox: accounts/{id}/ai/run/{model} (chat with SSE streaming, bge
// embeddings, whisper transcription, flux images, chosen by the model's
// name), accounts/{id}/ai/tomarkdown and accounts/{id}/autorag/rags/{name}/search,
// all in Cloudflare's envelope, with deterministic answers (see
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

// Server is the fake. Start mounts it at the root; URL (the adapter's base
// URL) ends in /client/v4.
type Server struct {
	*aifake.Server
	key, account string
}

// New makes a fake accepting apiToken for account.
func New(apiToken, account string) *Server {
	s := &Server{key: apiToken, account: account}
	s.Server = aifake.NewServer(protocol{s}, func(h http.Header) { h.Set("Cf-Ray", fmt.Sprintf("%016x-FAKE", s.Seq("ray"))) })
	s.HandleFunc("POST /client/v4/accounts/{account}/ai/run/{model...}", s.run)
	s.HandleFunc("POST /client/v4/accounts/{account}/ai/tomarkdown", s.markdown)
	s.HandleFunc("POST /client/v4/accounts/{account}/autorag/rags/{name}/search", s.autorag)
	return s
}

// Start runs a fake until the test ends.
func Start(tb testing.TB, apiToken, account string) *Server {
	s := New(apiToken, account)
	s.Server.Start(tb, "/client/v4")
	return s
}

// begin also checks the account in the path: a token for another account
// is refused like the real API refuses it.
func (s *Server) begin(w http.ResponseWriter, r *http.Request) (*aifake.Call, bool) {
	call, ok := s.Begin(w, r)
	if ok && r.PathValue("account") != s.account {
		call.Fail(http.StatusForbidden)
		return nil, false
	}
	return call, ok
}

// ok writes the envelope around a result.
func ok(call *aifake.Call, result any) {
	call.JSON(map[string]any{"result": result, "success": true, "errors": []any{}, "messages": []any{}})
}

type protocol struct{ s *Server }

func (p protocol) Authorized(r *http.Request) bool {
	return r.Header.Get("Authorization") == "Bearer "+p.s.key
}

// errorCodes are Cloudflare API error codes by status.
var errorCodes = map[int]int{400: 5006, 401: 10000, 403: 10000, 404: 7003, 429: 3040, 500: 3043, 503: 3043}

// WriteError writes {"result":null,"success":false,"errors":[{"code","message"}],
// "messages":[]}; a 429 carries Retry-After in seconds.
func (p protocol) WriteError(w http.ResponseWriter, status int, retryAfter time.Duration) {
	code, known := errorCodes[status]
	if !known {
		code = 7000
	}
	if status == http.StatusTooManyRequests {
		w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(retryAfter.Seconds()))))
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	b, _ := json.Marshal(map[string]any{"result": nil, "success": false, "messages": []any{},
		"errors": []any{map[string]any{"code": code, "message": "fake error: " + aifake.SecretMarker}}})
	_, _ = w.Write(b)
}
