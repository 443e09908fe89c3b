package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"
)

// TestKillNineMidProjectionBacklog kills platformd while its projectors apply
// a backlog, twice:
//
//  1. the live generation: events are written through platformd #1, which is
//     killed; platformd #2 accepts more events while its status projector
//     waits for the dead consumer's session to expire (a backlog), and is
//     killed as soon as that projector commits its first batch of the backlog;
//  2. a rebuild: `replay` makes generation 2 read the whole log from offset
//     zero; platformd #3 is killed as soon as generation 2 commits its first
//     batch.
//
// After each restart the read model must equal the events: one row per
// incident at its latest revision, one update row per (incident, revision),
// nothing twice, nothing missing.
func TestKillNineMidProjectionBacklog(t *testing.T) {
	const (
		incidents = 640 // with 0..3 updates each: 1,600 events
		clients   = 8
	)
	s := NewStack(t)
	srv := s.StartServer(ServerOptions{})
	status, ops := srv.URL("status"), srv.URL("ops")
	pool := s.Pool()
	statusTopic := s.Prefix + ".status.events.v1"
	ctx := context.Background()

	// --- Phase 1: the first half through platformd #1, then SIGKILL.
	start := time.Now()
	writeIncidents(t, status, s.APIKey, 0, incidents/2, clients)
	t.Logf("wrote %d incidents in %s", incidents/2, time.Since(start).Round(time.Millisecond))
	srv.Kill9()

	// --- Phase 2: the second half through platformd #2, whose status
	// projector cannot consume before the dead member's session expires.
	srv.Start()
	restarted := time.Now()
	applied0 := checkpointSum(t, s, "status", 1)
	writeIncidents(t, status, s.APIKey, incidents/2, incidents, clients)
	hwm := hwmSum(t, s, statusTopic)
	t.Logf("wrote %d more incidents in %s; status g1 had applied %d of %d offsets",
		incidents-incidents/2, time.Since(restarted).Round(time.Millisecond), checkpointSum(t, s, "status", 1), hwm)
	killedAt := killWhenAdvanced(t, srv, s, "status", 1, applied0, 30*time.Second)
	t.Logf("platformd #2 killed when status g1 had applied %d of %d offsets (%s after the restart)%s",
		killedAt, hwm, time.Since(restarted).Round(time.Millisecond), midBacklog(killedAt, hwm))

	// --- Restart: the live generation catches up and equals the events.
	srv.Start()
	restarted = time.Now()
	eventually(t, 60*time.Second, "status g1 to catch up", func() error {
		return s.caughtUp(ctx, statusTopic, map[string]int{"status": 1, "notifications": 1, "history": 1})
	})
	t.Logf("status g1 caught up %s after the restart", time.Since(restarted).Round(time.Millisecond))
	checkReadModel(t, s, 1)
	events := queryInt(t, pool, `SELECT count(*) FROM es_events WHERE stream_type='status.incident'`)
	if n := queryInt(t, pool, `SELECT count(*) FROM notification_deliveries WHERE type LIKE 'status.incident.%'`); n != events {
		t.Errorf("%d incident notifications for %d incident events", n, events)
	}
	listBefore := expect(t, "list incidents", do(t, Req{Method: http.MethodGet, URL: status + "/api/incidents?status=all&limit=200", Key: s.APIKey}), http.StatusOK).Body

	// --- Phase 3: rebuild into generation 2; SIGKILL after its first batch.
	res := expect(t, "replay status", do(t, Req{Method: http.MethodPost, URL: ops + "/api/projections/status/replay", Key: s.APIKey}), http.StatusAccepted)
	var replay struct {
		Generation int `json:"generation"`
	}
	res.Decode(t, &replay)
	if replay.Generation != 2 {
		t.Fatalf("replay: %s, want generation 2", res)
	}
	hwm = hwmSum(t, s, statusTopic)
	killedAt = killWhenAdvanced(t, srv, s, "status", 2, 0, 30*time.Second)
	t.Logf("platformd #3 killed when status g2 had applied %d of %d offsets%s", killedAt, hwm, midBacklog(killedAt, hwm))
	if st := generationState(t, s, "status", 2); st != "building" {
		t.Logf("generation 2 was already %s at the kill", st)
	}

	// --- Restart: the rebuild resumes from its checkpoints and switches over.
	srv.Start()
	restarted = time.Now()
	eventually(t, 60*time.Second, "status g2 to become active", func() error {
		if st := generationState(t, s, "status", 2); st != "active" {
			return fmt.Errorf("generation 2 is %s", st)
		}
		return nil
	})
	t.Logf("status g2 active %s after the restart", time.Since(restarted).Round(time.Millisecond))
	if err := s.caughtUp(ctx, statusTopic, map[string]int{"status": 2}); err != nil {
		t.Errorf("status g2 is active but not caught up: %v", err)
	}
	checkReadModel(t, s, 2)
	for _, table := range []string{"status_incidents", "status_incident_updates"} {
		for _, q := range []string{
			fmt.Sprintf(`SELECT count(*) FROM (TABLE %s_g1 EXCEPT TABLE %s_g2) d`, table, table),
			fmt.Sprintf(`SELECT count(*) FROM (TABLE %s_g2 EXCEPT TABLE %s_g1) d`, table, table),
		} {
			if n := queryInt(t, pool, q); n != 0 {
				t.Errorf("generations 1 and 2 differ: %s = %d", q, n)
			}
		}
	}
	if n := queryInt(t, pool, `SELECT count(*) FROM notification_deliveries WHERE type LIKE 'status.incident.%'`); n != events {
		t.Errorf("after the rebuild: %d incident notifications for %d incident events (a rebuild never re-sends)", n, events)
	}
	if n := queryInt(t, pool, `SELECT count(*) FROM proj_failures`); n != 0 {
		t.Errorf("%d events were parked", n)
	}
	after := expect(t, "list incidents", do(t, Req{Method: http.MethodGet, URL: status + "/api/incidents?status=all&limit=200", Key: s.APIKey}), http.StatusOK).Body
	if !jsonEqual(listBefore, after) {
		t.Errorf("GET /api/incidents differs after the rebuild:\nbefore %s\nafter  %s", listBefore, after)
	}
}

// writeIncidents creates incidents [from, to) and gives incident i i%4
// updates (identified, monitoring, resolved), each request with its own
// Idempotency-Key. Every request must succeed.
func writeIncidents(t *testing.T, statusURL, key string, from, to, clients int) {
	t.Helper()
	client := &http.Client{Timeout: 20 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: clients}}
	ctx := context.Background()
	jobs := make(chan int)
	errc := make(chan error, clients)
	var wg sync.WaitGroup
	for range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				res, err := send(ctx, client, Req{Method: http.MethodPost, URL: statusURL + "/api/incidents", Key: key,
					Headers: map[string]string{"Idempotency-Key": fmt.Sprintf("backlog-%04d-1", i)},
					Body:    map[string]any{"title": fmt.Sprintf("Incident %04d", i), "message": "investigating", "severity": "major"}})
				if err != nil || res.Status != http.StatusCreated {
					errc <- fmt.Errorf("create incident %d: %v %s", i, err, res)
					return
				}
				var inc incident
				if err := json.Unmarshal(res.Body, &inc); err != nil {
					errc <- err
					return
				}
				for u, st := range []string{"identified", "monitoring", "resolved"}[:i%4] {
					res, err := send(ctx, client, Req{Method: http.MethodPatch, URL: statusURL + "/api/incidents/" + inc.IncidentID, Key: key,
						Headers: map[string]string{"Idempotency-Key": fmt.Sprintf("backlog-%04d-%d", i, u+2)},
						Body:    map[string]any{"status": st, "message": "now " + st}})
					if err != nil || res.Status != http.StatusOK {
						errc <- fmt.Errorf("update incident %d to %s: %v %s", i, st, err, res)
						return
					}
				}
			}
		}()
	}
	go func() {
		defer close(jobs)
		for i := from; i < to; i++ {
			select {
			case jobs <- i:
			case err := <-errc:
				errc <- err
				return
			}
		}
	}()
	wg.Wait()
	select {
	case err := <-errc:
		t.Fatal(err)
	default:
	}
}

// checkReadModel compares a generation of the status read model with the
// event store: every incident once at its latest revision and status, every
// (incident, revision) once in the timeline, the stream versions applied.
func checkReadModel(t *testing.T, s *Stack, gen int) {
	t.Helper()
	pool := s.Pool()
	g := fmt.Sprintf("_g%d", gen)
	events := queryInt(t, pool, `SELECT count(*) FROM es_events WHERE stream_type='status.incident'`)
	streams := queryInt(t, pool, `SELECT count(DISTINCT stream_id) FROM es_events WHERE stream_type='status.incident'`)
	checks := []struct {
		what string
		sql  string
		want int64
	}{
		{"incident rows", `SELECT count(*) FROM status_incidents` + g, streams},
		{"sum of revisions", `SELECT COALESCE(sum(revision), 0) FROM status_incidents` + g, events},
		{"update rows", `SELECT count(*) FROM status_incident_updates` + g, events},
		{"distinct (incident, revision) updates", `SELECT count(*) FROM (SELECT DISTINCT incident_id, revision FROM status_incident_updates` + g + `) d`, events},
		{"incidents whose revision is not their last event's version", `SELECT count(*) FROM
			(SELECT stream_id, max(stream_version) AS v FROM es_events WHERE stream_type='status.incident' GROUP BY stream_id) e
			FULL JOIN status_incidents` + g + ` i ON i.incident_id = e.stream_id WHERE i.revision IS DISTINCT FROM e.v`, 0},
		{"incidents whose status is not their last event's", `SELECT count(*) FROM es_events e JOIN status_incidents` + g + ` i
			ON i.incident_id = e.stream_id AND i.revision = e.stream_version WHERE i.status <> e.payload->>'status'`, 0},
		{"events without their update row", `SELECT count(*) FROM es_events e WHERE e.stream_type='status.incident' AND NOT EXISTS
			(SELECT 1 FROM status_incident_updates` + g + ` u WHERE u.incident_id = e.stream_id AND u.revision = e.stream_version)`, 0},
		{"streams whose applied version differs from the stream head", `SELECT count(*) FROM es_streams h
			FULL JOIN (SELECT * FROM proj_stream_versions WHERE projection='status' AND generation=$1 AND stream_id IN
				(SELECT stream_id FROM es_streams WHERE stream_type='status.incident')) v ON v.stream_id = h.stream_id
			WHERE h.stream_type='status.incident' AND v.version IS DISTINCT FROM h.version`, 0},
	}
	for _, c := range checks {
		var args []any
		if c.what == "streams whose applied version differs from the stream head" {
			args = append(args, gen)
		}
		if got := queryInt(t, pool, c.sql, args...); got != c.want {
			t.Errorf("status g%d: %s = %d, want %d", gen, c.what, got, c.want)
		}
	}
}

// killWhenAdvanced watches a generation's checkpoints and SIGKILLs the
// server as soon as their sum exceeds from; it returns the sum seen.
func killWhenAdvanced(t *testing.T, srv *Server, s *Stack, projection string, gen int, from int64, timeout time.Duration) int64 {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		if n := checkpointSum(t, s, projection, gen); n > from {
			srv.Kill9()
			return n
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s g%d did not advance past %d within %s", projection, gen, from, timeout)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func checkpointSum(t *testing.T, s *Stack, projection string, gen int) int64 {
	t.Helper()
	return queryInt(t, s.Pool(), `SELECT COALESCE(sum(next_offset), 0) FROM proj_checkpoints WHERE projection=$1 AND generation=$2`, projection, gen)
}

func hwmSum(t *testing.T, s *Stack, topic string) int64 {
	t.Helper()
	hw, err := highWaterMarks(s.Brokers, topic)
	if err != nil {
		t.Fatal(err)
	}
	var sum int64
	for _, v := range hw {
		sum += v
	}
	return sum
}

func generationState(t *testing.T, s *Stack, projection string, gen int) string {
	t.Helper()
	var st string
	if err := s.Pool().QueryRow(context.Background(), `SELECT state FROM proj_generations WHERE projection=$1 AND generation=$2`,
		projection, gen).Scan(&st); err != nil {
		return "missing (" + err.Error() + ")"
	}
	return st
}

func midBacklog(applied, hwm int64) string {
	if applied < hwm {
		return ": mid-backlog"
	}
	return ": the backlog was already applied (the kill came after the last batch)"
}
