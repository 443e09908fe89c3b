package bench

import (
	"context"
	"os"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
	"strconv"

	"net/http"
	"testing"
	"time"

	"github.com/IBM/sarama"
	"github.com/google/uuid"

	"github.com/platform/backend/eventstore"
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
// adds in a closed loop (16 clients).
//
// The bar (issue 22) is measured in the same run: completions/s over the
// floor of the design's two durable commits a call (twoCommitFloor), and
// the p50/p99 the gateway adds in an open loop offered half the closed
// loop's rate (openLoop: arrivals on a schedule, latency from the scheduled
// time), against the direct calls offered the same rate. Then the same
// closed loop with an active hard cap (the cap check on the path), and the
// reserve statement alone with and without a hard cap.
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
	waitGatewayIdle(b, h)

	var d, g, capped, openD, openG, openFloor loadResult
	var floor commitStats
	var cpuD, cpuG, cpuFloor, cpuOpen cpuUse
	b.ResetTimer()
	for range b.N {
		s0 := sampleCPU(dbName(h))
		d = closedLoop(b, gatewayClients, gatewayCalls, direct)
		s1 := sampleCPU(dbName(h))
		stopProfile := cpuProfileTo(b, os.Getenv("BENCH_GATEWAY_CPU"))
		g = closedLoop(b, gatewayClients, gatewayCalls, viaGateway)
		stopProfile()
		s2 := sampleCPU(dbName(h))
		cpuD, cpuG = s0.to(s1), s1.to(s2)
		b.StopTimer()
		// Each phase starts with the usage events of the one before consumed.
		waitGatewayIdle(b, h)
		floor, cpuFloor = twoCommitFloor(b, h)
		openD = openLoop(b, g.rate/2, gatewayCalls, direct)
		waitGatewayIdle(b, h)
		s3 := sampleCPU(dbName(h))
		stopTrace := traceTo(b, os.Getenv("BENCH_GATEWAY_TRACE"))
		openG = openLoop(b, g.rate/2, gatewayCalls, viaGateway)
		stopTrace()
		heapProfile(b, os.Getenv("BENCH_GATEWAY_HEAP"))
		cpuOpen = s3.to(sampleCPU(dbName(h)))
		waitGatewayIdle(b, h)
		if os.Getenv("BENCH_DIAG") == "1" {
			// The same schedule for the two durable commits alone, the
			// platform idle: the tail the design's floor has at this rate.
			openFloor = openLoop(b, g.rate/2, gatewayCalls, twoRawCommits(b, h))
		}
		// A hard cap far above the load: every call takes the cap check.
		_, err = client.do(http.MethodPost, "/api/billing/spend-caps", map[string]any{"scopeType": "organization", "monthlyCapCents": 1e9,
			"capMode": "hard"}, http.StatusOK)
		must(b, err)
		b.StartTimer()
		capped = closedLoop(b, gatewayClients, gatewayCalls, viaGateway)
	}
	b.StopTimer()
	reserveFree, reserveCapped := reserveCost(b, h)

	ratio, floorRatio := g.rate/d.rate, g.rate/floor.rate
	addedP50, addedP99 := g.p50-d.p50, g.p99-d.p99
	openP50, openP99 := openAdded(openG, openD)
	b.ReportMetric(g.rate, "completions/s")
	b.ReportMetric(d.rate, "direct/s")
	b.ReportMetric(ratio, "ratio")
	b.ReportMetric(ms(addedP50), "added-p50-ms")
	b.ReportMetric(ms(addedP99), "added-p99-ms")
	b.ReportMetric(ms(capped.p50-g.p50), "cap-added-p50-ms")
	b.ReportMetric(float64(reserveCapped.Microseconds()), "reserve-capped-µs")
	b.ReportMetric(floor.rate, "raw-two-commit-calls/s")
	b.ReportMetric(floorRatio, "floor-ratio")
	b.ReportMetric(g.rate/2, "open-offered/s")
	b.ReportMetric(ms(openP50), "open-added-p50-ms")
	b.ReportMetric(ms(openP99), "open-added-p99-ms")
	// CPU per completion moves less with the shared machine's load than the
	// rates do: the figure to compare across runs.
	b.ReportMetric(cpuG.self*1e6/float64(gatewayCalls), "go-µs/completion")
	b.ReportMetric(cpuG.postgres*1e6/float64(gatewayCalls), "pg-µs/completion")
	b.ReportMetric(cpuOpen.self*1e6/float64(gatewayCalls), "open-go-µs/completion")
	b.ReportMetric(cpuOpen.postgres*1e6/float64(gatewayCalls), "open-pg-µs/completion")
	// testing keeps 10 lines of a benchmark's log: one line a phase, one
	// for its CPU.
	b.Logf("closed loop, %d calls by %d clients: direct to the fake (the openai adapter) %.0f calls/s, p50 %.2f ms, p99 %.2f ms; through the gateway (POST /api/ai/completions) %.0f completions/s, p50 %.2f ms, p99 %.2f ms, max %.1f ms: ratio %.2f, added p50 %.2f ms, p99 %.2f ms",
		gatewayCalls, gatewayClients, d.rate, ms(d.p50), ms(d.p99), g.rate, ms(g.p50), ms(g.p99), ms(g.max), ratio, ms(addedP50), ms(addedP99))
	b.Logf("  direct %s", cpuD.perOp(gatewayCalls, "call"))
	b.Logf("  gateway %s (the Go process holds the clients, the gateway and the fake)", cpuG.perOp(gatewayCalls, "completion"))
	b.Logf("two raw one-row commits a call, %d clients: %.0f calls/s, commit p50 %.2f ms, p99 %.2f ms; completions/s over it: %.2f",
		gatewayClients, floor.rate, ms(floor.p50), ms(floor.p99), floorRatio)
	b.Logf("  %s", cpuFloor.perOp(gatewayCalls, "call"))
	b.Logf("open loop, %d calls offered at %.0f/s (half the closed loop's rate), latency from each call's scheduled time: direct p50 %.2f ms, p99 %.2f ms, max %.1f ms; through the gateway %.0f completions/s, p50 %.2f ms, p99 %.2f ms, max %.1f ms: added p50 %.2f ms, p99 %.2f ms",
		gatewayCalls, g.rate/2, ms(openD.p50), ms(openD.p99), ms(openD.max), openG.rate, ms(openG.p50), ms(openG.p99), ms(openG.max), ms(openP50), ms(openP99))
	b.Logf("  gateway %s; sends started late by up to %.2f ms (p99; direct %.2f ms)", cpuOpen.perOp(gatewayCalls, "completion"), ms(openG.lateP99), ms(openD.lateP99))
	if openFloor.rate > 0 {
		b.ReportMetric(ms(openFloor.p99), "open-floor-p99-ms")
		b.Logf("  diag: two raw one-row commits a call on the same schedule (platform idle): p50 %.2f ms, p99 %.2f ms, max %.1f ms",
			ms(openFloor.p50), ms(openFloor.p99), ms(openFloor.max))
	}
	b.Logf("with an active hard cap: %.0f completions/s, p50 %.2f ms, p99 %.2f ms (cap check adds %.2f ms at p50); the reserve statement alone, sequential: %.0f µs without a hard cap, %.0f µs with one (one UPDATE of the budget row)",
		capped.rate, ms(capped.p50), ms(capped.p99), ms(capped.p50-g.p50), float64(reserveFree.Microseconds()), float64(reserveCapped.Microseconds()))
	b.Logf("bar (issue 22): completions/s >= 0.5 of the two-commit floor: %.2f (%s); open-loop added p99 < 10 ms at half the maximum: %.2f ms (%s)",
		floorRatio, met(floorRatio >= 0.5), ms(openP99), met(openP99 < 10*time.Millisecond))
}

// openAdded is what the gateway adds to a call in the open loop, at the
// median and the 99th percentile: the gateway's latencies less the direct
// path's median. The fake answers in constant time, so the direct path's
// median is the provider's share of every call; its p99 is the benchmark
// process's own stalls during the direct loop (a collection, the machine's
// other load), which happen or not independently of the gateway's loop.
// Subtracting the direct p99 from the gateway's credited the gateway with
// a stall it never met (a direct p99 of 35 ms once made a gateway p99 of
// 29 ms an added -6 ms: "met").
func openAdded(gateway, direct loadResult) (p50, p99 time.Duration) {
	return gateway.p50 - direct.p50, gateway.p99 - direct.p50
}

// traceTo runs Go's execution tracer into the file path until the returned
// function is called ("" traces nothing). The gateway's open loop is traced
// with BENCH_GATEWAY_TRACE=file: each request is a task ("http.request")
// with its stages as regions (authenticate, connection, reserve, call,
// settle, and the group commits' flushes), for go tool trace.
func traceTo(b *testing.B, path string) func() {
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	must(b, err)
	must(b, trace.Start(f))
	return func() {
		trace.Stop()
		must(b, f.Close())
	}
}

// cpuProfileTo profiles the process's CPU into the file path until the
// returned function is called ("" profiles nothing): the gateway's closed
// loop alone with BENCH_GATEWAY_CPU=file (-test.cpuprofile mixes in the
// warm-up, the direct, floor, open and capped loops).
func cpuProfileTo(b *testing.B, path string) func() {
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	must(b, err)
	must(b, pprof.StartCPUProfile(f))
	return func() {
		pprof.StopCPUProfile()
		must(b, f.Close())
	}
}

// heapProfile writes the live heap to path ("" writes nothing).
func heapProfile(b *testing.B, path string) {
	if path == "" {
		return
	}
	f, err := os.Create(path)
	must(b, err)
	runtime.GC()
	must(b, pprof.WriteHeapProfile(f))
	must(b, f.Close())
}

func met(ok bool) string {
	if ok {
		return "met"
	}
	return "NOT MET"
}

// twoCommitFloor is the floor of the design's two durable commits a call:
// gatewayClients clients committing one-row INSERT transactions (shaped like
// an event), two a call, nothing else (no group commit, no reads, no HTTP),
// on the benchmark's database server. The rate is in calls/s (half the
// commits/s), the latencies are a commit's.
func twoCommitFloor(b *testing.B, h *apptest.Harness) (commitStats, cpuUse) {
	s0 := sampleCPU(dbName(h))
	raw := rawCommitRate(b, h.App.Pool, gatewayClients, 2*gatewayCalls)
	raw.rate /= 2
	return raw, s0.to(sampleCPU(dbName(h)))
}

// twoRawCommits is the floor's call as an operation: two raw one-row
// durable commits in series, as a completion makes (reservation, settle).
func twoRawCommits(b *testing.B, h *apptest.Harness) func(int) error {
	commit := rawCommitter(b, h.App.Pool)
	return func(k int) error {
		if err := commit(2 * k); err != nil {
			return err
		}
		return commit(2*k + 1)
	}
}

// waitGatewayIdle waits until the relay has published every event and every
// projection and reactor reading the gateway's topic has consumed it, so
// that one phase's usage events do not load the next phase.
func waitGatewayIdle(b *testing.B, h *apptest.Harness) {
	b.Helper()
	ctx := context.Background()
	topic := h.Config.Kafka.Topics.ForContext("gateway")
	client, err := sarama.NewClient(h.Config.Kafka.Brokers, h.Config.Kafka.SaramaConfig())
	must(b, err)
	defer client.Close()
	apptest.Eventually(b, 2*time.Minute, "relay and the gateway topic's consumers idle", func() bool {
		if pending, err := eventstore.Pending(ctx, h.App.Pool); err != nil || pending > 0 {
			return false
		}
		ps, err := client.Partitions(topic)
		must(b, err)
		parts, offsets := make([]int32, 0, len(ps)), make([]int64, 0, len(ps))
		for _, p := range ps {
			n, err := client.GetOffset(topic, p, sarama.OffsetNewest)
			must(b, err)
			parts, offsets = append(parts, p), append(offsets, n)
		}
		var behind int
		err = h.App.Pool.QueryRow(ctx, `WITH ends AS (SELECT * FROM unnest($2::int[], $3::bigint[]) AS e(partition, next_offset)),
			c AS (SELECT projection AS name, partition, max(next_offset) AS next_offset FROM proj_checkpoints WHERE topic = $1 GROUP BY 1, 2
				UNION ALL SELECT reactor, partition, max(next_offset) FROM reactor_checkpoints WHERE topic = $1 GROUP BY 1, 2)
			SELECT count(*) FROM c JOIN ends USING (partition) WHERE c.next_offset < ends.next_offset`, topic, parts, offsets).Scan(&behind)
		return err == nil && behind == 0
	})
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
// background workers (no relay, projections or reactors; identity's head
// watch runs: requestPathWorkers), so the request
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
	// The open loop on the request path alone, offered half the closed
	// loop's rate or BENCH_GATEWAY_OPEN_RATE (to compare with the full
	// platform's open loop at its rate), and the direct calls and the two
	// raw commits on the same schedule.
	rate := g.rate / 2
	if r, err := strconv.ParseFloat(os.Getenv("BENCH_GATEWAY_OPEN_RATE"), 64); err == nil && r > 0 {
		rate = r
	}
	provider := apptest.Provided[*gatewaymod.Sandbox](h).Provider(ai.Provider1)
	req := ai.CompletionRequest{Model: "gpt-4o-mini", MaxTokens: 64, Messages: []ai.Message{ai.Text(ai.RoleUser, "hello gateway bench")}}
	openD := openLoop(b, rate, gatewayCalls, func(int) error { _, err := provider.Complete(context.Background(), req); return err })
	s1 := sampleCPU(dbName(h))
	openG := openLoop(b, rate, gatewayCalls, viaGateway)
	openCPU := s1.to(sampleCPU(dbName(h)))
	openFloor := openLoop(b, rate, gatewayCalls, twoRawCommits(b, h))
	raw, rawCPU := twoCommitFloor(b, h)
	b.ReportMetric(g.rate, "completions/s")
	b.ReportMetric(cpu.self*1e6/float64(gatewayCalls), "go-µs/completion")
	b.ReportMetric(cpu.postgres*1e6/float64(gatewayCalls), "pg-µs/completion")
	b.ReportMetric(raw.rate, "raw-two-commit-calls/s")
	b.Logf("request path only (no relay, projections or reactors): %.0f completions/s, p50 %.2f ms, p99 %.2f ms", g.rate, ms(g.p50), ms(g.p99))
	b.Logf("  %s", cpu.perOp(gatewayCalls, "completion"))
	_, openAddedP99 := openAdded(openG, openD)
	b.ReportMetric(ms(openAddedP99), "open-added-p99-ms")
	b.ReportMetric(ms(openFloor.p99), "open-floor-p99-ms")
	b.Logf("open loop offered %.0f/s: direct p50 %.2f p99 %.2f ms; gateway p50 %.2f p99 %.2f max %.1f ms (added p99 %.2f); two raw commits a call p50 %.2f p99 %.2f max %.1f ms",
		rate, ms(openD.p50), ms(openD.p99), ms(openG.p50), ms(openG.p99), ms(openG.max), ms(openAddedP99), ms(openFloor.p50), ms(openFloor.p99), ms(openFloor.max))
	b.Logf("  %s", openCPU.perOp(gatewayCalls, "completion"))
	b.Logf("two raw one-row commits per call, %d clients: %.0f calls/s (%.0f commits/s), commit p50 %.2f ms, p99 %.2f ms",
		gatewayClients, raw.rate, 2*raw.rate, ms(raw.p50), ms(raw.p99))
	b.Logf("  %s", rawCPU.perOp(gatewayCalls, "call"))
}

// startGateway runs the platform with the gateway's sandbox for a
// benchmark (without the background workers when noWorkers) and answers
// its client and one completion through the gateway.
func startGateway(b *testing.B, noWorkers bool) (*apptest.Harness, loadClient, func(int) error) {
	h := apptest.Start(b, apptest.Options{NoWorkers: noWorkers, Configure: func(c *app.Config) {
		c.RateLimit.PerSecond, c.RateLimit.Burst = 1e6, 1e6
		c.HTTP.CheckOutput = false
		module.SectionOf[*gatewaymod.Config](c.Modules).Sandbox = true
	}})
	if noWorkers {
		requestPathWorkers(b, h)
	}
	// Idle connections beyond the 16 clients: the open loop has as many calls
	// in flight as are late, and a connection closed after its answer would
	// cost the next call a dial.
	// The HTTP bars' load generator (wire_test.go).
	client, err := newWireClient(h.URLs["gateway"], h.APIKey, 256)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(client.close)
	body := map[string]any{"prompt": "hello gateway bench", "max_tokens": 64}
	return h, client, func(int) error {
		_, err := client.do(http.MethodPost, "/api/ai/completions", body, http.StatusOK)
		return err
	}
}

// The open loop's added latency is the gateway's less the provider's own
// (the direct path's median), so a stall of the benchmark process during
// the direct loop does not pass for a gateway faster than the provider.
func TestOpenLoopAddedLatencyIgnoresTheDirectLoopsStalls(t *testing.T) {
	gateway := loadResult{p50: 5 * time.Millisecond, p99: 29 * time.Millisecond}
	direct := loadResult{p50: time.Millisecond, p99: 35 * time.Millisecond} // one stall in the direct loop
	p50, p99 := openAdded(gateway, direct)
	if p50 != 4*time.Millisecond || p99 != 28*time.Millisecond {
		t.Fatalf("added p50 %v, p99 %v; want 4ms, 28ms", p50, p99)
	}
}
