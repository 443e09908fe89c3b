package gateway_test

import (
	"context"
	"encoding/json"
	"io"
	"math"
	"net"
	"net/http"
	"net/url"
	"sync"
	"testing"
	"time"

	gatewaycmd "github.com/platform/backend/commands/gateway"
	"github.com/platform/backend/domain/gateway/prices"
	"github.com/platform/backend/internal/app"
	"github.com/platform/backend/internal/apptest"
	"github.com/platform/backend/internal/module"
	gatewaymod "github.com/platform/backend/internal/modules/gateway"
	"github.com/platform/backend/providers/ai"
	"github.com/platform/backend/providers/ai/aifake"
	"github.com/platform/backend/providers/fakekit"
)

// dbProxy stands between a platform and its PostgreSQL, so a test can take
// the database away from that platform alone (the shared server is never
// stopped): while cut, open connections are dropped and new ones are
// closed as soon as they arrive, as a stopped server's clients see it.
type dbProxy struct {
	ln     net.Listener
	target string
	mu     sync.Mutex
	cut    bool
	conns  map[net.Conn]bool
}

// proxied points the platform's database URL at a proxy of its own.
func proxied(t *testing.T, c *app.Config) *dbProxy {
	t.Helper()
	u, err := url.Parse(c.DatabaseURL)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &dbProxy{ln: ln, target: u.Host, conns: map[net.Conn]bool{}}
	t.Cleanup(func() { ln.Close(); p.Cut() })
	go p.serve()
	u.Host = ln.Addr().String()
	c.DatabaseURL = u.String()
	return p
}

func (p *dbProxy) serve() {
	for {
		client, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		cut := p.cut
		if !cut {
			p.conns[client] = true
		}
		p.mu.Unlock()
		if cut {
			client.Close()
			continue
		}
		go p.pipe(client)
	}
}

func (p *dbProxy) pipe(client net.Conn) {
	server, err := net.Dial("tcp", p.target)
	if err != nil {
		client.Close()
		return
	}
	p.mu.Lock()
	p.conns[server] = true
	p.mu.Unlock()
	go func() { _, _ = io.Copy(server, client); server.Close() }()
	_, _ = io.Copy(client, server)
	client.Close()
}

// Cut drops every connection and refuses new ones.
func (p *dbProxy) Cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cut = true
	for c := range p.conns {
		c.Close()
	}
	clear(p.conns)
}

// Restore lets connections through again.
func (p *dbProxy) Restore() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cut = false
}

// answeredInTheDark makes call while the provider holds it, cuts the
// database while it is held, lets the provider answer, and returns the
// answer, which must be a 200: a call answered while the database is out.
func answeredInTheDark(t *testing.T, kit *aifake.Kit, proxy *dbProxy, call func() apptest.Response) apptest.Response {
	t.Helper()
	gate := fakekit.NewGate()
	kit.Next(1, fakekit.Fault{Kind: fakekit.Hold, Gate: gate})
	answered := make(chan apptest.Response, 1)
	go func() { answered <- call() }()
	<-gate.Entered()
	proxy.Cut()
	gate.Open()
	res := <-answered
	apptest.Must(t, res, http.StatusOK, "the call answered while the database is out")
	return res
}

// TestAnsweredCallSettlesAtItsRealCostAfterAnOutage (issue 18, item 3): a
// call answered 200 while the database was out was later recorded by the
// sweeper as abandoned at its reservation. Now the call's settle is held
// until the database is back and lands at the call's real cost; the
// sweeper, which runs meanwhile with the reservation long expired, leaves
// it alone; the budget counts the real cost; and the call's key, whose
// answer was held too, replays that answer.
func TestAnsweredCallSettlesAtItsRealCostAfterAnOutage(t *testing.T) {
	var proxy *dbProxy
	h := apptest.Start(t, apptest.Options{Configure: func(c *app.Config) {
		proxy = proxied(t, c)
		g := module.SectionOf[*gatewaymod.Config](c.Modules)
		g.Metering.CallTimeout, g.Metering.StreamTimeout = 3*time.Second, 3*time.Second
		g.Metering.ReservationTTL, g.Metering.SweepInterval = 4*time.Second, 200*time.Millisecond
		g.Metering.SweepGrace = 5 * time.Second
	}})
	kit := fake(t, h, ai.Provider1)
	body := map[string]any{"prompt": "answered in the dark", "max_tokens": 500}
	res := answeredInTheDark(t, kit, proxy, func() apptest.Response {
		return keyed(t, h, "/api/ai/completions", "", "outage-1", body)
	})
	var receipt struct {
		RequestID string  `json:"request_id"`
		CostCents float64 `json:"cost_cents"`
		Outcome   string  `json:"outcome"`
	}
	res.JSON(t, &receipt)
	// Out for longer than the reservation lives and than the settle's old
	// retries lasted (about 4 s): the sweeper would find it expired.
	time.Sleep(6 * time.Second)
	proxy.Restore()

	settledAtItsReceipt(t, h, h.OrgID, receipt.RequestID, receipt.CostCents, 30*time.Second)
	var again apptest.Response
	apptest.Eventually(t, 20*time.Second, "the key's answer kept", func() bool {
		again = keyed(t, h, "/api/ai/completions", "", "outage-1", body)
		return again.Status != http.StatusConflict && again.Status != http.StatusServiceUnavailable
	})
	apptest.Must(t, again, http.StatusOK, "the retry")
	if again.Header.Get("Idempotent-Replayed") != "true" || string(again.Body) != string(res.Body) || kit.Calls() != 1 {
		t.Fatalf("the retry after the outage: replayed %q, %d provider calls: %s", again.Header.Get("Idempotent-Replayed"), kit.Calls(), again.Body)
	}
	// The daily snapshot counts one call, no failure, at the receipt's cost.
	apptest.Eventually(t, 30*time.Second, "the daily snapshot", func() bool {
		var snap struct {
			Days []struct {
				Calls     int64   `json:"calls"`
				Failures  int64   `json:"failures"`
				CostCents float64 `json:"cost_cents"`
			} `json:"days"`
		}
		res := get(t, h, "/api/usage/snapshots/daily?days=1", "")
		if res.Status != http.StatusOK || json.Unmarshal(res.Body, &snap) != nil || len(snap.Days) != 1 {
			return false
		}
		d := snap.Days[0]
		if d.Calls == 1 && (d.Failures != 0 || math.Abs(d.CostCents-receipt.CostCents) > 1e-9) {
			t.Fatalf("daily snapshot %+v; the receipt %+v", d, receipt)
		}
		return d.Calls == 1
	})
}

// TestAHeldSettleOutlivesItsProcess: a call answered while the database
// was out, whose process then stopped before the database came back (its
// memory, where the settle was held, gone), is recorded once at its real
// cost, not abandoned at its reservation: the settle was written to the
// gateway's settle log before the answer went out, and the next process's
// reactor lands it from there, while its sweeper, with the reservation long
// expired, waits for the log to be landed before it abandons anything (and
// abandons again once it is).
func TestAHeldSettleOutlivesItsProcess(t *testing.T) {
	metering := func(c *app.Config) {
		g := module.SectionOf[*gatewaymod.Config](c.Modules)
		g.Metering.CallTimeout, g.Metering.StreamTimeout = 3*time.Second, 3*time.Second
		g.Metering.ReservationTTL, g.Metering.SweepInterval = 4*time.Second, 200*time.Millisecond
		g.Metering.SweepGrace = 5 * time.Second
	}
	var proxy *dbProxy
	first := apptest.Start(t, apptest.Options{Configure: func(c *app.Config) { proxy = proxied(t, c); metering(c) }})
	kit := fake(t, first, ai.Provider1)
	res := answeredInTheDark(t, kit, proxy, func() apptest.Response {
		return post(t, first, "/api/ai/completions", "", map[string]any{"prompt": "answered, then the process died", "max_tokens": 500})
	})
	var receipt struct {
		RequestID string  `json:"request_id"`
		CostCents float64 `json:"cost_cents"`
	}
	res.JSON(t, &receipt)
	// The process stops with the database still out: what it held in
	// memory is gone. The reservation expires meanwhile.
	first.Stop()
	time.Sleep(4 * time.Second)
	proxy.Restore()

	again := func(c *app.Config) {
		metering(c)
		c.DatabaseURL, c.Kafka.Topics = first.Config.DatabaseURL, first.Config.Kafka.Topics
	}
	// A sweep before the log's reactor ran (here: a process without
	// workers) abandons nothing, the reservation long expired.
	idle := apptest.Start(t, apptest.Options{Configure: again, NoWorkers: true})
	if n, err := apptest.Provided[*gatewaycmd.Handlers](idle).Sweep(context.Background(), time.Now().Add(time.Hour)); err != nil || n != 0 ||
		idle.Count(t, `SELECT count(*) FROM gateway_reservations`) != 1 {
		t.Fatalf("a sweep before the settle log landed settled %d reservations (%v)", n, err)
	}
	idle.Stop()
	second := apptest.Start(t, apptest.Options{Configure: again})
	settledAtItsReceipt(t, second, first.OrgID, receipt.RequestID, receipt.CostCents, 60*time.Second)
	if n := second.Count(t, `SELECT count(*) FROM es_events WHERE organization_id = $1 AND event_type = 'gateway.usage.recorded'`, first.OrgID); n != 1 {
		t.Fatalf("%d usage events for one call", n)
	}
	// The log landed, the sweeper abandons again: a call whose settle has
	// not come when the sweep runs is settled by it.
	handlers := apptest.Provided[*gatewaycmd.Handlers](second)
	call := gatewaycmd.Call{Caller: gatewaycmd.Caller{OrganizationID: second.OrgID, PrincipalID: "user-1", PrincipalType: "user", AppID: "studio", UseCase: "chat"},
		Action: "ai.completions", Provider: "ai_provider_1", Model: "gpt-4o-mini", Operation: prices.OpChat, ConnectionID: "test",
		Estimate: prices.Units{InputTokens: 1000, OutputTokens: 1000}}
	apptest.Eventually(t, 30*time.Second, "a sweep that abandons", func() bool {
		swept := 0
		_, _, err := handlers.Metered(context.Background(), call, func(ctx context.Context) gatewaycmd.Attempt {
			n, err := handlers.Sweep(ctx, time.Now().Add(time.Hour))
			if err != nil {
				t.Error(err)
			}
			swept = n
			return gatewaycmd.Attempt{Units: prices.Units{InputTokens: 10, OutputTokens: 10}}
		})
		if err != nil {
			t.Fatal(err)
		}
		return swept == 1
	})
}

// settledAtItsReceipt waits until no reservation is left and checks that
// the call was recorded once, outcome ok, at the cost its receipt said (not
// an estimate), and that the organization's budget settled exactly that.
func settledAtItsReceipt(t *testing.T, h *apptest.Harness, orgID, requestID string, costCents float64, within time.Duration) {
	t.Helper()
	apptest.Eventually(t, within, "the reservation settled", func() bool {
		var n int64
		err := h.App.Pool.QueryRow(context.Background(), `SELECT count(*) FROM gateway_reservations`).Scan(&n)
		return err == nil && n == 0
	})
	var events int64
	var outcome string
	var cost int64
	var estimated bool
	if err := h.App.Pool.QueryRow(context.Background(), `SELECT count(*), min(payload->>'outcome'), min((payload->>'cost_microcents')::bigint),
		bool_or((payload->>'estimated')::boolean) FROM es_events WHERE stream_id = $1`, "usage:"+requestID).
		Scan(&events, &outcome, &cost, &estimated); err != nil {
		t.Fatal(err)
	}
	if events != 1 || outcome != "ok" || estimated || math.Abs(float64(cost)/1e6-costCents) > 1e-9 {
		t.Fatalf("the answered call (request %s, receipt %v cents) was recorded as %d events, outcome %s, cost %d micro-cents, estimated %v",
			requestID, costCents, events, outcome, cost, estimated)
	}
	if settled, reserved := budget(t, h, orgID, "organization"); settled != cost || reserved != 0 {
		t.Fatalf("budget settled %d reserved %d; the call cost %d", settled, reserved, cost)
	}
}
