// Package fake is a local Turnstile siteverify: tokens minted by the test
// (as a visitor's browser would get them from the widget), each valid once
// and for five minutes, the secret key checked, Turnstile's error codes,
// idempotent retries of one verification (idempotency_key), scripted faults
// and every request recorded.
//
//	srv := fake.Start(fake.Options{SecretKey: "secret"})
//	defer srv.Close()
//	token := srv.Token("example.com", "chat", sessionID)
//	client, _ := turnstile.New(turnstile.Config{BaseURL: srv.URL(), SiteKey: "site", SecretKey: "secret"}, nil)
package fake

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"sync"
	"time"

	"github.com/platform/backend/providers/fakekit"
	"github.com/platform/backend/providers/verification/turnstile"
)

// OpVerify is the siteverify operation (scripts: srv.On(fake.OpVerify)).
const OpVerify = "siteverify"

// TokenTTL is how long a token verifies (Turnstile's five minutes).
const TokenTTL = 5 * time.Minute

// Options configure the fake.
type Options struct {
	SecretKey string
}

// Server is the fake.
type Server struct {
	*fakekit.Kit
	opts Options

	mu     sync.Mutex
	tokens map[string]*token
}

type token struct {
	hostname, action, cdata string
	issued                  time.Time
	spent                   bool
	spentKey                string
	answer                  []byte
}

// Start serves the fake on 127.0.0.1 until Close.
func Start(opts Options) *Server {
	s := &Server{opts: opts, Kit: fakekit.New(fakekit.Options{Protocol: protocol{}}), tokens: map[string]*token{}}
	s.Serve(http.HandlerFunc(s.serve))
	return s
}

// Token mints a token as the widget would give a visitor of hostname who
// solved the challenge for action, with cdata bound into it.
func (s *Server) Token(hostname, action, cdata string) string {
	b := make([]byte, 24)
	_, _ = rand.Read(b)
	t := "0." + base64.RawURLEncoding.EncodeToString(b)
	s.mu.Lock()
	s.tokens[t] = &token{hostname: hostname, action: action, cdata: cdata, issued: s.Now()}
	s.mu.Unlock()
	return t
}

type protocol struct{}

// Say answers a fault as siteverify does: its internal-error verdict on a
// 5xx, a rate limit as 429.
func (protocol) Say(w http.ResponseWriter, _ *http.Request, _ string, f fakekit.Fault) bool {
	switch f.Kind {
	case fakekit.ServerError:
		verdict(w, max(f.Status, 500), map[string]any{"success": false, "error-codes": []string{"internal-error"}})
	case fakekit.RateLimit:
		w.Header().Set("Retry-After", "1")
		verdict(w, http.StatusTooManyRequests, map[string]any{"success": false, "error-codes": []string{"internal-error"}})
	case fakekit.Malformed:
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write([]byte("<html>"))
	default:
		verdict(w, max(f.Status, 400), map[string]any{"success": false, "error-codes": []string{"bad-request"}})
	}
	return true
}

func verdict(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != turnstile.SiteverifyPath {
		http.NotFound(w, r)
		return
	}
	if r.Method != http.MethodPost {
		verdict(w, http.StatusMethodNotAllowed, map[string]any{"success": false, "error-codes": []string{"bad-request"}})
		return
	}
	c, ok := s.Begin(w, r, OpVerify)
	if !ok {
		return
	}
	if err := r.ParseForm(); err != nil {
		verdict(c.W, http.StatusBadRequest, map[string]any{"success": false, "error-codes": []string{"bad-request"}})
		return
	}
	secret, response, key := r.PostForm.Get("secret"), r.PostForm.Get("response"), r.PostForm.Get("idempotency_key")
	switch {
	case secret == "":
		verdict(c.W, http.StatusOK, refusal("missing-input-secret"))
		return
	case secret != s.opts.SecretKey:
		verdict(c.W, http.StatusOK, refusal("invalid-input-secret"))
		return
	case response == "":
		verdict(c.W, http.StatusOK, refusal("missing-input-response"))
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	t, known := s.tokens[response]
	switch {
	case !known:
		verdict(c.W, http.StatusOK, refusal("invalid-input-response"))
	case t.spent && key != "" && key == t.spentKey:
		// A retry of one verification answers the same verdict.
		c.W.Header().Set("Content-Type", "application/json")
		_, _ = c.W.Write(t.answer)
	case t.spent || s.Now().Sub(t.issued) > TokenTTL:
		verdict(c.W, http.StatusOK, refusal("timeout-or-duplicate"))
	default:
		t.spent, t.spentKey = true, key
		t.answer, _ = json.Marshal(map[string]any{"success": true, "challenge_ts": t.issued.UTC().Format(time.RFC3339Nano),
			"hostname": t.hostname, "error-codes": []string{}, "action": t.action, "cdata": t.cdata})
		c.W.Header().Set("Content-Type", "application/json")
		_, _ = c.W.Write(t.answer)
	}
}

func refusal(code string) map[string]any {
	return map[string]any{"success": false, "error-codes": []string{code}}
}
