// Package fake is a local Stripe API for the adapter's tests, other
// packages' tests and the gateway's sandbox connection. It serves every
// path of the adapter's operation table over real HTTP, checks the Bearer
// secret key, decodes each form body back into nested params and records
// every request, keeps Stripe-like objects (ids with Stripe's prefixes) per
// API key and connected account, keeps Stripe's idempotency rules, answers
// Stripe's error shapes, plays scripted faults, and sends signed webhooks.
//
// Test-mode payment methods behave as on Stripe: payment_intents.create
// with confirm=true and payment_method pm_card_visa succeeds,
// pm_card_chargeDeclined is declined (402 generic_decline) and
// pm_card_chargeDeclinedInsufficientFunds too (insufficient_funds).
package fake

import (
	"fmt"
	"io"
	"mime"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/platform/backend/providers/fakekit"
	"github.com/platform/backend/providers/payments/stripe"
)

// DefaultAPIKey is the secret key the fake accepts when Config.APIKeys is
// empty.
const DefaultAPIKey = "sk_test_fake_platform"

// DefaultWebhookSecret signs the fake's webhooks when Config.WebhookSecret
// is empty.
const DefaultWebhookSecret = "whsec_fake_platform"

// maxBody bounds a request body the fake reads.
const maxBody = 1 << 20

// Config shapes a fake.
type Config struct {
	// APIKeys are the secret keys accepted; each is its own platform
	// account (objects and idempotency keys do not cross). Default
	// DefaultAPIKey.
	APIKeys       []string
	WebhookSecret string        // default DefaultWebhookSecret
	Latency       time.Duration // added to every answer; zero by default
	Now           func() time.Time
}

func (c Config) withDefaults() Config {
	if len(c.APIKeys) == 0 {
		c.APIKeys = []string{DefaultAPIKey}
	}
	if c.WebhookSecret == "" {
		c.WebhookSecret = DefaultWebhookSecret
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	return c
}

// Request is one recorded call, whatever its outcome, with what Stripe
// reads of it.
type Request struct {
	fakekit.Request // Op is the operation once the call was admitted
	// Operation is the table's operation the path maps to ("" when none),
	// PathID the id the path names.
	Operation, PathID string
	// Params is the body (POST) or the query (GET, DELETE) decoded back into
	// nesting; leaves are strings, as on the wire.
	Params map[string]any
	// APIKey is the secret key the call carried when the fake knows it.
	APIKey                                                    string
	StripeAccount, StripeVersion, IdempotencyKey, ContentType string
}

// Server is a running fake: its kit scripts faults (per operation with On,
// see faults.go) and records calls. Safe for concurrent use.
type Server struct {
	*fakekit.Kit
	cfg     Config
	handler http.Handler

	mu     sync.Mutex
	scopes map[string]*scope
	keys   map[string]*keyEntry
}

var _ http.Handler = (*Server)(nil)

// Start serves a fake on 127.0.0.1 until Close.
func Start(cfg Config) *Server {
	s := &Server{cfg: cfg.withDefaults(), scopes: map[string]*scope{}, keys: map[string]*keyEntry{}}
	s.Kit = fakekit.New(fakekit.Options{Now: s.cfg.Now})
	s.handler = s.Handler(http.HandlerFunc(s.answer))
	s.Serve(s.handler)
	return s
}

// Requests lists every call so far, oldest first.
func (s *Server) Requests() []Request {
	recs := s.Kit.Requests()
	out := make([]Request, len(recs))
	for i, r := range recs {
		h := r.Header
		out[i] = Request{Request: r, Operation: r.Op, StripeAccount: h.Get("Stripe-Account"), StripeVersion: h.Get("Stripe-Version"),
			IdempotencyKey: h.Get("Idempotency-Key"), ContentType: h.Get("Content-Type")}
		if op, id, found := stripe.MatchPath(r.Method, r.Path); found && op.Name == r.Op {
			out[i].PathID = id
			raw := r.RawQuery
			if r.Method == http.MethodPost {
				raw = string(r.Body)
			}
			out[i].Params, _ = decodeForm(raw)
		}
		if key, ok := strings.CutPrefix(h.Get("Authorization"), "Bearer "); ok && slices.Contains(s.cfg.APIKeys, key) {
			out[i].APIKey = key
		}
	}
	return out
}

// ServeHTTP answers one call as Stripe would.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.handler.ServeHTTP(w, r) }

func (s *Server) answer(w http.ResponseWriter, r *http.Request) {
	if s.cfg.Latency > 0 {
		t := time.NewTimer(s.cfg.Latency)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			return
		}
	}
	body, _ := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	requestID := s.newID("req")
	a := s.serve(r, string(body), requestID)
	if a.drop {
		// No answer: an implicit empty 200 would look like a malformed
		// success.
		fakekit.Drop(w)
		return
	}
	h := w.Header()
	for k, v := range a.header {
		h[k] = v
	}
	h.Set("Request-Id", requestID)
	if v := r.Header.Get("Stripe-Version"); v != "" {
		h.Set("Stripe-Version", v)
	} else {
		h.Set("Stripe-Version", stripe.DefaultAPIVersion)
	}
	if k := r.Header.Get("Idempotency-Key"); k != "" && r.Method == http.MethodPost {
		h.Set("Idempotency-Key", k)
	}
	if h.Get("Content-Type") == "" {
		h.Set("Content-Type", "application/json")
	}
	w.WriteHeader(a.status)
	_, _ = w.Write(a.body)
}

// serve decides the answer: the call is admitted (size, key, route,
// params, connected account), then the scripted fault, the idempotency
// key and the operation have their say.
func (s *Server) serve(r *http.Request, body, requestID string) answer {
	c, refusal := s.admit(r, body)
	if refusal != nil {
		return refusal.answer(requestID)
	}
	fault := s.Take(r, c.op.Name)
	if a, refused := refusedFirst(fault, requestID); refused { // nothing runs, nothing is stored
		return a
	}
	s.mu.Lock()
	if c.idemKey != "" {
		if a := s.checkKey(c.idemKey, c.endpoint, canonicalParams(c.raw), requestID); a != nil {
			s.mu.Unlock()
			return *a
		}
	}
	s.mu.Unlock()

	if answered := wait(r, fault); !answered {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.settleKey(c.idemKey, answer{drop: true}, requestID)
		return answer{drop: true}
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	a, failed := failedAfter(fault, requestID)
	if !failed {
		obj, aerr := s.execute(c)
		if aerr != nil {
			a = aerr.answer(requestID)
		} else {
			a = ok(obj)
		}
	}
	s.settleKey(c.idemKey, a, requestID)
	return a
}

// admit checks what Stripe checks before any operation runs, and records
// what the call is.
func (s *Server) admit(r *http.Request, body string) (*call, *apiError) {
	if len(body) > maxBody {
		return nil, &apiError{status: 413, typ: invalidRequest, message: "Request entity too large."}
	}
	apiKey, err := s.authenticate(r)
	if err != nil {
		return nil, err
	}
	op, id, found := stripe.MatchPath(r.Method, r.URL.Path)
	if !found {
		return nil, &apiError{status: 404, typ: invalidRequest,
			message: fmt.Sprintf("Unrecognized request URL (%s: %s). Please see https://stripe.com/docs or we can help at https://support.stripe.com/.", r.Method, r.URL.Path)}
	}
	raw := r.URL.RawQuery
	if r.Method == http.MethodPost {
		raw = body
		if ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); body != "" && ct != "application/x-www-form-urlencoded" {
			return nil, &apiError{status: 400, typ: invalidRequest, message: "Invalid request: the body must be application/x-www-form-urlencoded."}
		}
	}
	params, derr := decodeForm(raw)
	if derr != nil {
		return nil, &apiError{status: 400, typ: invalidRequest, message: "Invalid request: " + derr.Error()}
	}
	account := r.Header.Get("Stripe-Account")
	idemKey := ""
	if k := r.Header.Get("Idempotency-Key"); k != "" && r.Method == http.MethodPost { // Stripe ignores it on GET and DELETE
		if len(k) > 255 {
			return nil, &apiError{status: 400, typ: invalidRequest, message: "Idempotency-Key must be at most 255 characters long."}
		}
		idemKey = scopedKey(apiKey, account, k)
	}

	s.Label(r, op.Name)
	s.mu.Lock()
	defer s.mu.Unlock()
	c := &call{op: op, id: id, params: params, raw: raw, idemKey: idemKey, endpoint: r.Method + " " + r.URL.Path,
		now: s.cfg.Now().Unix(), platform: s.scope(apiKey, "")}
	if account != "" {
		if _, ok := s.find(c.platform, account, "account"); !ok {
			return nil, &apiError{status: 403, typ: invalidRequest, code: "account_invalid",
				message: "The provided key does not have access to account '" + account + "' (or that account does not exist). Application access may have been revoked."}
		}
	}
	c.scope = s.scope(apiKey, account)
	return c, nil
}

// authenticate reads the Bearer secret key.
func (s *Server) authenticate(r *http.Request) (string, *apiError) {
	auth := r.Header.Get("Authorization")
	key, bearer := strings.CutPrefix(auth, "Bearer ")
	if auth == "" || !bearer || key == "" {
		return "", &apiError{status: 401, typ: invalidRequest,
			message: "You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth."}
	}
	for _, k := range s.cfg.APIKeys {
		if k == key {
			return key, nil
		}
	}
	return "", &apiError{status: 401, typ: invalidRequest, message: "Invalid API Key provided: " + redact(key)}
}

// redact shows a key the way Stripe does: its prefix and last four.
func redact(key string) string {
	if len(key) <= 12 {
		return "****"
	}
	return key[:8] + "****" + key[len(key)-4:]
}

// newID is a Stripe-like id: prefix, "_fake", a sequence number.
func (s *Server) newID(prefix string) string {
	return fmt.Sprintf("%s_fake%08d", prefix, s.Seq("id"))
}
