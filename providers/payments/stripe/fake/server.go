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
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

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

// Request is one recorded call, whatever its outcome.
type Request struct {
	Method, Path, RawQuery string
	// Body is the form body exactly as sent.
	Body string
	// Operation is the table's operation the path maps to ("" when none),
	// PathID the id the path names.
	Operation, PathID string
	// Params is the body (POST) or the query (GET, DELETE) decoded back into
	// nesting; leaves are strings, as on the wire.
	Params                                                            map[string]any
	APIKey, StripeAccount, StripeVersion, IdempotencyKey, ContentType string
	// Status is what the fake answered; 0 while the call is in flight or
	// when it ended without an answer.
	Status   int
	Replayed bool
}

// Server is a running fake. Safe for concurrent use.
type Server struct {
	cfg     Config
	httpSrv *http.Server
	url     string
	closing chan struct{}
	once    sync.Once

	mu      sync.Mutex
	scopes  map[string]*scope
	keys    map[string]*keyEntry
	script  script
	records []Request
	seq     int
}

var _ http.Handler = (*Server)(nil)

// Start serves a fake on 127.0.0.1 until Close.
func Start(cfg Config) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("stripe fake: listen: %w", err)
	}
	s := &Server{cfg: cfg.withDefaults(), closing: make(chan struct{}),
		scopes: map[string]*scope{}, keys: map[string]*keyEntry{}, url: "http://" + ln.Addr().String()}
	s.httpSrv = &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = s.httpSrv.Serve(ln) }() // returns ErrServerClosed on Close
	return s, nil
}

// URL is the adapter's Config.BaseURL.
func (s *Server) URL() string { return s.url }

// Close stops the fake; calls that hang or wait at a gate end.
func (s *Server) Close() error {
	s.once.Do(func() { close(s.closing) })
	return s.httpSrv.Close()
}

// Requests lists every call so far, oldest first.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.records...)
}

// ServeHTTP answers one call as Stripe would.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
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
	s.mu.Lock()
	i := len(s.records)
	s.records = append(s.records, Request{Method: r.Method, Path: r.URL.Path, RawQuery: r.URL.RawQuery, Body: string(body),
		StripeAccount: r.Header.Get("Stripe-Account"), StripeVersion: r.Header.Get("Stripe-Version"),
		IdempotencyKey: r.Header.Get("Idempotency-Key"), ContentType: r.Header.Get("Content-Type")})
	requestID := s.newID("req")
	s.mu.Unlock()

	a := s.serve(r, i, string(body), requestID)

	s.mu.Lock()
	if !a.drop {
		s.records[i].Status = a.status
	}
	s.records[i].Replayed = a.header.Get("Idempotent-Replayed") == "true"
	s.mu.Unlock()
	if a.drop {
		// No answer: an implicit empty 200 would look like a malformed
		// success.
		if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
			_ = conn.Close()
		}
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
func (s *Server) serve(r *http.Request, rec int, body, requestID string) answer {
	c, refusal := s.admit(r, rec, body)
	if refusal != nil {
		return refusal.answer(requestID)
	}

	s.mu.Lock()
	fault := s.takeFault()
	switch fault.Kind {
	case RateLimit: // refused before anything runs: nothing stored
		s.mu.Unlock()
		a := (&apiError{status: 429, typ: invalidRequest, code: "rate_limit",
			message: "Request rate limit exceeded. Learn more about rate limits here https://stripe.com/docs/rate-limits."}).answer(requestID)
		a.header = http.Header{"Retry-After": {strconv.Itoa(fault.retryAfterSeconds())}, "Stripe-Should-Retry": {"true"}}
		return a
	case Malformed: // a proxy's page instead of Stripe's answer
		s.mu.Unlock()
		return answer{status: 200, body: []byte("<html><body>502 Bad Gateway</body></html>"),
			header: http.Header{"Content-Type": {"text/html"}}}
	}
	if c.idemKey != "" {
		if a := s.checkKey(c.idemKey, c.endpoint, canonicalParams(c.raw), requestID); a != nil {
			s.mu.Unlock()
			return *a
		}
	}
	s.mu.Unlock()

	if answered := s.wait(r, fault); !answered {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.settleKey(c.idemKey, answer{drop: true}, requestID)
		return answer{drop: true}
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	var a answer
	switch fault.Kind {
	case ServerError:
		a = (&apiError{status: 500, typ: "api_error",
			message: "An unknown error occurred while processing your request."}).answer(requestID)
		a.header = http.Header{"Stripe-Should-Retry": {"true"}}
	case CardDeclined:
		a = cardDeclined(fault.DeclineCode).answer(requestID)
	default:
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
func (s *Server) admit(r *http.Request, rec int, body string) (*call, *apiError) {
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

	s.mu.Lock()
	defer s.mu.Unlock()
	s.records[rec].Operation, s.records[rec].PathID, s.records[rec].Params, s.records[rec].APIKey = op.Name, id, params, apiKey
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

// wait plays Hang and Hold; false when the call ends without an answer.
func (s *Server) wait(r *http.Request, f Fault) bool {
	switch f.Kind {
	case Hang:
		select {
		case <-r.Context().Done():
		case <-s.closing:
		}
		return false
	case Hold:
		if f.Gate == nil {
			return true
		}
		f.Gate.enter()
		select {
		case <-f.Gate.released:
			return true
		case <-r.Context().Done():
		case <-s.closing:
		}
		return false
	}
	return true
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

// newID is a Stripe-like id: prefix, "_fake", a sequence number. Caller
// holds s.mu.
func (s *Server) newID(prefix string) string {
	s.seq++
	return fmt.Sprintf("%s_fake%08d", prefix, s.seq)
}
