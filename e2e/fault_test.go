package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/internal/apptest"
	"github.com/platform/backend/projections"
)

// The fault suite: the real platformd under a steady load of incident
// creations and updates (8 clients, ~100 commands/s, every command retried with its
// Idempotency-Key until it is answered 2xx) while the broker, the database
// or platformd itself fails. Each scenario ends with the five views of every
// acknowledged command: the event store, the read model, the history, the
// notifications (delivery log and webhook) and the log (Kafka): nothing lost,
// nothing doubled, no revision gap, each stream in order on the log.
//
// It runs on a stack of its own (faultStack): stopping the shared broker would
// break the tests running beside it.

const (
	faultClients        = 8
	openPerClient       = 8  // incidents a client updates in turn
	clientRate          = 12 // commands a client starts per second at most (~100/s in all, as in production-like runs)
	updatesPerIncident  = 4  // then the client opens a new incident in its place
	faultConvergeWithin = 120 * time.Second
	// faultRedeliverWithin bounds the time from the end of a fault to the
	// next notification the webhook receives.
	faultRedeliverWithin = 45 * time.Second
)

// loadIncident is one incident a client owns: the commands acknowledged so
// far, each the next revision.
type loadIncident struct {
	id    string
	acked int // revisions acknowledged (1 = created)
}

// faultLoad drives the load and counts every answer.
type faultLoad struct {
	t      *testing.T
	s      *Stack
	srv    *Server
	client *http.Client
	first  *http.Client // first attempt of each command (short timeout in one scenario)

	requests, ok, transport atomic.Int64
	mu                      sync.Mutex
	byStatus                map[int]int
	incidents               []*loadIncident
	doubled                 []string
	lastOK                  atomic.Int64 // unix nanos of the last 2xx
}

func newFaultLoad(t *testing.T, s *Stack, srv *Server, firstTimeout time.Duration) *faultLoad {
	l := &faultLoad{t: t, s: s, srv: srv, byStatus: map[int]int{},
		client: &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: faultClients}}}
	l.first = l.client
	if firstTimeout > 0 {
		l.first = &http.Client{Timeout: firstTimeout, Transport: &http.Transport{MaxIdleConnsPerHost: faultClients}}
	}
	return l
}

// command sends one command until a 2xx answers it (or the deadline) and
// returns the incident it answered.
func (l *faultLoad) command(ctx context.Context, method, path, key string, body any) (incident, bool) {
	c := l.first
	for ctx.Err() == nil {
		l.requests.Add(1)
		res, err := send(ctx, c, Req{Method: method, URL: l.srv.URL("status") + path, Key: l.s.APIKey,
			Headers: map[string]string{"Idempotency-Key": key}, Body: body})
		c = l.client
		if err != nil {
			l.transport.Add(1)
			sleepCtx(ctx, 50*time.Millisecond)
			continue
		}
		l.mu.Lock()
		l.byStatus[res.Status]++
		l.mu.Unlock()
		if res.Status >= 200 && res.Status < 300 {
			l.ok.Add(1)
			l.lastOK.Store(time.Now().UnixNano())
			var inc incident
			if err := json.Unmarshal(res.Body, &inc); err != nil || inc.IncidentID == "" {
				l.t.Errorf("%s %s: 2xx with %s", method, path, res)
			}
			return inc, true
		}
		if res.Status < 500 && res.Status != http.StatusTooManyRequests && res.Status != http.StatusConflict {
			l.t.Errorf("%s %s (key %s): %s", method, path, key, res)
			return incident{}, false
		}
		sleepCtx(ctx, 100*time.Millisecond)
	}
	return incident{}, false
}

// run drives one client until stop is closed; the command under way when it
// closes is still finished (within ctx). A client keeps openPerClient
// incidents and updates them in turn, so the log interleaves many streams,
// as a real tenant's does.
func (l *faultLoad) run(ctx context.Context, client int, stop <-chan struct{}) {
	open := make([]*loadIncident, 0, openPerClient)
	pace := time.NewTicker(time.Second / clientRate)
	defer pace.Stop()
	for n := 0; ; n++ {
		select {
		case <-stop:
			return
		case <-pace.C:
		}
		slot := n % openPerClient
		if slot >= len(open) || open[slot].acked > updatesPerIncident {
			key := fmt.Sprintf("fault-%d-%d-create", client, n)
			inc, ok := l.command(ctx, http.MethodPost, "/api/incidents", key,
				map[string]any{"title": fmt.Sprintf("Fault load %d/%d", client, n), "message": "opened under load", "severity": "minor"})
			if !ok {
				return
			}
			cur := &loadIncident{id: inc.IncidentID, acked: 1}
			if slot >= len(open) {
				open = append(open, cur)
			} else {
				open[slot] = cur
			}
			l.mu.Lock()
			l.incidents = append(l.incidents, cur)
			l.mu.Unlock()
			l.checkRevision(cur, inc, key)
			continue
		}
		cur := open[slot]
		key := fmt.Sprintf("fault-%s-rev-%d", cur.id, cur.acked+1)
		status := []string{"identified", "monitoring"}[cur.acked%2]
		inc, ok := l.command(ctx, http.MethodPatch, "/api/incidents/"+cur.id, key, map[string]any{"message": "update " + key, "status": status})
		if !ok {
			return
		}
		cur.acked++
		l.checkRevision(cur, inc, key)
	}
}

// checkRevision: the answer's revision is the count of acknowledged commands
// (a replayed answer included); anything above is a doubled command.
func (l *faultLoad) checkRevision(cur *loadIncident, inc incident, key string) {
	if inc.Revision != cur.acked {
		l.mu.Lock()
		l.doubled = append(l.doubled, fmt.Sprintf("%s answered revision %d, want %d", key, inc.Revision, cur.acked))
		l.mu.Unlock()
	}
}

func sleepCtx(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}

// faultTableHeader heads the suite's table of faultResult rows.
const faultTableHeader = "| scenario | requests | 2xx | 5xx by code | transport errors | lost | doubled | revision gaps | recovery (probe in read model) | webhook delivering again | probe notified (behind the backlog) | views converged after | relay partial sends |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|\n"

// faultResult is one row of the suite's table.
type faultResult struct {
	scenario                string
	requests, ok, transport int64
	byStatus                map[int]int
	commands                int
	lost, doubled, gaps     int
	recovery, notified      time.Duration
	delivering              time.Duration
	converged               time.Duration
	relayPartialSends       string
	// posts is the webhook receiver's count of POSTs per idempotency key,
	// published the partitions of each key's records on the notifications
	// topic (one per copy).
	posts     map[string]int
	published map[string][]int32
}

func (r faultResult) String() string {
	var codes []string
	for code, n := range r.byStatus {
		if code >= 500 {
			codes = append(codes, fmt.Sprintf("%d:%d", code, n))
		}
	}
	sort.Strings(codes)
	if len(codes) == 0 {
		codes = []string{"none"}
	}
	return fmt.Sprintf("| %s | %d | %d | %s | %d | %d | %d | %d | %s | %s | %s | %s | %s |", r.scenario, r.requests, r.ok, strings.Join(codes, " "),
		r.transport, r.lost, r.doubled, r.gaps, r.recovery.Round(10*time.Millisecond), r.delivering.Round(10*time.Millisecond), r.notified.Round(10*time.Millisecond),
		r.converged.Round(100*time.Millisecond), r.relayPartialSends)
}

// scenario runs the load around a fault. fault runs while the load is on and
// returns the time the fault was healed (the service back); recovery is then
// measured as the time from that moment to a probe command's events in the
// read model.
func scenario(t *testing.T, name string, firstTimeout time.Duration, fault func(t *testing.T, s *Stack, srv *Server)) faultResult {
	t.Helper()
	infra := faultStack(t)
	s := infra.NewStack(t)
	hook := newWebhook()
	defer hook.Close()
	srv := s.StartServer(ServerOptions{Env: []string{"PLATFORM_NOTIFY_URL=" + hook.URL}})
	load := newFaultLoad(t, s, srv, firstTimeout)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for c := range faultClients {
		wg.Add(1)
		go func() { defer wg.Done(); load.run(ctx, c, stop) }()
	}
	time.Sleep(2 * time.Second)
	fault(t, s, srv)
	healed := time.Now()
	recovery, probe := probeRecovery(t, s, srv, healed)
	// Notification delivery resumes within a bound after the fault: a
	// consumer group that took 85 s to rejoin a flapping broker was the
	// finding; sessions, rebalances and dials are bounded now.
	var delivering time.Duration
	eventually(t, faultRedeliverWithin, "the webhook to receive a notification after the fault", func() error {
		first := hook.FirstAfter(healed)
		if first.IsZero() {
			return errNotYet
		}
		delivering = first.Sub(healed)
		return nil
	})
	var notified time.Duration
	eventually(t, faultConvergeWithin, "the probe's notification at the webhook", func() error {
		if hook.Keys()["status:incident:"+probe+":rev:1"] == 0 {
			return errNotYet
		}
		notified = time.Since(healed)
		return nil
	})
	time.Sleep(2 * time.Second)
	close(stop)
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	res := faultResult{scenario: name, requests: load.requests.Load(), ok: load.ok.Load(), transport: load.transport.Load(),
		byStatus: load.byStatus, recovery: recovery, notified: notified, delivering: delivering}
	res.doubled = len(load.doubled)
	for _, d := range load.doubled {
		t.Errorf("doubled: %s", d)
	}
	res.converged = time.Since(healed)
	res.lost, res.gaps, res.commands = checkFiveViews(t, s, hook, load.incidents, map[string]bool{probe: true})
	res.converged = time.Since(healed) - res.converged
	res.relayPartialSends = metricValue(srv, "platform_relay_send_failures_total")
	res.posts, res.published = hook.Keys(), publishedNotifications(t, s)
	return res
}

// probeRecovery creates an incident once the fault is healed and returns
// how long it took from healed until the read model serves it.
func probeRecovery(t *testing.T, s *Stack, srv *Server, healed time.Time) (time.Duration, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), faultConvergeWithin)
	defer cancel()
	l := newFaultLoad(t, s, srv, 0)
	inc, ok := l.command(ctx, http.MethodPost, "/api/incidents", "fault-probe-"+fmt.Sprint(healed.UnixNano()),
		map[string]any{"title": "Recovery probe", "message": "after the fault", "severity": "minor"})
	if !ok {
		t.Fatalf("the probe command never got a 2xx after the fault")
	}
	for ctx.Err() == nil {
		res, err := send(ctx, httpClient, Req{Method: http.MethodGet, URL: srv.URL("status") + "/api/incidents?incidentId=" + inc.IncidentID, Key: s.APIKey})
		if err == nil && res.Status == http.StatusOK && strings.Contains(string(res.Body), inc.IncidentID) {
			return time.Since(healed), inc.IncidentID
		}
		time.Sleep(50 * time.Millisecond)
	}
	srv.signal(syscall.SIGQUIT, 5*time.Second) // its goroutines go to the log
	if raw, err := os.ReadFile(s.logPath); err == nil {
		_ = os.WriteFile(filepath.Join(os.TempDir(), "platformd-fault-stall.log"), raw, 0o644)
	}
	pending, _ := eventstore.Pending(context.Background(), s.Pool())
	topic := eventstore.Topics{Prefix: s.Prefix}.ForContext("status")
	t.Fatalf("the read model did not serve the probe incident within %s of the fault (relay: %d rows pending, %s sent, %s partial sends; status projection: %v)",
		faultConvergeWithin, pending, metricValue(srv, "platform_relay_published_events_total"), metricValue(srv, "platform_relay_send_failures_total"),
		s.caughtUp(context.Background(), topic, map[string]int{"status": 1}))
	return 0, ""
}

// checkFiveViews waits until the relay and every projection have caught up,
// then compares every view with what the clients were answered. It returns
// the events lost (missing from any view), the revision gaps, and the number
// of acknowledged commands.
func checkFiveViews(t *testing.T, s *Stack, hook *webhook, incidents []*loadIncident, probes map[string]bool) (lost, gaps, commands int) {
	t.Helper()
	ctx := context.Background()
	pool := s.Pool()
	want := map[string]int{}
	for _, inc := range incidents {
		want[inc.id] = inc.acked
		commands += inc.acked
	}
	topic := eventstore.Topics{Prefix: s.Prefix}.ForContext("status")
	gens := map[string]int{}
	eventually(t, faultConvergeWithin, "the relay, every projection and the webhook to catch up", func() error {
		if n, err := eventstore.Pending(ctx, pool); err != nil || n != 0 {
			return fmt.Errorf("relay: %d pending (%v)", n, err)
		}
		all, err := projections.Generations(ctx, pool)
		if err != nil {
			return err
		}
		for _, g := range all {
			if g.State == "active" {
				gens[g.Projection] = g.Generation
			} else if g.State == "building" {
				return fmt.Errorf("%s g%d still building", g.Projection, g.Generation)
			}
		}
		if err := s.caughtUp(ctx, topic, map[string]int{"status": gens["status"], "history": gens["history"], "notifications": gens["notifications"]}); err != nil {
			return err
		}
		delivered := queryInt(t, pool, `SELECT count(*) FROM notification_deliveries WHERE state='delivered' AND type LIKE 'status.incident.%'`)
		if total := queryInt(t, pool, `SELECT count(*) FROM notification_deliveries WHERE type LIKE 'status.incident.%'`); delivered != total {
			return fmt.Errorf("webhook: %d of %d notifications delivered", delivered, total)
		}
		return nil
	})

	// 1. The event store: versions 1..n, once each, per acknowledged incident.
	store := streamVersions(t, pool, `SELECT stream_id, stream_version FROM es_events WHERE stream_type='status.incident'`)
	// 2. The read model.
	readModel := map[string]int{}
	rows, err := pool.Query(ctx, fmt.Sprintf(`SELECT incident_id, revision FROM status_incidents_g%d`, gens["status"]))
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id string
		var rev int
		if err := rows.Scan(&id, &rev); err != nil {
			t.Fatal(err)
		}
		readModel[id] = rev
	}
	rows.Close()
	updates := streamVersions(t, pool, fmt.Sprintf(`SELECT incident_id, revision FROM status_incident_updates_g%d`, gens["status"]))
	// 3. The history.
	history := streamVersions(t, pool, fmt.Sprintf(`SELECT stream_id, stream_version FROM history_events_g%d WHERE stream_type='status.incident'`, gens["history"]))
	// 4. The notifications: the delivery log, and what the webhook received.
	received := hook.Keys()
	// 5. The log.
	logged := map[string][]int{}
	var outOfOrder []string
	for _, m := range apptest.ReadTopic(t, strings.Split(s.Brokers, ","), topic, 30*time.Second) {
		e, err := eventstore.DecodeEvent(m.Value)
		if err != nil {
			t.Fatalf("log offset %d: %v", m.Offset, err)
		}
		if e.StreamType != "status.incident" {
			continue
		}
		first := true
		for _, v := range logged[e.StreamID] {
			if v == int(e.StreamVersion) {
				first = false
			}
		}
		if first && int(e.StreamVersion) != len(uniq(logged[e.StreamID]))+1 {
			outOfOrder = append(outOfOrder, fmt.Sprintf("%s@%d first appears after %v", e.StreamID, e.StreamVersion, logged[e.StreamID]))
		}
		logged[e.StreamID] = append(logged[e.StreamID], int(e.StreamVersion))
	}
	for _, o := range outOfOrder {
		t.Errorf("log order: %s", o)
	}

	views := map[string]map[string][]int{"event store": store, "read-model updates": updates, "history": history}
	for id, n := range want {
		missing := 0
		for name, view := range views {
			got := view[id]
			if len(got) > n {
				t.Errorf("%s: incident %s has %d events %v, %d commands were acknowledged", name, id, len(got), got, n)
			}
			for v := 1; v <= n; v++ {
				if count(got, v) == 0 {
					t.Errorf("%s: incident %s lacks revision %d (has %v)", name, id, v, got)
					missing++
				}
			}
		}
		if readModel[id] != n {
			t.Errorf("read model: incident %s at revision %d, want %d", id, readModel[id], n)
			gaps++
		}
		for v := 1; v <= n; v++ {
			if received[fmt.Sprintf("status:incident:%s:rev:%d", id, v)] == 0 {
				t.Errorf("webhook: no notification for %s revision %d", id, v)
				missing++
			}
			if count(logged[id], v) == 0 {
				t.Errorf("log: incident %s revision %d is not on the log", id, v)
				missing++
			}
		}
		lost += missing
	}
	for id := range store {
		if _, ok := want[id]; !ok && !probes[id] {
			t.Errorf("event store holds incident %s no client was answered", id)
		}
	}
	return lost, gaps, commands
}

// streamVersions reads (stream, version) pairs into version lists.
func streamVersions(t *testing.T, pool *pgxpool.Pool, sql string) map[string][]int {
	t.Helper()
	rows, err := pool.Query(context.Background(), sql)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	defer rows.Close()
	out := map[string][]int{}
	for rows.Next() {
		var id string
		var v int
		if err := rows.Scan(&id, &v); err != nil {
			t.Fatal(err)
		}
		out[id] = append(out[id], v)
	}
	return out
}

func count(vs []int, v int) int {
	n := 0
	for _, x := range vs {
		if x == v {
			n++
		}
	}
	return n
}

func uniq(vs []int) map[int]bool {
	out := map[int]bool{}
	for _, v := range vs {
		out[v] = true
	}
	return out
}

// metricValue reads one counter from the ops service's /metrics ("?" when
// it cannot).
func metricValue(srv *Server, name string) string {
	res, err := send(context.Background(), httpClient, Req{Method: http.MethodGet, URL: srv.URL("ops") + "/metrics"})
	if err != nil || res.Status != http.StatusOK {
		return "?"
	}
	for _, line := range strings.Split(string(res.Body), "\n") {
		if strings.HasPrefix(line, name+" ") {
			return strings.TrimPrefix(line, name+" ")
		}
	}
	return "0"
}
