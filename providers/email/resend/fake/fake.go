// Package fake is a local Resend: POST /emails with a Bearer key, Resend's
// answers and error bodies, Idempotency-Key honoured (the same key and body
// answer the first id again; another body is a 409), scripted faults, every
// request recorded, deterministic ids, and Svix-signed webhooks sent to a
// URL of the test's choosing.
//
//	srv := fake.Start(fake.Options{APIKey: "re_test", WebhookSecret: "whsec_..."})
//	defer srv.Close()
//	srv.Next(1, fakekit.Fault{Kind: fakekit.RateLimit, RetryAfter: 3 * time.Second})
//	client, _ := resend.New(resend.Config{BaseURL: srv.URL(), APIKey: "re_test"})
package fake

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/mail"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/platform/backend/providers/delivery"
	"github.com/platform/backend/providers/email/resend"
	"github.com/platform/backend/providers/fakekit"
)

// Options configure the fake.
type Options struct {
	APIKey        string // the key calls must carry
	WebhookSecret string // "whsec_<base64>", for SendWebhook
}

// Server is the fake. Script faults with Next, Then, When (a rule's
// subjects are the message's recipients), Always; read calls with Requests.
type Server struct {
	*fakekit.Kit
	opts Options

	mu   sync.Mutex
	seen map[string]idempotent // Idempotency-Key -> first call
}

type idempotent struct {
	body []byte
	id   string
}

// Start serves the fake on 127.0.0.1 until Close.
func Start(opts Options) *Server {
	s := &Server{opts: opts, seen: map[string]idempotent{}, Kit: fakekit.New(fakekit.Options{Protocol: protocol{}})}
	s.Serve(http.HandlerFunc(s.serve))
	return s
}

// EmailID is the id the fake gives the n-th accepted message (1-based).
func EmailID(n int) string { return fmt.Sprintf("49a3999c-0ce1-4ea6-ab68-%012d", n) }

// request is what the fake reads of a send: enough to validate it. to, cc
// and bcc may be a string or an array.
type request struct {
	From    string          `json:"from"`
	To      json.RawMessage `json:"to"`
	Cc      json.RawMessage `json:"cc"`
	Bcc     json.RawMessage `json:"bcc"`
	Subject string          `json:"subject"`
	HTML    string          `json:"html"`
	Text    string          `json:"text"`
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/emails" {
		answer(w, http.StatusNotFound, "not_found", "The requested endpoint does not exist.")
		return
	}
	if r.Method != http.MethodPost {
		answer(w, http.StatusMethodNotAllowed, "method_not_allowed", "Method is not allowed for the requested path.")
		return
	}
	key, hasBearer := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	switch {
	case !hasBearer || key == "":
		answer(w, http.StatusUnauthorized, "missing_api_key", "Missing API key in the authorization header.")
		return
	case !delivery.SecretEqual(key, s.opts.APIKey):
		answer(w, http.StatusForbidden, "invalid_api_key", "API key is invalid")
		return
	}
	body, _ := io.ReadAll(r.Body)
	var req request
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if mt != "application/json" || json.Unmarshal(body, &req) != nil {
		answer(w, http.StatusUnprocessableEntity, "validation_error", "Invalid JSON body.")
		return
	}
	to := addresses(req.To)
	for _, m := range []struct {
		member  string
		missing bool
	}{{"from", req.From == ""}, {"to", len(to) == 0}, {"subject", req.Subject == ""}} {
		if m.missing {
			answer(w, http.StatusUnprocessableEntity, "missing_required_field", "Missing `"+m.member+"` field.")
			return
		}
	}
	idemKey := r.Header.Get("Idempotency-Key")
	if len(idemKey) > 256 {
		answer(w, http.StatusBadRequest, "invalid_idempotency_key", "The key must be between 1-256 chars.")
		return
	}
	if prior, ok := s.prior(idemKey); ok {
		if !bytes.Equal(prior.body, body) {
			answer(w, http.StatusConflict, "invalid_idempotent_request", "Same idempotency key used with a different request payload.")
			return
		}
		writeJSON(w, http.StatusOK, map[string]string{"id": prior.id})
		return
	}
	call, ok := s.Begin(w, r, "", append(append(to, addresses(req.Cc)...), addresses(req.Bcc)...)...)
	if !ok {
		return
	}
	id := EmailID(s.Seq("email"))
	s.remember(idemKey, idempotent{body: body, id: id})
	call.JSON(map[string]string{"id": id})
}

// protocol says faults as Resend does.
type protocol struct{}

func (protocol) Say(w http.ResponseWriter, _ *http.Request, _ string, f fakekit.Fault) bool {
	switch f.Kind {
	case fakekit.Reject:
		name := f.Code
		if name == "" {
			name = "validation_error"
		}
		answer(w, http.StatusUnprocessableEntity, name, "Invalid `to` field. The email address needs to follow the `email@example.com` or `Name <email@example.com>` format.")
	case fakekit.Unauthorized:
		answer(w, http.StatusForbidden, "invalid_api_key", "API key is invalid")
	case fakekit.ServerError:
		answer(w, f.StatusOr(http.StatusInternalServerError), "internal_server_error", "An unexpected error occurred.")
	case fakekit.RateLimit:
		secs := strconv.Itoa(f.RetryAfterSeconds())
		w.Header().Set("Retry-After", secs)
		w.Header().Set("Ratelimit-Limit", "2")
		w.Header().Set("Ratelimit-Remaining", "0")
		w.Header().Set("Ratelimit-Reset", secs)
		answer(w, http.StatusTooManyRequests, "rate_limit_exceeded", "Too many requests. You can only make 2 requests per second.")
	case fakekit.Malformed:
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"id":`)
	default:
		return false
	}
	return true
}

func (s *Server) prior(key string) (idempotent, bool) {
	if key == "" {
		return idempotent{}, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.seen[key]
	return p, ok
}

func (s *Server) remember(key string, v idempotent) {
	if key == "" {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seen[key] = v
}

func answer(w http.ResponseWriter, status int, name, message string) {
	writeJSON(w, status, map[string]any{"statusCode": status, "name": name, "message": message})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// addresses reads a string or an array of "Name <a@b>" strings.
func addresses(raw json.RawMessage) []string {
	var list []string
	if json.Unmarshal(raw, &list) != nil {
		var one string
		if json.Unmarshal(raw, &one) != nil || one == "" {
			return nil
		}
		list = []string{one}
	}
	out := make([]string, 0, len(list))
	for _, s := range list {
		if a, err := mail.ParseAddress(s); err == nil {
			s = a.Address
		}
		out = append(out, s)
	}
	return out
}

// WebhookBody is the event Resend posts for ev: email.delivered,
// email.bounced (bounce type ev.Reason, default Permanent) or email.failed.
func WebhookBody(ev delivery.Event) []byte {
	at := ev.OccurredAt.UTC().Format("2006-01-02T15:04:05.000Z")
	data := map[string]any{"created_at": at, "email_id": ev.MessageID, "from": "Platform <noreply@platform.example>",
		"to": []string{ev.Recipient}, "subject": "Welcome", "tags": map[string]string{}}
	typ := "email.delivered"
	switch ev.Kind {
	case delivery.Bounced:
		typ = "email.bounced"
		bounce := ev.Reason
		if bounce == "" {
			bounce = "Permanent"
		}
		data["bounce"] = map[string]string{"message": "The recipient's email address does not exist.", "subType": "General", "type": bounce}
	case delivery.Failed:
		typ = "email.failed"
		data["failed"] = map[string]string{"reason": "reached_daily_quota"}
	}
	b, _ := json.Marshal(map[string]any{"type": typ, "created_at": at, "data": data})
	return b
}

// SendWebhook posts ev to url as Resend would, signed with the configured
// secret at the current time, and returns the receiver's status.
func (s *Server) SendWebhook(ctx context.Context, url string, ev delivery.Event) (int, error) {
	body := WebhookBody(ev)
	id := fmt.Sprintf("msg_fake%06d", s.Seq("webhook"))
	h := resend.Webhook{Secret: s.opts.WebhookSecret}.Sign(id, time.Now(), body)
	return fakekit.PostWebhook(ctx, url, h, body)
}
