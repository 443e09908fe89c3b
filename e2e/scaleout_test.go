package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/IBM/sarama"
)

// TestTwoProcessesShareTheWork runs two platformd processes on one database
// and one broker, as a deployment of two replicas does, with the load spread
// over both:
//
//   - every incident is created by sending the same request, with the same
//     Idempotency-Key, to both processes at once: one incident, both answers
//     name it; its updates alternate between the processes and its revisions
//     stay dense;
//   - the consumer groups of the projections and reactors have a member in
//     each process and share the partitions; every projection applies every
//     event once (the read model and the audit history equal the event
//     store);
//   - each leader lock is held by one session, durable timers fire once
//     (maintenance windows scheduled on either process start once), and
//     every notification is delivered once;
//   - then the second process is killed with SIGKILL in the middle of more
//     load; requests it did not answer are retried on the first with the
//     same key, and the first takes over its partitions and leader work:
//     nothing is lost, nothing is applied twice.
func TestTwoProcessesShareTheWork(t *testing.T) {
	s := NewStack(t)
	hook := newWebhook()
	defer hook.Close()
	env := []string{"PLATFORM_NOTIFY_URL=" + hook.URL, "TIMERS_POLL_INTERVAL=100ms"}
	procs := []*Server{s.StartServer(ServerOptions{Name: "a", Env: env}), s.StartServer(ServerOptions{Name: "b", Env: env})}
	pool := s.Pool()
	client := &http.Client{Timeout: 20 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 16}}

	t.Run("consumer groups have a member in each process", func(t *testing.T) {
		eventually(t, 60*time.Second, "two members in every group", func() error { return groupsShared(s, 2) })
	})

	// Phase 1: both processes up.
	const phase1 = 48
	ids := make([]string, phase1)
	var wg sync.WaitGroup
	var failures atomic.Int32
	for i := range phase1 {
		wg.Go(func() {
			body := map[string]any{"title": fmt.Sprintf("Scale-out %02d", i), "message": "created twice at once", "severity": "minor"}
			key := fmt.Sprintf("e2e-scaleout-%02d", i)
			answers := make([]incident, len(procs))
			var both sync.WaitGroup
			for p, srv := range procs {
				both.Go(func() {
					res, err := send(context.Background(), client, Req{Method: http.MethodPost, URL: srv.URL("status") + "/api/incidents",
						Key: s.APIKey, Headers: map[string]string{"Idempotency-Key": key}, Body: body})
					if err != nil || res.Status != http.StatusCreated {
						t.Errorf("create %d on %s: %v %v", i, srv.Name, res, err)
						failures.Add(1)
						return
					}
					_ = json.Unmarshal(res.Body, &answers[p])
				})
			}
			both.Wait()
			if answers[0].IncidentID == "" || answers[0].IncidentID != answers[1].IncidentID {
				t.Errorf("key %s answered %q on a and %q on b", key, answers[0].IncidentID, answers[1].IncidentID)
				failures.Add(1)
				return
			}
			ids[i] = answers[0].IncidentID
			for u := range 2 { // updates alternate between the processes
				srv := procs[(i+u)%2]
				res, err := send(context.Background(), client, Req{Method: http.MethodPatch, URL: srv.URL("status") + "/api/incidents/" + ids[i],
					Key: s.APIKey, Body: map[string]any{"status": "identified", "message": fmt.Sprintf("update %d via %s", u, srv.Name)}})
				if err != nil || res.Status != http.StatusOK {
					t.Errorf("update %d of %d on %s: %v %v", u, i, srv.Name, res, err)
					failures.Add(1)
					return
				}
			}
		})
	}
	// Durable timers: windows scheduled on either process start once.
	start := time.Now().Add(3 * time.Second)
	var windows []string
	for w := range 6 {
		res := expect(t, "schedule a window", do(t, Req{Method: http.MethodPost, URL: procs[w%2].URL("status") + "/api/maintenance", Key: s.APIKey,
			Body: map[string]any{"title": "Database upgrade", "message": "Read-only for a moment", "scheduledStart": start.Format(time.RFC3339Nano),
				"scheduledEnd": start.Add(time.Hour).Format(time.RFC3339Nano), "autoStart": true}}), http.StatusCreated)
		var mw struct {
			MaintenanceID string `json:"maintenance_id"`
		}
		res.Decode(t, &mw)
		windows = append(windows, mw.MaintenanceID)
	}
	wg.Wait()
	if failures.Load() > 0 {
		t.FailNow()
	}
	if n := queryInt(t, pool, `SELECT count(*) FROM es_events WHERE stream_type='status.incident'`); n != 3*phase1 {
		t.Fatalf("%d incident events, want %d (one creation and two updates each)", n, 3*phase1)
	}
	if n := queryInt(t, pool, `SELECT count(*) FROM (SELECT stream_id FROM es_events WHERE stream_type='status.incident'
		GROUP BY stream_id HAVING array_agg(stream_version ORDER BY stream_version) <> ARRAY[1,2,3]::bigint[]) d`); n != 0 {
		t.Fatalf("%d incidents whose revisions are not 1, 2, 3", n)
	}
	for _, id := range windows {
		eventually(t, 60*time.Second, "window "+id+" to start", func() error {
			if n := queryInt(t, pool, `SELECT count(*) FROM es_events WHERE stream_id=$1 AND event_type='status.maintenance.started'`, id); n < 1 {
				return errNotYet
			}
			return nil
		})
	}
	t.Run("leaders are held once", func(t *testing.T) { leadersOnce(t, s) })
	settled(t, s, hook, "phase 1")
	t.Run("timers fired once", func(t *testing.T) {
		for _, id := range windows {
			if n := queryInt(t, pool, `SELECT count(*) FROM es_events WHERE stream_id=$1 AND event_type='status.maintenance.started'`, id); n != 1 {
				t.Errorf("window %s started %d times", id, n)
			}
		}
	})
	t.Run("notifications delivered once", func(t *testing.T) {
		for k, n := range hook.Keys() {
			if n != 1 {
				t.Errorf("notification %s delivered %d times", k, n)
			}
		}
	})

	// Phase 2: b is killed in the middle of more load; what it did not
	// answer is retried on a.
	const phase2, killAfter = 90, 30
	results := make([]string, phase2)
	var successes atomic.Int32
	var killOnce sync.Once
	jobs := make(chan int)
	for c := range 6 {
		wg.Go(func() {
			for i := range jobs {
				srv := procs[(i+c)%2]
				res, err := send(context.Background(), client, Req{Method: http.MethodPost, URL: srv.URL("status") + "/api/incidents", Key: s.APIKey,
					Headers: map[string]string{"Idempotency-Key": fmt.Sprintf("e2e-scaleout-kill-%02d", i)},
					Body:    map[string]any{"title": fmt.Sprintf("Under fire %02d", i), "message": "one process dies", "severity": "minor"}})
				if err != nil || res.Status != http.StatusCreated {
					continue
				}
				var inc incident
				_ = json.Unmarshal(res.Body, &inc)
				results[i] = inc.IncidentID
				if successes.Add(1) == killAfter {
					killOnce.Do(procs[1].Kill9)
				}
			}
		})
	}
	for i := range phase2 {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	retried := 0
	for i, id := range results {
		if id != "" {
			continue
		}
		retried++
		res := expect(t, "retry on a", do(t, Req{Method: http.MethodPost, URL: procs[0].URL("status") + "/api/incidents", Key: s.APIKey,
			Headers: map[string]string{"Idempotency-Key": fmt.Sprintf("e2e-scaleout-kill-%02d", i)},
			Body:    map[string]any{"title": fmt.Sprintf("Under fire %02d", i), "message": "one process dies", "severity": "minor"}}), http.StatusCreated)
		var inc incident
		res.Decode(t, &inc)
		results[i] = inc.IncidentID
	}
	t.Logf("phase 2: %d requests retried on a after b was killed", retried)
	if n := queryInt(t, pool, `SELECT count(DISTINCT stream_id) FROM es_events WHERE stream_type='status.incident' AND idempotency_key LIKE 'e2e-scaleout-kill-%'`); n != phase2 {
		t.Fatalf("%d incidents for %d keys", n, phase2)
	}
	t.Run("the survivor holds every group", func(t *testing.T) {
		eventually(t, 90*time.Second, "one member in every group", func() error { return groupsShared(s, 1) })
	})
	settled(t, s, hook, "phase 2")
	t.Run("leaders are held once after the kill", func(t *testing.T) { leadersOnce(t, s) })
	dups := 0
	for _, n := range hook.Keys() {
		if n > 1 {
			dups++
		}
	}
	// A delivery in flight in the killed process may be sent again by the
	// next leader (its key lets the receiver drop it); none may be missing.
	t.Logf("webhook: %d keys, %d received more than once", len(hook.Keys()), dups)
}

// settled waits until the relay, every projection and the dispatcher have
// caught up, then checks that each applied every event exactly once: the
// status read model equals the event store, the audit history holds every
// event, the delivery log one row per key, and the webhook every key.
func settled(t *testing.T, s *Stack, hook *webhook, phase string) {
	t.Helper()
	pool := s.Pool()
	// Caught up with the log, and the log with the event store (the relay
	// may still be publishing the last commands' events): the audit history
	// holds one row per event id, so equal counts mean every event once.
	eventually(t, 120*time.Second, phase+": the projections to catch up with every event", func() error {
		if err := s.caughtUp(context.Background(), s.Prefix+".status.events.v1", map[string]int{"status": 1, "history": 1, "notifications": 1}); err != nil {
			return err
		}
		if n, want := queryInt(t, pool, `SELECT count(*) FROM history_events_g1 WHERE stream_type LIKE 'status.%'`),
			queryInt(t, pool, `SELECT count(*) FROM es_events WHERE stream_type LIKE 'status.%'`); n != want {
			return fmt.Errorf("the audit history holds %d status events, the event store %d", n, want)
		}
		return nil
	})
	checkReadModel(t, s, 1)
	if n := queryInt(t, pool, `SELECT count(*) FROM (SELECT idempotency_key FROM notification_deliveries GROUP BY 1 HAVING count(*) > 1) d`); n != 0 {
		t.Errorf("%s: %d notification keys in the delivery log more than once", phase, n)
	}
	eventually(t, 60*time.Second, phase+": every notification at the webhook", func() error {
		rows, err := pool.Query(context.Background(), `SELECT idempotency_key FROM notification_deliveries`)
		if err != nil {
			return err
		}
		defer rows.Close()
		got, missing := hook.Keys(), 0
		for rows.Next() {
			var k string
			if err := rows.Scan(&k); err != nil {
				return err
			}
			if got[k] == 0 {
				missing++
			}
		}
		if missing > 0 {
			return fmt.Errorf("%d notifications not delivered yet", missing)
		}
		return rows.Err()
	})
}

// leadersOnce checks that no leader lock of the test's database is held by
// two sessions, and that the relay's and the dispatcher's are held.
func leadersOnce(t *testing.T, s *Stack) {
	t.Helper()
	eventually(t, 30*time.Second, "the leaders to be held", func() error {
		held := queryInt(t, s.Pool(), `SELECT count(DISTINCT objid) FROM pg_locks WHERE locktype = 'advisory' AND classid = 7310 AND objsubid = 2
			AND granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`)
		if held < 2 {
			return fmt.Errorf("%d leader locks held", held)
		}
		return nil
	})
	if n := queryInt(t, s.Pool(), `SELECT count(*) FROM (SELECT objid FROM pg_locks WHERE locktype = 'advisory' AND classid = 7310 AND objsubid = 2
		AND granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database()) GROUP BY objid HAVING count(*) > 1) d`); n != 0 {
		t.Errorf("%d leader locks held by more than one session", n)
	}
}

// groupsShared checks every consumer group of the stack's projections and
// reactors: it has `members` members (a generation's own group, once empty,
// aside), and with two, the live projections' group's partitions are split
// between them.
func groupsShared(s *Stack, members int) error {
	cfg := sarama.NewConfig()
	cfg.Version = sarama.V3_9_0_0
	admin, err := sarama.NewClusterAdmin(strings.Split(s.Brokers, ","), cfg)
	if err != nil {
		return err
	}
	defer admin.Close()
	all, err := admin.ListConsumerGroups()
	if err != nil {
		return err
	}
	var groups []string
	for g := range all {
		if g == s.Prefix+".projections.live" || strings.HasPrefix(g, s.Prefix+".projection.") || strings.HasPrefix(g, s.Prefix+".reactor.") {
			groups = append(groups, g)
		}
	}
	if len(groups) == 0 {
		return fmt.Errorf("no consumer group under %s", s.Prefix)
	}
	described, err := admin.DescribeConsumerGroups(groups)
	if err != nil {
		return err
	}
	live := false
	for _, d := range described {
		if strings.Contains(d.GroupId, ".projection.") && len(d.Members) == 0 {
			continue // a generation's own group, for a rebuild or a catch-up, once done
		}
		if len(d.Members) != members {
			return fmt.Errorf("group %s has %d members, want %d", d.GroupId, len(d.Members), members)
		}
		if !strings.HasSuffix(d.GroupId, ".projections.live") {
			continue
		}
		live = true
		if members < 2 {
			continue
		}
		for id, m := range d.Members {
			a, err := m.GetMemberAssignment()
			if err != nil {
				return err
			}
			if a == nil {
				return fmt.Errorf("group %s: member %s not assigned yet", d.GroupId, id)
			}
			n := 0
			for _, parts := range a.Topics {
				n += len(parts)
			}
			if n == 0 {
				return fmt.Errorf("group %s: member %s has no partition", d.GroupId, id)
			}
		}
	}
	if !live {
		return fmt.Errorf("no live projections group under %s", s.Prefix)
	}
	return nil
}
