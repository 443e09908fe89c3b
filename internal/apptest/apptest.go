// Package apptest starts a whole platform in-process for integration tests
// and benchmarks: a fresh database, its own topic prefix on the real Kafka,
// every service on a real HTTP listener, and an organization with an API key.
package apptest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"testing"
	"time"

	"github.com/platform/backend/commands"
	identitycmd "github.com/platform/backend/commands/identity"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/identity"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/internal/app"
	"github.com/platform/backend/internal/module"
	"github.com/platform/backend/internal/testenv"
)

// DefaultScopes of a harness key: every module's tenant key scopes.
var DefaultScopes = module.TenantScopes(app.Modules())

// Harness is one running platform.
type Harness struct {
	App    *app.App
	Config app.Config
	URLs   map[string]string // service -> base URL
	// WorkerURLs are the job workers' listeners (GET /health), by name
	// ("publishing-jobs").
	WorkerURLs map[string]string
	OrgID      string
	APIKey     string
	Client     *http.Client
	// operatorKey: see OperatorKey.
	operatorKey string
	pending     pending // see Client
	cancel      context.CancelFunc
	t           testing.TB // the test that started the harness
	done        chan error
}

// Options tune a harness; zero values are fine.
type Options struct {
	Configure func(*app.Config) // adjust the config before start
	NoWorkers bool              // serve HTTP only; no relay, projectors or dispatcher
	// LogTo receives the platform's log instead of stderr, at debug level
	// (tests that scan every line the platform writes).
	LogTo io.Writer
}

// Start runs a platform until the test ends.
func Start(t testing.TB, opts Options) *Harness {
	t.Helper()
	cfg := app.NewConfig()
	cfg.DatabaseURL = testenv.NewDatabase(t)
	brokers := testenv.KafkaBrokers(t)
	cfg.Kafka = eventstore.KafkaConfig{Brokers: brokers, Topics: eventstore.Topics{Prefix: testenv.TopicPrefix(t, brokers, "t")}}
	cfg.Relay = eventstore.RelayConfig{PollInterval: 50 * time.Millisecond}
	cfg.Objects.DataDir = t.TempDir() // objects of this platform only
	cfg.Projections.PollInterval = 200 * time.Millisecond
	cfg.RateLimit.PerSecond = 100000
	cfg.RateLimit.AttemptsPerMinute = 6_000_000 // tests sign in often; TestCredentialAttemptLimit sets its own
	cfg.RateLimit.InboundPerSecond = 100000     // tests post webhooks back to back; TestInboundRoutesAreLimitedPerAddress sets its own
	// Check targets of tests are loopback fakes: allowed here, explicitly
	// (nothing internal is reachable by default).
	cfg.Outbound.AllowNetworks = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}
	// Each module's test settings (its sandbox, loops tests drive
	// themselves): Module.TestEnv, the same the e2e harness uses.
	if err := cfg.Modules.ApplyTestEnv(app.Modules()); err != nil {
		t.Fatal(err)
	}
	// Secrets are sealed with the sandbox's key unless a test sets a ring.
	cfg.KeyRing.Sandbox = true
	// Every success answer the tests see is checked against its action's
	// output schema (a mismatch is a 500 output_schema_violation).
	cfg.HTTP.CheckOutput = true
	if opts.Configure != nil {
		opts.Configure(&cfg)
	}
	// The listeners exist before the platform, so that what it is built with
	// (the object store's signed URLs) can name their addresses; each serves
	// its service once the platform is built.
	servers := map[string]*httptest.Server{}
	handlers := map[string]http.Handler{}
	for _, s := range app.Listeners() {
		srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			handlers[s].ServeHTTP(w, r)
		}))
		servers[s] = srv
		t.Cleanup(srv.Close) // also when the platform fails to start
		// Every service's address is the one clients reach (an OAuth
		// callback's base URL names it).
		cfg.Addrs[s] = srv.Listener.Addr().String()
	}
	if len(cfg.Services) == 0 {
		cfg.Services = app.Listeners() // every service and the job workers
	}
	if cfg.Objects.PublicURL == "" {
		cfg.Objects.PublicURL = "http://" + servers[cfg.Services[0]].Listener.Addr().String() + "/objects"
	}
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	level := slog.LevelWarn
	if os.Getenv("PLATFORM_TEST_LOG") != "" {
		level = slog.LevelDebug
	}
	var out io.Writer = os.Stderr
	if opts.LogTo != nil {
		out, level = opts.LogTo, slog.LevelDebug
	}
	log := slog.New(slog.NewTextHandler(out, &slog.HandlerOptions{Level: level}))
	ctx, cancel := context.WithCancel(context.Background())
	a, err := app.New(ctx, cfg, log)
	if err != nil {
		cancel()
		t.Fatalf("start platform: %v", err)
	}
	h := &Harness{App: a, Config: cfg, URLs: map[string]string{}, WorkerURLs: map[string]string{}, Client: &http.Client{Timeout: 30 * time.Second},
		cancel: cancel, done: make(chan error, 1), t: t}
	for _, s := range cfg.Services {
		// The listeners' bounds of platformd (timeouts, header limit), so tests
		// meet what clients meet.
		handlers[s] = a.Handler(s)
		srv := servers[s]
		cfg.HTTP.Configure(srv.Config)
		srv.Start()
		if app.IsWorker(s) {
			h.WorkerURLs[s] = srv.URL
		} else {
			h.URLs[s] = srv.URL
		}
	}
	for s, srv := range servers {
		if handlers[s] == nil {
			srv.Listener.Close() // a service this harness does not serve
		}
	}
	if !opts.NoWorkers {
		go func() {
			err := a.Run(ctx, false)
			if err != nil && ctx.Err() == nil {
				// A task that fails stops the whole process (app.supervise):
				// a test waiting on it then times out, and this names why.
				a.Log.Error("apptest: the platform stopped", "err", err)
			}
			h.done <- err
		}()
	} else {
		close(h.done)
	}
	t.Cleanup(h.Stop)
	h.OrgID, h.APIKey = h.NewOrganization(t, "Test Org", testenv.UniqueName("org"), DefaultScopes...)
	return h
}

// Stop ends the workers and closes connections (idempotent).
func (h *Harness) Stop() {
	if h.cancel == nil {
		return
	}
	h.cancel()
	select {
	case <-h.done:
	case <-time.After(15 * time.Second):
	}
	h.App.Close()
	h.cancel = nil
}

// NewOrganization creates an organization, an owner and a key with scopes,
// through the identity commands; it returns the organization id and token.
func (h *Harness) NewOrganization(t testing.TB, name, slug string, scopes ...string) (string, string) {
	t.Helper()
	ctx := context.Background()
	system := commands.Meta{Actor: eventstore.Actor{ID: "apptest", Type: "system"}}
	org, err := h.Identity().CreateOrganization(ctx, system, identitycmd.CreateOrganization{Name: name, Slug: slugify(slug)})
	if err != nil {
		t.Fatal(err)
	}
	m := commands.Meta{OrganizationID: org.Value.OrganizationID, Actor: system.Actor}
	key, err := h.Identity().CreateAPIKey(ctx, m, identitycmd.CreateAPIKey{Name: "test", Scopes: scopes})
	if err != nil {
		t.Fatal(err)
	}
	return org.Value.OrganizationID, key.Value.Token
}

// OperatorScopes are an operator key's: the tenant scopes and the platform
// scopes of every module (replays, privacy maintenance, service tokens).
var OperatorScopes = module.OperatorScopes(app.Modules())

// Identity is the identity module's commands.
func (h *Harness) Identity() *identitycmd.Handlers { return Provided[*identitycmd.Handlers](h) }

// Access is the identity module's access half.
func (h *Harness) Access() *identitycmd.Access { return Provided[*identitycmd.Access](h) }

// Provided is what a module provided as T (its commands, its queries).
func Provided[T any](h *Harness) T {
	v, err := module.Lookup[T](h.App.Platform)
	if err != nil {
		h.t.Fatal(err) // a test asking for what no module provides
	}
	return v
}

// OperatorKey is a key of the platform administration organization holding
// the operators' platform scopes (replays, privacy maintenance): only such
// keys may hold them. The organization is made on first use, or found when a
// test made it already.
func (h *Harness) OperatorKey(t testing.TB) string {
	t.Helper()
	if h.operatorKey != "" {
		return h.operatorKey
	}
	ctx := context.Background()
	system := commands.Meta{Actor: eventstore.Actor{ID: "apptest", Type: "system"}}
	org, err := h.Identity().CreateOrganization(ctx, system, identitycmd.CreateOrganization{Name: "Platform",
		Slug: slugify(testenv.UniqueName("platform")), Administration: true})
	orgID := org.Value.OrganizationID
	if e, ok := errs.As(err); ok && e.Code == identity.UniqueAdministration+"_taken" {
		orgID, err = h.App.Store.Holder(ctx, identity.UniqueAdministration, identity.AdministrationClaim)
	}
	if err != nil {
		t.Fatal(err)
	}
	key, err := h.Identity().CreateAPIKey(ctx, commands.Meta{OrganizationID: orgID, Actor: system.Actor},
		identitycmd.CreateAPIKey{Name: "operator", Scopes: OperatorScopes})
	if err != nil {
		t.Fatal(err)
	}
	h.operatorKey = key.Value.Token
	return h.operatorKey
}

func slugify(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
			b[i] = '-'
		}
	}
	for len(b) > 0 && b[len(b)-1] == '-' {
		b = b[:len(b)-1]
	}
	if len(b) < 3 {
		return "org-" + string(b)
	}
	return string(b)
}

// Response is a decoded HTTP answer.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// JSON decodes the body into v (fails the test on error).
func (r Response) JSON(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		t.Fatalf("decode %s: %v", r.Body, err)
	}
}

// Do sends a request to a service with the harness key (token "" = the
// harness key; "-" = no credential). body may be nil, []byte or any JSON value.
func (h *Harness) Do(t testing.TB, service, method, path, token string, body any, headers ...string) Response {
	t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case []byte:
		rd = bytes.NewReader(b)
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, h.URLs[service]+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if token == "" {
		token = h.APIKey
	}
	if token != "-" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := h.Client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return Response{Status: resp.StatusCode, Header: resp.Header, Body: raw}
}

// Eventually retries cond until it holds or the timeout passes.
func Eventually(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", timeout, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
