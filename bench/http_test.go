package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime/trace"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/platform/backend/commands"
	agentcmd "github.com/platform/backend/commands/agent"
	statuscmd "github.com/platform/backend/commands/status"
	domain "github.com/platform/backend/domain/status"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/internal/app"
	"github.com/platform/backend/internal/apptest"
)

// loadResult is a closed-loop load: `clients` workers issue n operations.
type loadResult struct {
	rate              float64
	p50, p99, max     time.Duration
	firstP50, lastP50 time.Duration // p50 of the first and the last 1,000 operations (stream growth)
	lateP99           time.Duration // open loop: p99 of how late an operation started after its scheduled time
}

// closedLoop runs n operations over `clients` workers; op gets the
// operation's index and fails the run by returning an error.
func closedLoop(b *testing.B, clients, n int, op func(k int) error) loadResult {
	b.Helper()
	var next atomic.Int64
	lat := make([]time.Duration, n)
	var wg sync.WaitGroup
	var failed atomic.Value
	start := time.Now()
	for range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for failed.Load() == nil {
				k := int(next.Add(1)) - 1
				if k >= n {
					return
				}
				t := time.Now()
				if err := op(k); err != nil {
					failed.Store(err)
					return
				}
				lat[k] = time.Since(t)
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	if err, _ := failed.Load().(error); err != nil {
		b.Fatal(err)
	}
	w := min(1000, n)
	head := percentiles(append([]time.Duration(nil), lat[:w]...), 0.5)
	tail := percentiles(append([]time.Duration(nil), lat[n-w:]...), 0.5)
	p := percentiles(lat, 0.50, 0.99, 1)
	return loadResult{rate: float64(n) / elapsed.Seconds(), p50: p[0], p99: p[1], max: p[2], firstP50: head[0], lastP50: tail[0]}
}

// openLoop sends n operations at a fixed offered rate, operation k
// scheduled at start + k/rate, each on its own goroutine whether or not the
// earlier ones answered: arrivals keep their schedule, as a service's
// independent users do. Each latency runs from the operation's scheduled
// time, not from when it was sent, so a sender that fell behind (a busy
// machine, a stalled server) counts the delay instead of hiding it
// (coordinated omission). rate is the rate achieved: n over the time from
// the first scheduled send to the last answer.
func openLoop(b *testing.B, rate float64, n int, op func(k int) error) loadResult {
	b.Helper()
	lat, late := make([]time.Duration, n), make([]time.Duration, n)
	var wg sync.WaitGroup
	var failed atomic.Value
	interval := time.Duration(float64(time.Second) / rate)
	start := time.Now()
	for k := 0; k < n && failed.Load() == nil; k++ {
		at := start.Add(time.Duration(k) * interval)
		if d := time.Until(at); d > 0 {
			time.Sleep(d)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			// How late the send starts (the generator's own wait for the
			// CPU): counted in the latency, shown apart.
			late[k] = time.Since(at)
			if trace.IsEnabled() {
				// Traced (BENCH_GATEWAY_TRACE): a call is a task that
				// begins at its send, and logs how late that send was.
				ctx, task := trace.NewTask(context.Background(), "bench.call")
				trace.Logf(ctx, "late", "%d", time.Since(at).Microseconds())
				defer task.End()
			}
			if err := op(k); err != nil {
				failed.Store(err)
				return
			}
			lat[k] = time.Since(at)
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	if err, _ := failed.Load().(error); err != nil {
		b.Fatal(err)
	}
	p := percentiles(lat, 0.50, 0.99, 1)
	return loadResult{rate: float64(n) / elapsed.Seconds(), p50: p[0], p99: p[1], max: p[2], lateP99: percentiles(late, 0.99)[0]}
}

type httpClient struct {
	c     *http.Client
	base  string
	token string
}

// do sends body as JSON; a nil body sends none (as a client asking
// /validate does: it sent the four bytes "null" with a Content-Type, which
// no client sends on a GET and both sides paid for).
func (c *httpClient) do(method, path string, body any, want int) ([]byte, error) {
	var payload io.Reader
	if body != nil {
		raw, _ := json.Marshal(body)
		payload = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, c.base+path, payload)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.c.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	// Read into one buffer of the announced length, as a client that reads
	// Content-Length does; io.ReadAll grew from 512 bytes, allocating about
	// three times a 3 KB body.
	var buf bytes.Buffer
	if resp.ContentLength > 0 && resp.ContentLength < 1<<20 {
		buf.Grow(int(resp.ContentLength) + bytes.MinRead)
	}
	if _, err := buf.ReadFrom(resp.Body); err != nil {
		return nil, err
	}
	out := buf.Bytes()
	if resp.StatusCode != want {
		return nil, fmt.Errorf("%s %s: %d %s", method, path, resp.StatusCode, out)
	}
	return out, nil
}

// BenchmarkIncidentUpdatesHTTP runs the whole platform in-process (apptest:
// HTTP services, relay, projections and dispatcher all running), opens
// httpIncidents incidents, then 16, 32 and 64 concurrent clients (one run
// each) PATCH httpUpdates updates over HTTP (keep-alive connections), each
// update going to the next incident in turn. It reports commands/s and the
// p50/p99 of the per-request latency at 16 and at 64 clients.
//
// The ceiling, measured in the same benchmark before the platform starts, is
// PostgreSQL's durable commit rate at the same concurrency: one-row INSERT
// transactions shaped like an outbox row, one client one transaction. Every
// command is (at least) one such row in a durable commit, so that is the
// rate a command path committing each command alone cannot exceed on this
// server; a group commit can.
//
// For the split between HTTP/auth and the event store it also runs the same
// updates (on other incidents) directly through the command handlers.
func BenchmarkIncidentUpdatesHTTP(b *testing.B) {
	rawPool := newPool(b, int32(slices.Max(httpClientSweep))+8)
	raws := map[int]commitStats{}
	for _, clients := range httpRawSweep {
		raws[clients] = rawCommitRate(b, rawPool, clients, httpUpdates)
		b.Logf("raw PostgreSQL, %d one-row INSERT transactions by %d clients: %.0f commits/s (p50 %.1f ms, p99 %.1f ms)",
			httpUpdates, clients, raws[clients].rate, ms(raws[clients].p50), ms(raws[clients].p99))
	}
	rawPool.Close()

	h := startPlatform(b, false)
	var runs []httpRun
	var direct httpRun
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		runs = runs[:0]
		for _, clients := range httpClientSweep {
			runs = append(runs, runHTTPUpdates(b, h, httpIncidents, clients, true, true))
		}
		// The same commands without HTTP: the command handlers called in-process.
		direct = runDirectUpdates(b, h, httpIncidents)
	}
	at := func(clients int) httpRun {
		for _, r := range runs {
			if r.clients == clients {
				return r
			}
		}
		b.Fatalf("no run at %d clients", clients)
		return httpRun{}
	}
	low, high := at(16), at(64)
	b.ReportMetric(low.rate, "cmds/s")
	b.ReportMetric(ms(low.p50), "p50-ms")
	b.ReportMetric(ms(low.p99), "p99-ms")
	b.ReportMetric(raws[16].rate, "raw-commits/s")
	b.ReportMetric(low.rate/raws[16].rate, "ratio")
	b.ReportMetric(high.rate, "cmds-64c/s")
	b.ReportMetric(ms(high.p99), "p99-64c-ms")
	b.ReportMetric(raws[64].rate, "raw-commits-64c/s")
	b.ReportMetric(high.rate/raws[64].rate, "ratio-64c")
	b.ReportMetric(direct.rate, "store-cmds/s")
	for _, res := range runs {
		b.Logf("HTTP PATCH /api/incidents/{id}: %d updates by %d clients over %d incidents: %.0f cmds/s, p50 %.1f ms, p99 %.1f ms, max %.1f ms",
			httpUpdates, res.clients, httpIncidents, res.rate, ms(res.p50), ms(res.p99), ms(res.max))
		b.Logf("  %s (the Go process holds the HTTP clients too)", res.cpu.perOp(httpUpdates, "command"))
		b.Logf("  background work during the run: %s", res.workers)
	}
	b.Logf("in-process command handlers (no HTTP, no auth), %d clients: %.0f cmds/s, p50 %.1f ms, p99 %.1f ms; first/last 1,000 p50 %.1f/%.1f ms",
		httpClients, direct.rate, ms(direct.p50), ms(direct.p99), ms(direct.firstP50), ms(direct.lastP50))
	b.Logf("in-process %s", direct.cpu.perOp(httpUpdates, "command"))
	met := func(ok bool) string {
		if ok {
			return "MET"
		}
		return "NOT MET"
	}
	b.Logf("16 clients: %.0f cmds/s (p99 %.1f ms) vs raw commits %.0f/s: ratio %.2f (bar >= 0.5 with p99 < 25 ms: %s)",
		low.rate, ms(low.p99), raws[16].rate, low.rate/raws[16].rate, met(low.rate >= 0.5*raws[16].rate && low.p99 < 25*time.Millisecond))
	b.Logf("64 clients: %.0f cmds/s (p99 %.1f ms) vs raw commits %.0f/s: ratio %.2f (bar >= 0.8: %s)",
		high.rate, ms(high.p99), raws[64].rate, high.rate/raws[64].rate, met(high.rate >= 0.8*raws[64].rate))
}

// BenchmarkDiagCommandPath is a diagnostic, skipped unless BENCH_DIAG=1: the
// HTTP update load of BenchmarkIncidentUpdatesHTTP at the bars' 16 and 64
// clients with the platform's background workers switched on one by one
// (none: the command path alone, authentication's head watch included:
// requestPathWorkers; then the relay, the projection engine, with the
// notification dispatcher or with the reactors, and everything), each
// against raw one-row commits measured just before. It
// tells what the command path costs from what its consumers, sharing the
// same two cores, take from it.
func BenchmarkDiagCommandPath(b *testing.B) {
	if os.Getenv("BENCH_DIAG") != "1" {
		b.Skip("diagnostic: set BENCH_DIAG=1")
	}
	rawPool := newPool(b, int32(slices.Max(httpRawSweep))+8)
	raws := map[int]commitStats{}
	for _, clients := range httpRawSweep {
		raws[clients] = rawCommitRate(b, rawPool, clients, httpUpdates)
	}
	rawPool.Close()
	rows := []string{"none", "relay", "relay+projections", "relay+projections+dispatcher", "relay+projections+reactors", "all"}
	for _, workers := range rows {
		b.Run("workers="+workers, func(b *testing.B) {
			h := startPlatform(b, workers != "all") // "all": the platform as it runs
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if workers != "none" && workers != "all" {
				go h.App.Relay.Run(ctx) //nolint:errcheck
			}
			if strings.HasPrefix(workers, "relay+projections") {
				go h.App.Engine.Run(ctx) //nolint:errcheck
			}
			switch workers {
			case "relay+projections+dispatcher":
				go h.App.Dispatcher().Run(ctx)
			case "relay+projections+reactors":
				go h.App.Reactors.Run(ctx) //nolint:errcheck
			}
			for range b.N {
				for _, clients := range httpRawSweep {
					res := runHTTPUpdates(b, h, httpIncidents, clients, workers == "all" || strings.HasPrefix(workers, "relay+projections"),
						workers == "all" || workers == "relay+projections+dispatcher")
					b.ReportMetric(res.rate/raws[clients].rate, fmt.Sprintf("ratio-%dc", clients))
					b.Logf("%d clients: %.0f cmds/s, p50 %.1f ms, p99 %.1f ms, %.2f of raw commits (%.0f/s); %s; %s", clients,
						res.rate, ms(res.p50), ms(res.p99), res.rate/raws[clients].rate, raws[clients].rate, res.cpu.perOp(httpUpdates, "command"), res.workers)
				}
			}
		})
	}
}

// moduleWorker is a module's named background worker (module.Worker).
func moduleWorker(b *testing.B, h *apptest.Harness, moduleName, worker string) func(context.Context) error {
	for _, w := range h.App.Parts[moduleName].Workers {
		if w.Name == worker {
			return w.Run
		}
	}
	b.Fatalf("module %s has no worker %s", moduleName, worker)
	return nil
}

// startPlatform starts the in-process platform with a rate limit that never
// bites and without the tests' output-schema check (a debug aid production
// does not run); with noWorkers only the HTTP services run, and the
// request path's own worker (requestPathWorkers).
func startPlatform(b *testing.B, noWorkers bool) *apptest.Harness {
	h := apptest.Start(b, apptest.Options{NoWorkers: noWorkers, Configure: func(c *app.Config) {
		c.RateLimit.PerSecond, c.RateLimit.Burst = 1e6, 1e6
		c.HTTP.CheckOutput = false
		if d, err := time.ParseDuration(os.Getenv("BENCH_RELAY_POLL")); err == nil { // another relay poll interval, to compare
			c.Relay.PollInterval = d
		}
	}})
	if noWorkers {
		requestPathWorkers(b, h)
	}
	return h
}

// requestPathWorkers runs, on a platform started without its background
// workers, the one a request's cost depends on: identity's head watch, which
// lets authentication (and the gateway's connection in use) answer from
// memory. Without it every request read its credential's streams, and the
// diagnostics' "request path alone" measured a read the platform does not do.
func requestPathWorkers(b *testing.B, h *apptest.Harness) {
	ctx, cancel := context.WithCancel(context.Background())
	b.Cleanup(cancel)
	go moduleWorker(b, h, "identity", "head-watch")(ctx) //nolint:errcheck
}

// httpRun is one closed-loop run with the CPU it used.
type httpRun struct {
	loadResult
	cpu     cpuUse
	workers string // what the relay and the projections did meanwhile
	clients int
}

// runHTTPUpdates opens `incidents` incidents over HTTP, warms up, then times
// httpUpdates PATCH updates by httpClients keep-alive clients, update k
// going to incident k mod incidents. With idle it first waits for the relay
// and the projections to finish the setup's events.
func runHTTPUpdates(b *testing.B, h *apptest.Harness, incidents, clients int, idle, dispatcher bool) httpRun {
	b.Helper()
	client, err := newWireClient(h.URLs["status"], h.APIKey, 4*clients)
	if err != nil {
		b.Fatal(err)
	}
	defer client.close()
	ids := make([]string, incidents)
	closedLoop(b, 8, incidents, func(i int) error {
		out, err := client.do(http.MethodPost, "/api/incidents", map[string]any{
			"title": fmt.Sprintf("Elevated error rate on API node %d", i), "message": "We are investigating elevated error rates.",
			"severity": "major", "componentHost": "api.example.com", "componentName": "Public API"}, http.StatusCreated)
		if err != nil {
			return err
		}
		var inc struct {
			IncidentID string `json:"incident_id"`
		}
		if err := json.Unmarshal(out, &inc); err != nil {
			return err
		}
		ids[i] = inc.IncidentID
		return nil
	})
	statuses := []string{"identified", "monitoring", "investigating"}
	update := func(k int) error {
		_, err := client.do(http.MethodPatch, "/api/incidents/"+ids[k%len(ids)], map[string]any{
			"status":  statuses[(k/len(ids))%len(statuses)],
			"message": fmt.Sprintf("Update %d: the fix is being rolled out region by region.", k)}, http.StatusOK)
		return err
	}
	// Warm-up: connections, caches, and the JVM's JIT of the broker, so the
	// timed run measures the steady state.
	closedLoop(b, clients, httpWarmup, func(k int) error { return update(k + len(ids)) })
	if idle {
		waitIdle(b, h, dispatcher)
	}
	db := h.App.Pool.Config().ConnConfig.Database
	w0 := workerCounters()
	pending0, published0 := deliveries(b, h)
	b.StartTimer()
	cpu0 := sampleCPU(db)
	res := closedLoop(b, clients, httpUpdates, func(k int) error { return update(k + len(ids) + httpWarmup) })
	cpu := cpu0.to(sampleCPU(db))
	b.StopTimer()
	workers := w0.to(workerCounters())
	if pending, published := deliveries(b, h); dispatcher && (published > 0 || pending > 0) {
		workers += fmt.Sprintf("; notification dispatcher published %d deliveries (%d waiting before, %d waiting after)",
			published-published0, pending0, pending)
		// With the load stopped, how fast does the dispatcher catch up?
		start := time.Now()
		waitIdle(b, h, true)
		if d := time.Since(start); pending > 0 {
			workers += fmt.Sprintf("; after the load it drained them in %.1fs (%.0f deliveries/s)", d.Seconds(), float64(pending)/d.Seconds())
		}
	}
	return httpRun{loadResult: res, cpu: cpu, workers: workers, clients: clients}
}

// deliveries counts the notification deliveries waiting for the dispatcher
// and those it has published.
func deliveries(b *testing.B, h *apptest.Harness) (pending, published int64) {
	b.Helper()
	err := h.App.Pool.QueryRow(context.Background(), `SELECT count(*) FILTER (WHERE state IN ('pending', 'invalid')),
		count(*) FILTER (WHERE state NOT IN ('pending', 'invalid')) FROM notification_states`).Scan(&pending, &published)
	must(b, err)
	return pending, published
}

// runDirectUpdates is runHTTPUpdates through the command handlers in-process.
func runDirectUpdates(b *testing.B, h *apptest.Harness, incidents int) httpRun {
	b.Helper()
	ctx := context.Background()
	meta := commands.Meta{OrganizationID: h.OrgID, Actor: eventstore.Actor{ID: "bench", Type: "api_key"}}
	ids := make([]string, incidents)
	for i := range ids {
		r, err := apptest.Provided[*statuscmd.Handlers](h).CreateIncident(ctx, meta, statuscmd.CreateIncident{Title: fmt.Sprintf("Direct %d", i),
			Message: "We are investigating elevated error rates.", Severity: "major"})
		must(b, err)
		ids[i] = r.Value.IncidentID
	}
	statuses := []string{"identified", "monitoring", "investigating"}
	waitIdle(b, h, true)
	db := h.App.Pool.Config().ConnConfig.Database
	cpu0 := sampleCPU(db)
	res := closedLoop(b, httpClients, httpUpdates, func(k int) error {
		_, err := apptest.Provided[*statuscmd.Handlers](h).UpdateIncident(ctx, meta, statuscmd.UpdateIncident{IncidentID: ids[k%len(ids)],
			Status: statuses[(k/len(ids))%len(statuses)], Message: fmt.Sprintf("Update %d: the fix is being rolled out.", k)})
		return err
	})
	return httpRun{loadResult: res, cpu: cpu0.to(sampleCPU(db)), clients: httpClients}
}

// statusReactors are the reactors reading the status topic the HTTP load
// writes to.
var statusReactors = []string{statuscmd.AutoIncidentReactor, agentcmd.TriggersReactor}

// workerSample counts what the relay and the projection runners committed.
type workerSample struct {
	relayed          float64
	batches, applied map[string]float64
	// the reactors reading the status topic: batches read, records read
	reactorBatches, reactorRecords map[string]float64
	// the group commit of the commands: flushes, commands, seconds in
	// flushes, seconds commands spent in Store.Execute
	flushes, flushed, flushSeconds, executeSeconds float64
	// commands decided on a history the store kept (eventstore/known.go),
	// and those read again after all
	knownHits, knownRereads float64
}

func workerCounters() workerSample {
	s := workerSample{relayed: counter("platform_relay_published_events_total"), batches: map[string]float64{}, applied: map[string]float64{},
		flushes: counter("platform_command_flushes_total"), flushed: counter("platform_command_flushed_commands_total"),
		flushSeconds: counter("platform_command_flush_seconds_total"), executeSeconds: counter("platform_command_execute_seconds_total"),
		knownHits: counter("platform_command_known_streams_total", "outcome", "hit"), knownRereads: counter("platform_command_known_streams_total", "outcome", "reread")}
	for _, name := range []string{"status", "history", "notifications"} {
		s.batches[name] = counter("platform_projection_batches_total", "projection", name)
		s.applied[name] = counter("platform_projection_events_applied_total", "projection", name)
	}
	s.reactorBatches, s.reactorRecords = map[string]float64{}, map[string]float64{}
	for _, name := range statusReactors {
		s.reactorBatches[name] = counter("platform_reactor_batches_total", "reactor", name)
		s.reactorRecords[name] = counter("platform_reactor_records_total", "reactor", name)
	}
	return s
}

func (a workerSample) to(b workerSample) string {
	out := ""
	if n, c := b.flushes-a.flushes, b.flushed-a.flushed; n > 0 && c > 0 {
		out = fmt.Sprintf("group commit: %.0f flushes for %.0f commands (%.1f each), a flush %.2f ms, a command %.2f ms in Store.Execute; ",
			n, c, c/n, 1000*(b.flushSeconds-a.flushSeconds)/n, 1000*(b.executeSeconds-a.executeSeconds)/c)
		out += fmt.Sprintf("%.0f decided on kept histories, %.0f read again; ", b.knownHits-a.knownHits, b.knownRereads-a.knownRereads)
	}
	out += fmt.Sprintf("relay published %.0f events", b.relayed-a.relayed)
	for _, name := range []string{"status", "history", "notifications"} {
		n, e := b.batches[name]-a.batches[name], b.applied[name]-a.applied[name]
		if n > 0 {
			out += fmt.Sprintf("; projection %s committed %.0f transactions for %.0f events (%.1f events each)", name, n, e, e/n)
		}
	}
	for _, name := range statusReactors {
		if n, r := b.reactorBatches[name]-a.reactorBatches[name], b.reactorRecords[name]-a.reactorRecords[name]; n > 0 {
			out += fmt.Sprintf("; reactor %s read %.0f batches of %.0f records (%.1f each)", name, n, r, r/n)
		}
	}
	return out
}

// waitIdle waits until the relay has published everything, every projection
// has caught up and the dispatcher has published every notification, so that
// one phase's background work does not load the next phase. Without
// dispatcher, waiting notification deliveries are not waited for.
func waitIdle(b *testing.B, h *apptest.Harness, dispatcher bool) {
	b.Helper()
	ctx := context.Background()
	apptest.Eventually(b, 2*time.Minute, "relay and projections idle", func() bool {
		if pending, err := eventstore.Pending(ctx, h.App.Pool); err != nil || pending > 0 {
			return false
		}
		if waiting, _ := deliveries(b, h); dispatcher && waiting > 0 {
			return false
		}
		for _, name := range h.App.Engine.Names() {
			if p, _ := h.App.Engine.Projection(name); !slices.Contains(p.Contexts(), "status") {
				continue // reads no status event
			}
			var lag int64
			err := h.App.Pool.QueryRow(ctx, `SELECT count(*) FROM es_events e WHERE e.stream_type LIKE 'status.%' AND NOT EXISTS (
				SELECT 1 FROM proj_stream_versions v WHERE v.projection = $1 AND v.stream_id = e.stream_id AND v.version >= e.stream_version)`,
				name).Scan(&lag)
			if err != nil || lag > 0 {
				return false
			}
		}
		return true
	})
}

// BenchmarkIncidentHistoryDecode is a diagnostic: the Go CPU one incident
// command spends rebuilding its stream from the whole history, as a function
// of the stream's length. Per event: pgx scans the jsonb payload into a
// json.RawMessage (json.Unmarshal), eventstore.Upcast, then
// domain LoadIncident decodes every payload again.
func BenchmarkIncidentHistoryDecode(b *testing.B) {
	for _, n := range []int{3, 32, 96} {
		b.Run(fmt.Sprintf("events=%d", n), func(b *testing.B) {
			events := statusEvents("org", n, 1)
			const reps = 2000
			start := time.Now()
			for range b.N {
				for range reps {
					history := make([]eventstore.Event, n)
					for i, e := range events {
						var payload json.RawMessage
						if err := json.Unmarshal(e.Payload, &payload); err != nil {
							b.Fatal(err)
						}
						e.Payload = payload
						up, err := eventstore.Upcast(e)
						must(b, err)
						history[i] = up
					}
					if _, err := domain.LoadIncident(commands.Recorded(history)); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(time.Since(start).Microseconds())/float64(b.N*reps), "us/cmd")
		})
	}
}
