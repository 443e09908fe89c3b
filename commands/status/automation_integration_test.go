package status_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/IBM/sarama"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"

	statuscmd "github.com/platform/backend/commands/status"
	"github.com/platform/backend/internal/app"
	"github.com/platform/backend/internal/apptest"
)

// Maintenance windows that start and complete by themselves (durable
// timers) and components that open and resolve their incidents (a
// reactor), end to end through the public routes of a running platform.

// fastTimers looks for due timers every 100ms.
func fastTimers(c *app.Config) { c.Timers.PollInterval = 100 * time.Millisecond }

// autoStartOn runs a second platform on h's database and topics (another
// process of the same deployment).
func autoStartOn(t *testing.T, h *apptest.Harness) *apptest.Harness {
	t.Helper()
	return apptest.Start(t, apptest.Options{Configure: func(c *app.Config) {
		fastTimers(c)
		c.DatabaseURL, c.Kafka.Topics = h.Config.DatabaseURL, h.Config.Kafka.Topics
	}})
}

type autoWindow struct {
	MaintenanceID string `json:"maintenance_id"`
	Status        string `json:"status"`
	Revision      int    `json:"revision"`
	AutoStart     bool   `json:"auto_start"`
	AutoComplete  bool   `json:"auto_complete"`
}

func autoSchedule(t *testing.T, h *apptest.Harness, token string, start, end time.Time, autoStart, autoComplete bool) autoWindow {
	t.Helper()
	res := h.Do(t, "status", http.MethodPost, "/api/maintenance", token, map[string]any{"title": "Database upgrade",
		"message": "Read-only for a moment", "scheduledStart": start.Format(time.RFC3339Nano), "scheduledEnd": end.Format(time.RFC3339Nano),
		"autoStart": autoStart, "autoComplete": autoComplete})
	if res.Status != http.StatusCreated {
		t.Fatalf("schedule: %d %s", res.Status, res.Body)
	}
	var w autoWindow
	res.JSON(t, &w)
	if w.AutoStart != autoStart || w.AutoComplete != autoComplete {
		t.Fatalf("the answer does not show the automation: %s", res.Body)
	}
	return w
}

func autoPatch(t *testing.T, h *apptest.Harness, id string, body map[string]any, want int) apptest.Response {
	t.Helper()
	res := h.Do(t, "status", http.MethodPatch, "/api/maintenance/"+id, "", body)
	if res.Status != want {
		t.Fatalf("PATCH %v: %d %s, want %d", body, res.Status, res.Body, want)
	}
	return res
}

// autoEvents counts a stream's events of a type (and how many of them a
// system actor recorded).
func autoEvents(t *testing.T, h *apptest.Harness, stream, typ string) (n, bySystem int) {
	t.Helper()
	if err := h.App.Pool.QueryRow(context.Background(), `SELECT count(*), count(*) FILTER (WHERE actor_type = 'system')
		FROM es_events WHERE stream_id=$1 AND event_type=$2`, stream, typ).Scan(&n, &bySystem); err != nil {
		t.Fatal(err)
	}
	return n, bySystem
}

// autoNotified counts the valid notifications under a key.
func autoNotified(t *testing.T, h *apptest.Harness, key string) int {
	t.Helper()
	var n int
	if err := h.App.Pool.QueryRow(context.Background(), `SELECT count(*) FROM notification_deliveries
		WHERE idempotency_key=$1 AND state NOT IN ('invalid', 'parked')`, key).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func autoTimer(t *testing.T, h *apptest.Harness, stream, name string) (state string, due time.Time) {
	t.Helper()
	if err := h.App.Pool.QueryRow(context.Background(), `SELECT state, due_at FROM es_timers WHERE stream_id=$1 AND name=$2`,
		stream, name).Scan(&state, &due); err != nil {
		t.Fatalf("timer %s/%s: %v", stream, name, err)
	}
	return state, due
}

// A window with autoStart and autoComplete starts at its start and
// completes at its end by itself, with the seed's notifications (revisions
// 2 and 3) exactly as a person's transitions give.
func TestMaintenanceStartsAndCompletesByItself(t *testing.T) {
	h := apptest.Start(t, apptest.Options{Configure: fastTimers})
	now := time.Now()
	w := autoSchedule(t, h, "", now.Add(1500*time.Millisecond), now.Add(3*time.Second), true, true)
	if n, _ := autoEvents(t, h, w.MaintenanceID, "status.maintenance.started"); n != 0 {
		t.Fatal("started before its time")
	}
	apptest.Eventually(t, 30*time.Second, "the window to complete by itself", func() bool {
		n, _ := autoEvents(t, h, w.MaintenanceID, "status.maintenance.completed")
		return n == 1
	})
	for _, typ := range []string{"status.maintenance.started", "status.maintenance.completed"} {
		if n, bySystem := autoEvents(t, h, w.MaintenanceID, typ); n != 1 || bySystem != 1 {
			t.Fatalf("%s: %d events (%d by the timer), want 1", typ, n, bySystem)
		}
	}
	var actor string
	if err := h.App.Pool.QueryRow(context.Background(), `SELECT actor_id FROM es_events WHERE stream_id=$1 AND stream_version=2`,
		w.MaintenanceID).Scan(&actor); err != nil || actor != "timer:status.maintenance.start" {
		t.Fatalf("the start was recorded by %q (%v)", actor, err)
	}
	for rev := 1; rev <= 3; rev++ {
		key := fmt.Sprintf("status:maintenance:%s:rev:%d", w.MaintenanceID, rev)
		apptest.Eventually(t, 30*time.Second, "notification "+key, func() bool { return autoNotified(t, h, key) == 1 })
	}
}

// Rescheduling moves the window's timers, turning automation off cancels
// them, and a manual start cancels the start timer while the complete timer
// stays; the old times pass without a transition.
func TestMaintenanceTimersMoveWithTheWindow(t *testing.T) {
	h := apptest.Start(t, apptest.Options{Configure: fastTimers})
	now := time.Now()
	soon, end := now.Add(1500*time.Millisecond), now.Add(2500*time.Millisecond)
	moved := autoSchedule(t, h, "", soon, end.Add(time.Hour), true, false)
	off := autoSchedule(t, h, "", soon, end, true, true)
	manual := autoSchedule(t, h, "", soon.Add(time.Hour), end.Add(time.Hour), true, true)

	later := now.Add(time.Hour).UTC().Truncate(time.Second)
	autoPatch(t, h, moved.MaintenanceID, map[string]any{"scheduledStart": later.Format(time.RFC3339)}, http.StatusOK)
	autoPatch(t, h, off.MaintenanceID, map[string]any{"autoStart": false, "autoComplete": false}, http.StatusOK)
	// Start by hand now, and pull the end in: the complete timer moves to it.
	res := autoPatch(t, h, manual.MaintenanceID, map[string]any{"status": "in_progress", "message": "Starting early",
		"scheduledStart": now.Add(-time.Second).Format(time.RFC3339Nano), "scheduledEnd": end.Format(time.RFC3339Nano)}, http.StatusOK)
	var w autoWindow
	res.JSON(t, &w)
	if w.Status != "in_progress" || w.Revision != 2 {
		t.Fatalf("manual start: %s", res.Body)
	}
	// A window that started keeps its start.
	autoPatch(t, h, manual.MaintenanceID, map[string]any{"scheduledStart": later.Format(time.RFC3339)}, http.StatusConflict)
	autoPatch(t, h, manual.MaintenanceID, map[string]any{}, http.StatusUnprocessableEntity)

	apptest.Eventually(t, 30*time.Second, "the manually started window to complete at its new end", func() bool {
		n, _ := autoEvents(t, h, manual.MaintenanceID, "status.maintenance.completed")
		return n == 1
	})
	time.Sleep(time.Until(end.Add(time.Second))) // past every old time
	for _, id := range []string{moved.MaintenanceID, off.MaintenanceID} {
		if n, _ := autoEvents(t, h, id, "status.maintenance.started"); n != 0 {
			t.Fatalf("window %s started on a moved or cancelled timer", id)
		}
	}
	if n, bySystem := autoEvents(t, h, manual.MaintenanceID, "status.maintenance.started"); n != 1 || bySystem != 0 {
		t.Fatalf("manual window: %d starts (%d by a timer), want one by hand", n, bySystem)
	}
	if state, due := autoTimer(t, h, moved.MaintenanceID, "start"); state != "pending" || !due.Equal(later) {
		t.Fatalf("moved start timer: %s at %s, want pending at %s", state, due, later)
	}
	for _, tm := range []struct{ id, name, state string }{
		{off.MaintenanceID, "start", "cancelled"}, {off.MaintenanceID, "complete", "cancelled"},
		{manual.MaintenanceID, "start", "cancelled"}, {manual.MaintenanceID, "complete", "fired"},
	} {
		if state, _ := autoTimer(t, h, tm.id, tm.name); state != tm.state {
			t.Fatalf("timer %s of %s: %s, want %s", tm.name, tm.id, state, tm.state)
		}
	}
	// The read model shows the moved window's new start.
	apptest.Eventually(t, 20*time.Second, "the read model to show the new start", func() bool {
		var start time.Time
		err := h.App.Pool.QueryRow(context.Background(), `SELECT scheduled_start FROM status_maintenances_g1 WHERE maintenance_id=$1`,
			moved.MaintenanceID).Scan(&start)
		return err == nil && start.Equal(later)
	})
}

// A window whose start passed while no process ran starts when one comes
// back: late, once.
func TestMaintenanceTimerFiresLateAfterDowntime(t *testing.T) {
	h1 := apptest.Start(t, apptest.Options{Configure: fastTimers})
	start := time.Now().Add(1500 * time.Millisecond)
	w := autoSchedule(t, h1, "", start, start.Add(time.Hour), true, false)
	h1.Stop()
	time.Sleep(time.Until(start.Add(1500 * time.Millisecond))) // down past its time
	h2 := autoStartOn(t, h1)
	apptest.Eventually(t, 30*time.Second, "the late start", func() bool {
		n, _ := autoEvents(t, h2, w.MaintenanceID, "status.maintenance.started")
		return n == 1
	})
	var occurred time.Time
	if err := h2.App.Pool.QueryRow(context.Background(), `SELECT occurred_at FROM es_events WHERE stream_id=$1 AND stream_version=2`,
		w.MaintenanceID).Scan(&occurred); err != nil {
		t.Fatal(err)
	}
	if occurred.Before(start.Add(time.Second)) {
		t.Fatalf("started at %s, before the process came back", occurred)
	}
	time.Sleep(500 * time.Millisecond)
	if n, _ := autoEvents(t, h2, w.MaintenanceID, "status.maintenance.started"); n != 1 {
		t.Fatalf("%d starts, want 1", n)
	}
}

// Two processes racing on the same due timers start each window once.
func TestMaintenanceTimersTwoProcessesFireOnce(t *testing.T) {
	h1 := apptest.Start(t, apptest.Options{Configure: fastTimers})
	h2 := autoStartOn(t, h1)
	start := time.Now().Add(2 * time.Second)
	var ids []string
	for range 8 {
		ids = append(ids, autoSchedule(t, h1, "", start, start.Add(time.Hour), true, false).MaintenanceID)
	}
	for _, id := range ids {
		apptest.Eventually(t, 30*time.Second, "window "+id+" to start", func() bool {
			n, _ := autoEvents(t, h1, id, "status.maintenance.started")
			return n >= 1
		})
	}
	time.Sleep(500 * time.Millisecond)
	for _, id := range ids {
		if n, _ := autoEvents(t, h2, id, "status.maintenance.started"); n != 1 {
			t.Fatalf("window %s started %d times", id, n)
		}
		key := "status:maintenance:" + id + ":rev:2"
		apptest.Eventually(t, 30*time.Second, "notification "+key, func() bool { return autoNotified(t, h1, key) == 1 })
	}
}

// A component with autoIncident opens an incident when it degrades and
// resolves it with a final update when it recovers; a component without it
// opens none; an incident a person resolved first is left alone; and a
// replay of the reactor's consumer group in another process opens nothing
// twice.
func TestComponentAutoIncident(t *testing.T) {
	var code atomic.Int32
	code.Store(http.StatusServiceUnavailable)
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(int(code.Load())) }))
	defer target.Close()
	h := apptest.Start(t, apptest.Options{Configure: fastTimers})
	put := func(id string, auto bool) {
		res := h.Do(t, "status", http.MethodPut, "/api/components/"+id, "", map[string]any{"componentHost": id + ".example.com",
			"componentName": "Component " + id, "checkUrl": target.URL, "autoIncident": auto})
		if res.Status != http.StatusOK && res.Status != http.StatusCreated {
			t.Fatalf("upsert %s: %d %s", id, res.Status, res.Body)
		}
	}
	pollN := func(n int) {
		for range n {
			if res := h.Do(t, "status", http.MethodPost, "/poll", "", nil); res.Status != http.StatusOK {
				t.Fatalf("poll: %d %s", res.Status, res.Body)
			}
		}
	}
	put("auto", true)
	put("manual", false)
	autoStream := statuscmd.ComponentStreamID(h.OrgID, "auto")
	incidentsOf := func(status string) []map[string]any {
		res := h.Do(t, "status", http.MethodGet, "/api/incidents?status="+status, "", nil)
		var out struct {
			Incidents []map[string]any `json:"incidents"`
		}
		res.JSON(t, &out)
		return out.Incidents
	}

	// Degrade both: only "auto" opens an incident.
	pollN(3)
	first := statuscmd.AutoIncidentID(autoStream, degradedVersion(t, h, autoStream, 1))
	apptest.Eventually(t, 30*time.Second, "the automatic incident", func() bool { return len(incidentsOf("open")) == 1 })
	inc := incidentsOf("open")[0]
	if inc["incident_id"] != first || inc["component_name"] != "Component auto" || inc["severity"] != "major" ||
		inc["title"] != "Component auto is degraded" {
		t.Fatalf("incident: %v", inc)
	}
	// Recover: a final update resolves it.
	code.Store(http.StatusOK)
	pollN(1)
	apptest.Eventually(t, 30*time.Second, "the incident to be resolved", func() bool { return len(incidentsOf("open")) == 0 })
	for rev := 1; rev <= 2; rev++ {
		key := fmt.Sprintf("status:incident:%s:rev:%d", first, rev)
		apptest.Eventually(t, 30*time.Second, "notification "+key, func() bool { return autoNotified(t, h, key) == 1 })
	}

	// Degrade again: a new incident, which a person resolves before the
	// recovery; the reactor leaves it alone (no failure parked).
	code.Store(http.StatusServiceUnavailable)
	pollN(3)
	second := statuscmd.AutoIncidentID(autoStream, degradedVersion(t, h, autoStream, 2))
	apptest.Eventually(t, 30*time.Second, "the second incident", func() bool { return len(incidentsOf("open")) == 1 })
	if res := h.Do(t, "status", http.MethodPatch, "/api/incidents/"+second, "", map[string]any{"status": "resolved",
		"message": "Fixed by hand"}); res.Status != http.StatusOK {
		t.Fatalf("resolve by hand: %d %s", res.Status, res.Body)
	}
	code.Store(http.StatusOK)
	pollN(1)
	// Once the read model shows the recovery, every event before it is on
	// the log (the relay publishes in commit order).
	apptest.Eventually(t, 30*time.Second, "the recovery in the read model", func() bool {
		var status string
		err := h.App.Pool.QueryRow(context.Background(), `SELECT status FROM status_components_g1 WHERE organization_id=$1
			AND component_id='auto'`, h.OrgID).Scan(&status)
		return err == nil && status == "operational"
	})
	end := statusTopicEnd(t, h)
	reactorCaughtUp(t, h, end)
	handledOnce := reactorHandled(t)

	org := h.OrgID
	counts := func(on *apptest.Harness) (created, resolved, failures int) {
		t.Helper()
		if err := on.App.Pool.QueryRow(context.Background(), `SELECT count(*) FILTER (WHERE event_type='status.incident.created'),
			count(*) FILTER (WHERE event_type='status.incident.resolved'), (SELECT count(*) FROM reactor_failures)
			FROM es_events WHERE organization_id=$1`, org).Scan(&created, &resolved, &failures); err != nil {
			t.Fatal(err)
		}
		return created, resolved, failures
	}
	if c, r, f := counts(h); c != 2 || r != 2 || f != 0 {
		t.Fatalf("%d incidents created, %d resolved, %d reactor failures; want 2, 2, 0", c, r, f)
	}

	// Replay the reactor's consumer group from the start in another
	// process: every degraded and recovered event comes again.
	h.Stop()
	pool, err := pgxpool.New(context.Background(), h.Config.DatabaseURL)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(context.Background(), `DELETE FROM reactor_checkpoints`); err != nil {
		t.Fatal(err)
	}
	pool.Close()
	h2 := autoStartOn(t, h)
	reactorCaughtUp(t, h2, end)
	if again := reactorHandled(t) - handledOnce; again < handledOnce {
		t.Fatalf("the replay handled %v events, the first pass %v: it did not start over", again, handledOnce)
	}
	if c, r, f := counts(h2); c != 2 || r != 2 || f != 0 {
		t.Fatalf("after the replay: %d incidents created, %d resolved, %d reactor failures; want 2, 2, 0", c, r, f)
	}
}

// degradedVersion is the stream version of the nth degraded event of a
// component.
func degradedVersion(t *testing.T, h *apptest.Harness, stream string, nth int) int64 {
	t.Helper()
	var v int64
	if err := h.App.Pool.QueryRow(context.Background(), `SELECT stream_version FROM es_events WHERE stream_id=$1
		AND event_type='status.component.degraded' ORDER BY stream_version OFFSET $2 LIMIT 1`, stream, nth-1).Scan(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

// reactorHandled reads platform_reactor_events_handled_total of the
// auto-incident reactor (every process of the test binary counts into it).
func reactorHandled(t *testing.T) float64 {
	t.Helper()
	families, err := prometheus.DefaultGatherer.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != "platform_reactor_events_handled_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "reactor" && l.GetValue() == statuscmd.AutoIncidentReactor {
					return m.GetCounter().GetValue()
				}
			}
		}
	}
	return 0
}

// statusTopicEnd is the status topic's end offset per partition.
func statusTopicEnd(t *testing.T, h *apptest.Harness) map[int32]int64 {
	t.Helper()
	client, err := sarama.NewClient(h.Config.Kafka.Brokers, h.Config.Kafka.SaramaConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	topic := h.Config.Kafka.Topics.ForContext("status")
	parts, err := client.Partitions(topic)
	if err != nil {
		t.Fatal(err)
	}
	out := map[int32]int64{}
	for _, p := range parts {
		if out[p], err = client.GetOffset(topic, p, sarama.OffsetNewest); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// reactorCaughtUp waits until the auto-incident reactor's checkpoints
// reach end on every partition that holds events.
func reactorCaughtUp(t *testing.T, h *apptest.Harness, end map[int32]int64) {
	t.Helper()
	topic := h.Config.Kafka.Topics.ForContext("status")
	apptest.Eventually(t, 60*time.Second, "the reactor to reach the end of the status topic", func() bool {
		for p, n := range end {
			if n == 0 {
				continue
			}
			var next int64
			if err := h.App.Pool.QueryRow(context.Background(), `SELECT next_offset FROM reactor_checkpoints
				WHERE reactor=$1 AND topic=$2 AND partition=$3`, statuscmd.AutoIncidentReactor, topic, p).Scan(&next); err != nil || next < n {
				return false
			}
		}
		return true
	})
}
