package httpapi_test

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	contactsmod "github.com/platform/backend/internal/modules/contacts"

	"github.com/platform/backend/internal/app"
	"github.com/platform/backend/internal/apptest"
	"github.com/platform/backend/internal/module"
)

// platformProblem: every problem, the public routes' included, has the
// platform's type for its code (never about:blank).
func platformProblem(t *testing.T, p apptest.Problem) {
	t.Helper()
	if want := "https://platform.local/problems/" + p.Code; p.Type != want {
		t.Fatalf("problem type %q, want %q", p.Type, want)
	}
}

// TestParametersAndBodiesMustBeUTF8: NUL and invalid UTF-8 in a path or
// query parameter are refused at the parameter on every route, actions and
// plain routes alike, public ones included, before anything reads the
// database (the webhook routes answered 500, SQLSTATE 22021, to a NUL
// connection id); a JSON body that is not UTF-8 is refused at the member
// (it was decoded with U+FFFD in place of the bad bytes, and a gateway call
// went on and was charged).
func TestParametersAndBodiesMustBeUTF8(t *testing.T) {
	h := apptest.Start(t, apptest.Options{NoWorkers: true})
	before := h.Count(t, `SELECT count(*) FROM es_events`)
	for _, c := range []struct {
		name, service, method, path string
		body                        []byte
		status                      int
		pointer                     string
	}{
		{"stripe webhook NUL", "gateway", http.MethodPost, "/webhooks/stripe/conn_%00", []byte(`{}`), 400, "/connectionId"},
		{"stripe webhook invalid", "gateway", http.MethodPost, "/webhooks/stripe/conn_%ff", []byte(`{}`), 400, "/connectionId"},
		{"postmark webhook NUL", "gateway", http.MethodPost, "/webhooks/postmark/%00", []byte(`{}`), 400, "/connectionId"},
		{"resend webhook invalid", "gateway", http.MethodPost, "/webhooks/resend/a%ffb", []byte(`{}`), 400, "/connectionId"},
		{"whatsapp webhook NUL", "gateway", http.MethodPost, "/webhooks/whatsapp/%00", []byte(`{}`), 400, "/connectionId"},
		{"whatsapp handshake NUL", "gateway", http.MethodGet, "/webhooks/whatsapp/%00?hub.mode=subscribe&hub.verify_token=x&hub.challenge=1", nil, 400, "/connectionId"},
		{"whatsapp handshake invalid query", "gateway", http.MethodGet, "/webhooks/whatsapp/conn_x?hub.mode=subscribe&hub.verify_token=%ff&hub.challenge=1", nil, 400, "/hub.verify_token"},
		{"oauth callback path", "publishing", http.MethodGet, "/api/integrations/network_%ff/callback?code=c&state=s", nil, 400, "/platform"},
		{"oauth callback query", "publishing", http.MethodGet, "/api/integrations/network_1/callback?code=c&state=%00", nil, 400, "/state"},
		{"action path", "status", http.MethodPatch, "/api/incidents/a%ffb", []byte(`{"message":"m"}`), 422, "/incidentId"},
		{"action query", "status", http.MethodGet, "/api/incidents?incidentId=%ff", nil, 422, "/incidentId"},
		{"contacts path (400 service)", "contacts", http.MethodGet, "/api/contacts/%ff", nil, 400, "/id"},
		{"body member", "status", http.MethodPost, "/api/incidents", []byte("{\"title\":\"a\xffb\",\"message\":\"m\",\"severity\":\"minor\"}"), 422, "/title"},
		{"nested body member", "status", http.MethodPost, "/api/incidents", []byte("{\"title\":\"t\",\"message\":\"m\",\"severity\":\"minor\",\"x\":[\"\xc3\"]}"), 422, "/x/0"},
		{"body member name", "status", http.MethodPost, "/api/incidents", []byte("{\"title\":\"t\",\"message\":\"m\",\"severity\":\"minor\",\"\xfe\":1}"), 422, "/\ufffd"},
		{"metered gateway call", "gateway", http.MethodPost, "/api/ai/completions", []byte("{\"prompt\":\"charge me \xff\",\"app_id\":\"studio\"}"), 422, "/prompt"},
	} {
		t.Run(c.name, func(t *testing.T) {
			token := "" // the harness key: refused before authentication matters
			if strings.HasPrefix(c.path, "/webhooks/") || strings.Contains(c.path, "/callback") {
				token = "-" // public: no credential at all
			}
			var body any
			if c.body != nil {
				body = c.body
			}
			p := apptest.ExpectProblem(t, h.Do(t, c.service, c.method, c.path, token, body), c.status, "invalid_input")
			if got := kernelPointers(p); len(got) != 1 || got[0] != c.pointer {
				t.Fatalf("pointers %q, want [%q]", got, c.pointer)
			}
			platformProblem(t, p)
		})
	}
	if after := h.Count(t, `SELECT count(*) FROM es_events`); after != before {
		t.Fatalf("refused input appended %d events", after-before)
	}
	// A refused webhook is the platform's problem too (it was about:blank).
	p := apptest.ExpectProblem(t, h.Do(t, "gateway", http.MethodPost, "/webhooks/stripe/conn_unknown", "-", []byte(`{"id":"evt_1"}`)),
		http.StatusNotFound, "not_found")
	platformProblem(t, p)
}

// TestInboundRoutesAreLimitedPerAddress: the public routes third parties
// call without a credential (providers' webhooks, the OAuth callback) take
// from one bucket per client address: past its burst 429 rate_limited with
// Retry-After, and nothing more is processed (300 unsigned webhooks from one
// address were all looked up). Routes with a credential are not limited by
// it.
func TestInboundRoutesAreLimitedPerAddress(t *testing.T) {
	h := apptest.Start(t, apptest.Options{NoWorkers: true, Configure: func(c *app.Config) {
		c.RateLimit.InboundPerSecond, c.RateLimit.InboundBurst = 0.5, 5
	}})
	responses := make([]apptest.Response, 60)
	var wg sync.WaitGroup
	for i := range responses {
		wg.Add(1)
		go func() {
			defer wg.Done()
			path := "/webhooks/stripe/conn_" + strconv.Itoa(i)
			responses[i] = h.Do(t, "gateway", http.MethodPost, path, "-", []byte(`{"id":"evt_x"}`), "Stripe-Signature", "t=1,v1=00")
		}()
	}
	wg.Wait()
	statuses := map[int]int{}
	for _, res := range responses {
		statuses[res.Status]++
		if res.Status == http.StatusTooManyRequests {
			platformProblem(t, apptest.ExpectProblem(t, res, http.StatusTooManyRequests, "rate_limited"))
			if n, err := strconv.Atoi(res.Header.Get("Retry-After")); err != nil || n < 1 {
				t.Fatalf("429 with Retry-After %q", res.Header.Get("Retry-After"))
			}
		}
	}
	// The burst, and at most a token or two more while the calls ran.
	if statuses[http.StatusNotFound] < 5 || statuses[http.StatusNotFound] > 8 || statuses[http.StatusTooManyRequests] < 52 {
		t.Fatalf("statuses %v: want the burst of 5 looked up (404) and the rest 429", statuses)
	}
	// The OAuth callback shares the address's bucket, which is empty now.
	res := h.Do(t, "publishing", http.MethodGet, "/api/integrations/network_1/callback?code=c&state=s", "-", nil)
	apptest.ExpectProblem(t, res, http.StatusTooManyRequests, "rate_limited")
	// A route with a credential is not an inbound route.
	for range 10 {
		apptest.Must(t, h.Do(t, "gateway", http.MethodGet, "/api/connections", "", nil), http.StatusOK, "an authenticated read")
	}
}

// TestOversizedBodiesAre413: a body past its bound is 413 payload_too_large
// on every kind of route (it was 422, 400 on the contacts API and on the
// webhooks), by its declared length before anything is read, or when a
// chunked body passes the bound.
func TestOversizedBodiesAre413(t *testing.T) {
	h := apptest.Start(t, apptest.Options{NoWorkers: true})
	big := []byte(`{"title":"` + strings.Repeat("a", 1<<20) + `"}`)
	for _, c := range []struct {
		name, service, method, path, token string
		chunked                            bool
	}{
		{"action, declared", "status", http.MethodPost, "/api/incidents", "", false},
		{"action, chunked", "status", http.MethodPost, "/api/incidents", "", true},
		{"contacts action", "contacts", http.MethodPost, "/api/contacts", "", false},
		{"contacts action, chunked", "contacts", http.MethodPost, "/api/contacts", "", true},
		{"webhook", "gateway", http.MethodPost, "/webhooks/stripe/conn_x", "-", false},
		{"webhook, chunked", "gateway", http.MethodPost, "/webhooks/stripe/conn_x", "-", true},
		{"plain route (magic link)", "identity", http.MethodPost, "/magic-link/consume", "-", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			var rd io.Reader = strings.NewReader(string(big))
			if c.chunked {
				rd = io.MultiReader(rd) // no length: sent chunked
			}
			req, err := http.NewRequest(c.method, h.URLs[c.service]+c.path, rd)
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/json")
			if c.token != "-" {
				req.Header.Set("Authorization", "Bearer "+h.APIKey)
			}
			p := apptest.ExpectProblem(t, kernelSend(t, h, req), http.StatusRequestEntityTooLarge, "payload_too_large")
			platformProblem(t, p)
		})
	}
}

// TestReadDuringADatabaseOutageIs503: a query whose connection is killed
// under it (SQLSTATE 57P01, as in PostgreSQL's fast shutdown) answers 503
// dependency_unavailable with Retry-After, as a command does; it was a 500.
func TestReadDuringADatabaseOutageIs503(t *testing.T) {
	h := apptest.Start(t, apptest.Options{NoWorkers: true})
	ctx := context.Background()
	var table string
	if err := h.App.Pool.QueryRow(ctx, `SELECT tablename FROM pg_tables WHERE tablename LIKE 'status_incidents_g%' ORDER BY tablename DESC LIMIT 1`).Scan(&table); err != nil {
		t.Fatal(err)
	}
	// The read blocks on a lock this test holds; its backend is then
	// terminated as a shutdown terminates every backend.
	tx, err := h.App.Pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	if _, err := tx.Exec(ctx, `LOCK TABLE `+table+` IN ACCESS EXCLUSIVE MODE`); err != nil {
		t.Fatal(err)
	}
	answer := make(chan apptest.Response, 1)
	go func() { answer <- h.Do(t, "status", http.MethodGet, "/api/incidents", "", nil) }()
	var pid int
	apptest.Eventually(t, 10*time.Second, "the read to wait on the lock", func() bool {
		return h.App.Pool.QueryRow(ctx, `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'
			AND query LIKE '%`+table+`%' LIMIT 1`).Scan(&pid) == nil
	})
	if _, err := h.App.Pool.Exec(ctx, `SELECT pg_terminate_backend($1)`, pid); err != nil {
		t.Fatal(err)
	}
	res := <-answer
	apptest.ExpectProblem(t, res, http.StatusServiceUnavailable, "dependency_unavailable")
	if res.Header.Get("Retry-After") == "" {
		t.Fatalf("503 without Retry-After")
	}
	_ = tx.Rollback(ctx)
	apptest.Must(t, h.Do(t, "status", http.MethodGet, "/api/incidents", "", nil), http.StatusOK, "the read once the database answers")
}

// TestImportStalledBodyAnswers408: an import's long deadline is for a large
// file that keeps arriving: a body that stops for the idle bound is answered
// 408 request_timeout (it was held for the whole 10 minutes), and so is one
// that trickles past the import's deadline (it was answered 499, as if the
// client had left: the read deadline cancels the request's context). A
// client that does leave is counted 499 client_closed_request.
func TestImportStalledBodyAnswers408(t *testing.T) {
	h := apptest.Start(t, apptest.Options{NoWorkers: true, Configure: func(c *app.Config) {
		cfg := module.SectionOf[*contactsmod.Config](c.Modules)
		cfg.Limits.ImportTimeout, cfg.Limits.ImportIdleTimeout = 3*time.Second, time.Second
	}})
	addr := strings.TrimPrefix(h.URLs["contacts"], "http://")
	open := func(t *testing.T) net.Conn {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close() })
		head := "POST /api/contacts/import HTTP/1.1\r\nHost: " + addr + "\r\nAuthorization: Bearer " + h.APIKey +
			"\r\nContent-Type: text/csv\r\nContent-Length: 100000\r\n\r\nemail,first name\n"
		if _, err := io.WriteString(conn, head); err != nil {
			t.Fatal(err)
		}
		return conn
	}
	answer := func(t *testing.T, conn net.Conn, within time.Duration) (int, string) {
		_ = conn.SetReadDeadline(time.Now().Add(within))
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatalf("no answer within %s: %v", within, err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	t.Run("stalled", func(t *testing.T) {
		conn := open(t)
		start := time.Now()
		status, body := answer(t, conn, 2500*time.Millisecond)
		if status != http.StatusRequestTimeout || !strings.Contains(body, `"code":"request_timeout"`) {
			t.Fatalf("%d %s, want 408 request_timeout", status, body)
		}
		if d := time.Since(start); d < 900*time.Millisecond {
			t.Fatalf("answered after %s, before the 1s idle bound", d)
		}
	})
	t.Run("trickling past the deadline", func(t *testing.T) {
		conn := open(t)
		stop := make(chan struct{})
		defer close(stop)
		go func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				case <-time.After(300 * time.Millisecond):
					if _, err := io.WriteString(conn, "p"+strconv.Itoa(i)+"@example.com,P\n"); err != nil {
						return
					}
				}
			}
		}()
		start := time.Now()
		status, body := answer(t, conn, 6*time.Second)
		if status != http.StatusRequestTimeout || !strings.Contains(body, `"code":"request_timeout"`) {
			t.Fatalf("%d %s, want 408 request_timeout", status, body)
		}
		if d := time.Since(start); d < 2*time.Second {
			t.Fatalf("answered after %s, before the 3s deadline", d)
		}
	})
	t.Run("client leaves", func(t *testing.T) {
		before := problemsCounted(t, "499")
		conn := open(t)
		time.Sleep(200 * time.Millisecond)
		conn.Close()
		apptest.Eventually(t, 5*time.Second, "the abandoned import to be counted 499", func() bool { return problemsCounted(t, "499") > before })
	})
}

// problemsCounted reads platform_http_problems_total{status} from the
// default registry (the in-process platform's).
func problemsCounted(t *testing.T, status string) float64 {
	t.Helper()
	families, err := prometheus.DefaultGatherer.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != "platform_http_problems_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "status" && l.GetValue() == status {
					return m.GetCounter().GetValue()
				}
			}
		}
	}
	return 0
}

// TestOpsAnswersAndActorsReadAsEveryOther: GET /api/projections answers
// snake_case members (it answered Go field names, Projection, Generation),
// and the history shows the identity service's actions (its provisioning
// reactor, its service token) as actor service:identity (the id was
// "service:identity" under the type service: service:service:identity).
func TestOpsAnswersAndActorsReadAsEveryOther(t *testing.T) {
	h := apptest.Start(t, apptest.Options{})
	res := h.Do(t, "ops", http.MethodGet, "/api/projections", h.OperatorKey(t), nil)
	apptest.Must(t, res, http.StatusOK, "projections")
	var list struct {
		Generations []map[string]any `json:"generations"`
	}
	res.JSON(t, &list)
	if len(list.Generations) == 0 {
		t.Fatalf("no generations: %s", res.Body)
	}
	for _, g := range list.Generations {
		for _, member := range []string{"projection", "generation", "state", "created_at", "activated_at"} {
			if _, ok := g[member]; !ok {
				t.Fatalf("generation %v lacks %q", g, member)
			}
		}
		if len(g) != 5 {
			t.Fatalf("generation %v: members beyond the five", g)
		}
	}

	var actor struct{ id, typ string }
	apptest.Eventually(t, 30*time.Second, "the gateway to provision the organization", func() bool {
		res := h.Do(t, "ops", http.MethodGet, "/api/history?type=gateway.organization.provisioned", "", nil)
		var page struct {
			Events []struct {
				ActorID   string `json:"actor_id"`
				ActorType string `json:"actor_type"`
			} `json:"events"`
		}
		if res.Status != http.StatusOK {
			return false
		}
		res.JSON(t, &page)
		if len(page.Events) == 0 {
			return false
		}
		actor.id, actor.typ = page.Events[0].ActorID, page.Events[0].ActorType
		return true
	})
	if actor.typ+":"+actor.id != "service:identity" {
		t.Fatalf("the provisioning reads %s:%s, want service:identity", actor.typ, actor.id)
	}
	tok, err := h.Access().Keys().Issue(context.Background(), "identity", 0)
	if err != nil {
		t.Fatal(err)
	}
	p, err := h.Access().Keys().Verify(context.Background(), tok)
	if err != nil {
		t.Fatal(err)
	}
	if p.Type+":"+p.ID != "service:identity" {
		t.Fatalf("a service token's principal reads %s:%s, want service:identity", p.Type, p.ID)
	}
}
