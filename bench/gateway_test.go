package bench

import (
	"context"
	"os"
	"strconv"

	"net/http"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/platform/backend/internal/app"
	"github.com/platform/backend/internal/apptest"
	"github.com/platform/backend/internal/module"
	gatewaymod "github.com/platform/backend/internal/modules/gateway"
	"github.com/platform/backend/providers/ai"
)

const gatewayClients = 16

// gatewayCalls is each timed load's size: 2,000, or BENCH_GATEWAY_CALLS
// (longer loads tell apart changes of a few percent of CPU per completion,
// which two runs of 2,000 on a shared machine cannot).
var gatewayCalls = func() int {
	if n, err := strconv.Atoi(os.Getenv("BENCH_GATEWAY_CALLS")); err == nil && n > 0 {
		return n
	}
	return 2000
}()

// BenchmarkGatewayCompletions measures what the usage gateway adds to an AI
// call. The ceiling is the provider itself: the sandbox's OpenAI fake (zero
// latency) called directly with the same adapter, by the same number of
// clients, in the same run. The gateway's figure is the same completions
// through POST /api/ai/completions: authentication, the input schema, the
// price lookup, the reservation, the call, the settle (one event-store
// transaction) and the usage event's relay and projections running. It
// reports completions/s of both, the ratio, and the p50/p99 the gateway
// adds; then the same load with an active hard cap (the cap check on the
// path), and the reserve statement alone with and without a hard cap.
func BenchmarkGatewayCompletions(b *testing.B) {
	h, client, viaGateway := startGateway(b, false)
	sandbox := apptest.Provided[*gatewaymod.Sandbox](h)
	provider := sandbox.Provider(ai.Provider1) // the very adapter the gateway calls
	req := ai.CompletionRequest{Model: "gpt-4o-mini", MaxTokens: 64, Messages: []ai.Message{ai.Text(ai.RoleUser, "hello gateway bench")}}
	direct := func(int) error { _, err := provider.Complete(context.Background(), req); return err }

	// Warm both paths (connections, the price table, caches), then give the
	// fresh database the statistics a running one has: until autovacuum's
	// first ANALYZE (up to a minute), the generic plans pooled connections
	// cache for prepared statements seq-scan the stream heads, which grow by
	// one row a completion (measured: hundreds of rows read per completion).
	// The warm-up makes the tables big enough for their plans to be a
	// running database's.
	closedLoop(b, gatewayClients, 200, direct)
	closedLoop(b, gatewayClients, gatewayCalls, viaGateway)
	_, err := h.App.Pool.Exec(context.Background(), `ANALYZE`)
	must(b, err)
	closedLoop(b, gatewayClients, 200, viaGateway)

	var d, g, capped loadResult
	var cpuD, cpuG cpuUse
	b.ResetTimer()
	for range b.N {
		s0 := sampleCPU(dbName(h))
		d = closedLoop(b, gatewayClients, gatewayCalls, direct)
		s1 := sampleCPU(dbName(h))
		g = closedLoop(b, gatewayClients, gatewayCalls, viaGateway)
		s2 := sampleCPU(dbName(h))
		cpuD, cpuG = s0.to(s1), s1.to(s2)
		b.StopTimer()
		// A hard cap far above the load: every call takes the cap check.
		_, err = client.do(http.MethodPost, "/api/billing/spend-caps", map[string]any{"scopeType": "organization", "monthlyCapCents": 1e9,
			"capMode": "hard"}, http.StatusOK)
		must(b, err)
		b.StartTimer()
		capped = closedLoop(b, gatewayClients, gatewayCalls, viaGateway)
	}
	b.StopTimer()
	reserveFree, reserveCapped := reserveCost(b, h)

	ratio := g.rate / d.rate
	addedP50, addedP99 := g.p50-d.p50, g.p99-d.p99
	b.ReportMetric(g.rate, "completions/s")
	b.ReportMetric(d.rate, "direct/s")
	b.ReportMetric(ratio, "ratio")
	b.ReportMetric(ms(addedP50), "added-p50-ms")
	b.ReportMetric(ms(addedP99), "added-p99-ms")
	b.ReportMetric(ms(capped.p50-g.p50), "cap-added-p50-ms")
	b.ReportMetric(float64(reserveCapped.Microseconds()), "reserve-capped-µs")
	// CPU per completion moves less with the shared machine's load than the
	// rates do: the figure to compare across runs.
	b.ReportMetric(cpuG.self*1e6/float64(gatewayCalls), "go-µs/completion")
	b.ReportMetric(cpuG.postgres*1e6/float64(gatewayCalls), "pg-µs/completion")
	b.Logf("direct to the fake (openai adapter), %d calls by %d clients: %.0f calls/s, p50 %.2f ms, p99 %.2f ms",
		gatewayCalls, gatewayClients, d.rate, ms(d.p50), ms(d.p99))
	b.Logf("  %s", cpuD.perOp(gatewayCalls, "call"))
	b.Logf("through the gateway (POST /api/ai/completions): %.0f completions/s, p50 %.2f ms, p99 %.2f ms, max %.1f ms",
		g.rate, ms(g.p50), ms(g.p99), ms(g.max))
	b.Logf("  %s (the Go process holds the clients, the gateway and the fake)", cpuG.perOp(gatewayCalls, "completion"))
	b.Logf("with an active hard cap: %.0f completions/s, p50 %.2f ms, p99 %.2f ms (cap check adds %.2f ms at p50)",
		capped.rate, ms(capped.p50), ms(capped.p99), ms(capped.p50-g.p50))
	b.Logf("the reserve statement alone, sequential: %.0f µs without a hard cap, %.0f µs with one (one UPDATE of the budget row)",
		float64(reserveFree.Microseconds()), float64(reserveCapped.Microseconds()))
	bar := "MET"
	if addedP99 >= 10*time.Millisecond || ratio < 0.4 {
		bar = "NOT MET"
	}
	b.Logf("gateway %.0f/s vs direct %.0f/s: ratio %.2f; added p50 %.2f ms, p99 %.2f ms at %d clients (bar: added p99 < 10 ms, ratio >= 0.4: %s)",
		g.rate, d.rate, ratio, ms(addedP50), ms(addedP99), gatewayClients, bar)
}

// reserveCost times the reservation statement alone (a batch of one, then
// deletes the reservation), p50 of 500 sequential calls, for an
// organization without a cap and one with an active hard cap.
func reserveCost(b *testing.B, h *apptest.Harness) (free, capped time.Duration) {
	ctx := context.Background()
	pool := h.App.Pool
	run := func(org string) time.Duration {
		lat := make([]time.Duration, 500)
		for i := range lat {
			id := uuid.NewString()
			t := time.Now()
			_, err := pool.Exec(ctx, `SELECT * FROM gateway_reserve_batch(ARRAY[$1], ARRAY[$2], ARRAY['user:bench'], ARRAY[to_char(now(), 'YYYY-MM')],
				ARRAY[1000::bigint], ARRAY[now() + interval '1 hour'], ARRAY['{}'::jsonb])`, id, org)
			lat[i] = time.Since(t)
			must(b, err)
			_, err = pool.Exec(ctx, `DELETE FROM gateway_reservations WHERE request_id = $1`, id)
			must(b, err)
		}
		return percentiles(lat, 0.5)[0]
	}
	free = run("bench-no-cap-" + uuid.NewString())
	capped = run(h.OrgID) // the benchmark's organization has its hard cap now
	_, err := pool.Exec(ctx, `UPDATE gateway_budgets SET reserved = 0 WHERE organization_id = $1`, h.OrgID)
	must(b, err)
	return free, capped
}

// BenchmarkDiagGatewayPath is a diagnostic, skipped unless BENCH_DIAG=1: the
// gateway load of BenchmarkGatewayCompletions on a platform without its
// background workers (no relay, projections or reactors), so the request
// path's own cost (HTTP, authentication, schema, connection, reservation,
// the fake's call, settle) shows apart from what consuming each usage event
// costs. Usage events pile up in the outbox; nothing reads them.
func BenchmarkDiagGatewayPath(b *testing.B) {
	if os.Getenv("BENCH_DIAG") != "1" {
		b.Skip("diagnostic: set BENCH_DIAG=1")
	}
	h, _, viaGateway := startGateway(b, true)
	closedLoop(b, gatewayClients, gatewayCalls, viaGateway)
	_, err := h.App.Pool.Exec(context.Background(), `ANALYZE`)
	must(b, err)
	closedLoop(b, gatewayClients, 200, viaGateway)
	var g loadResult
	var cpu cpuUse
	b.ResetTimer()
	for range b.N {
		s0 := sampleCPU(dbName(h))
		g = closedLoop(b, gatewayClients, gatewayCalls, viaGateway)
		cpu = s0.to(sampleCPU(dbName(h)))
	}
	b.StopTimer()
	// The floor of the design's two durable commits per call: 16 clients
	// committing one-row INSERT transactions (shaped like an event), two per
	// call, nothing else (no group commit, no reads, no HTTP).
	s0 := sampleCPU(dbName(h))
	raw := rawCommitRate(b, h.App.Pool, gatewayClients, 2*gatewayCalls)
	rawCPU := s0.to(sampleCPU(dbName(h)))
	b.ReportMetric(g.rate, "completions/s")
	b.ReportMetric(cpu.self*1e6/float64(gatewayCalls), "go-µs/completion")
	b.ReportMetric(cpu.postgres*1e6/float64(gatewayCalls), "pg-µs/completion")
	b.ReportMetric(raw.rate/2, "raw-two-commit-calls/s")
	b.Logf("request path only (no relay, projections or reactors): %.0f completions/s, p50 %.2f ms, p99 %.2f ms", g.rate, ms(g.p50), ms(g.p99))
	b.Logf("  %s", cpu.perOp(gatewayCalls, "completion"))
	b.Logf("two raw one-row commits per call, %d clients: %.0f calls/s (%.0f commits/s), commit p50 %.2f ms, p99 %.2f ms",
		gatewayClients, raw.rate/2, raw.rate, ms(raw.p50), ms(raw.p99))
	b.Logf("  %s", rawCPU.perOp(gatewayCalls, "call"))
}

// startGateway runs the platform with the gateway's sandbox for a
// benchmark (without the background workers when noWorkers) and answers
// its client and one completion through the gateway.
func startGateway(b *testing.B, noWorkers bool) (*apptest.Harness, *httpClient, func(int) error) {
	h := apptest.Start(b, apptest.Options{NoWorkers: noWorkers, Configure: func(c *app.Config) {
		c.RateLimit.PerSecond, c.RateLimit.Burst = 1e6, 1e6
		c.HTTP.CheckOutput = false
		module.SectionOf[*gatewaymod.Config](c.Modules).Sandbox = true
	}})
	client := &httpClient{c: &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: gatewayClients}},
		base: h.URLs["gateway"], token: h.APIKey}
	body := map[string]any{"prompt": "hello gateway bench", "max_tokens": 64}
	return h, client, func(int) error {
		_, err := client.do(http.MethodPost, "/api/ai/completions", body, http.StatusOK)
		return err
	}
}
