package projections_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/IBM/sarama"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/internal/apptest"
)

var pitTables = []struct{ base, order string }{
	{"status_incidents", "incident_id"},
	{"status_incident_updates", "incident_id, revision"},
	{"status_maintenances", "maintenance_id"},
	{"status_components", "organization_id, component_id"},
}

// pitSnapshot returns every row of the status read model of one generation as
// JSON, table by table, in a stable order.
func pitSnapshot(t *testing.T, pool *pgxpool.Pool, generation int) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, tb := range pitTables {
		table := fmt.Sprintf("%s_g%d", tb.base, generation)
		var s string
		err := pool.QueryRow(context.Background(),
			`SELECT COALESCE(json_agg(t ORDER BY `+tb.order+`)::text, '[]') FROM `+table+` t`).Scan(&s)
		if err != nil {
			t.Fatalf("snapshot %s: %v", table, err)
		}
		out[tb.base] = s
	}
	return out
}

func pitCount(t *testing.T, pool *pgxpool.Pool, sql string, args ...any) int64 {
	t.Helper()
	var n int64
	if err := pool.QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return n
}

// pitBehind counts the status streams a projection generation has not fully applied.
func pitBehind(t *testing.T, pool *pgxpool.Pool, projection string, generation int) int64 {
	t.Helper()
	return pitCount(t, pool, `SELECT count(*) FROM es_streams s
		LEFT JOIN proj_stream_versions v ON v.projection=$1 AND v.generation=$2 AND v.stream_id=s.stream_id
		WHERE s.stream_type LIKE 'status.%' AND COALESCE(v.version, 0) < s.version`, projection, generation)
}

func pitMustStatus(t *testing.T, res apptest.Response, want int, what string) {
	t.Helper()
	if res.Status != want {
		t.Fatalf("%s: status %d, want %d: %s", what, res.Status, want, res.Body)
	}
}

func pitCreateIncident(t *testing.T, h *apptest.Harness, title, severity string) (string, string) {
	t.Helper()
	res := h.Do(t, "status", http.MethodPost, "/api/incidents", "", map[string]any{"title": title, "message": "Investigating " + title, "severity": severity})
	pitMustStatus(t, res, http.StatusCreated, "create incident")
	var inc struct {
		IncidentID string `json:"incident_id"`
	}
	res.JSON(t, &inc)
	return inc.IncidentID, res.Header.Get("X-Platform-Position")
}

func pitDupDropped(projection string) float64 {
	mfs, err := prometheus.DefaultGatherer.Gather()
	if err != nil {
		return -1
	}
	for _, mf := range mfs {
		if mf.GetName() != "platform_projection_duplicates_dropped_total" {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "projection" && l.GetValue() == projection {
					return m.GetCounter().GetValue()
				}
			}
		}
	}
	return 0
}

// pitCheckServer answers the given statuses in order, then the last one forever.
func pitCheckServer(t *testing.T, codes ...int) *httptest.Server {
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		i := int(calls.Add(1)) - 1
		w.WriteHeader(codes[min(i, len(codes)-1)])
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestRebuildEqualsLive: a rebuild of the status projection from the log alone
// produces exactly the live read model, queries answer the same after the
// switch, and the rebuild sends no notification again.
func TestRebuildEqualsLive(t *testing.T) {
	h := apptest.Start(t, apptest.Options{})
	pool := h.App.Pool

	// Components: one that keeps failing (degrades), one healthy.
	failing := pitCheckServer(t, 500)
	healthy := pitCheckServer(t, 200)
	for _, c := range []struct{ id, url string }{{"api", failing.URL}, {"web", healthy.URL}, {"db", healthy.URL}} {
		res := h.Do(t, "status", http.MethodPut, "/api/components/"+c.id, "", map[string]any{
			"componentHost": c.id + ".example.com", "componentName": strings.ToUpper(c.id), "componentGroup": "Core", "checkUrl": c.url})
		pitMustStatus(t, res, http.StatusOK, "define component "+c.id)
	}
	// Wait for the components to be in the read model (poll reads them there).
	apptest.Eventually(t, 20*time.Second, "components in the read model", func() bool { return pitBehind(t, pool, "status", 1) == 0 })
	for i := range 3 {
		pitMustStatus(t, h.Do(t, "status", http.MethodPost, "/poll", "", nil), http.StatusOK, fmt.Sprintf("poll %d", i))
	}

	// 30 incidents with a few updates each; every third is resolved.
	severities := []string{"minor", "major", "critical"}
	for i := range 30 {
		id, _ := pitCreateIncident(t, h, fmt.Sprintf("Incident %02d", i), severities[i%3])
		pitMustStatus(t, h.Do(t, "status", http.MethodPatch, "/api/incidents/"+id, "", map[string]any{"message": "Found it", "status": "identified"}), http.StatusOK, "update")
		pitMustStatus(t, h.Do(t, "status", http.MethodPatch, "/api/incidents/"+id, "", map[string]any{"message": "Fix deployed", "status": "monitoring", "severity": "minor"}), http.StatusOK, "update")
		if i%3 == 0 {
			pitMustStatus(t, h.Do(t, "status", http.MethodPatch, "/api/incidents/"+id, "", map[string]any{"message": "Resolved", "status": "resolved"}), http.StatusOK, "resolve")
		}
	}
	// 3 maintenance windows through their lifecycle (the last one stays in progress).
	start := time.Now().Add(time.Hour).UTC().Truncate(time.Second)
	for i := range 3 {
		res := h.Do(t, "status", http.MethodPost, "/api/maintenance", "", map[string]any{"title": fmt.Sprintf("Window %d", i), "message": "Planned work",
			"scheduledStart": start.Add(time.Duration(i) * time.Hour).Format(time.RFC3339), "scheduledEnd": start.Add(time.Duration(i)*time.Hour + 30*time.Minute).Format(time.RFC3339)})
		pitMustStatus(t, res, http.StatusCreated, "schedule maintenance")
		var m struct {
			MaintenanceID string `json:"maintenance_id"`
		}
		res.JSON(t, &m)
		pitMustStatus(t, h.Do(t, "status", http.MethodPatch, "/api/maintenance/"+m.MaintenanceID, "", map[string]any{"status": "in_progress", "message": "Started"}), http.StatusOK, "start")
		if i < 2 {
			pitMustStatus(t, h.Do(t, "status", http.MethodPatch, "/api/maintenance/"+m.MaintenanceID, "", map[string]any{"status": "completed", "message": "Done"}), http.StatusOK, "complete")
		}
	}

	apptest.Eventually(t, 30*time.Second, "status g1 to apply every stream", func() bool { return pitBehind(t, pool, "status", 1) == 0 })
	apptest.Eventually(t, 30*time.Second, "notifications to apply every stream", func() bool { return pitBehind(t, pool, "notifications", 1) == 0 })
	apptest.Eventually(t, 30*time.Second, "the dispatcher to publish every notification", func() bool {
		return pitCount(t, pool, `SELECT count(*) FROM notification_states WHERE state IN ('pending', 'invalid')`) == 0
	})

	live := pitSnapshot(t, pool, 1)
	if n := pitCount(t, pool, `SELECT count(*) FROM status_incidents_g1`); n != 30 {
		t.Fatalf("%d incidents in g1, want 30", n)
	}
	if n := pitCount(t, pool, `SELECT count(*) FROM status_incident_updates_g1`); n != 30*3+10 {
		t.Fatalf("%d incident updates in g1, want %d", n, 30*3+10)
	}
	if n := pitCount(t, pool, `SELECT count(*) FROM status_maintenances_g1`); n != 3 {
		t.Fatalf("%d maintenances in g1, want 3", n)
	}
	if n := pitCount(t, pool, `SELECT count(*) FROM status_components_g1 WHERE status='degraded' AND consecutive_fails=3`); n != 1 {
		t.Fatalf("%d degraded components in g1, want 1", n)
	}
	listPath := "/api/incidents?status=all&limit=200"
	beforeList := h.Do(t, "status", http.MethodGet, listPath, "", nil)
	pitMustStatus(t, beforeList, http.StatusOK, "list before")
	beforeWidget := h.Do(t, "status", http.MethodGet, "/api/widget", "", nil)
	pitMustStatus(t, beforeWidget, http.StatusOK, "widget before")
	deliveries := pitCount(t, pool, `SELECT count(*) FROM notification_deliveries`)
	if deliveries == 0 {
		t.Fatal("no notifications were logged")
	}
	// The dispatcher's cursor moves only over rows it publishes.
	lastPublished := pitCount(t, pool, `SELECT seq FROM notification_dispatch_cursor`)

	// The delivery log is not rebuildable: rebuilds never re-send.
	pitMustStatus(t, h.Do(t, "ops", http.MethodPost, "/api/projections/notifications/replay", h.OperatorKey(t), nil), http.StatusNotFound, "replay notifications")

	res := h.Do(t, "ops", http.MethodPost, "/api/projections/status/replay", h.OperatorKey(t), nil)
	pitMustStatus(t, res, http.StatusAccepted, "replay status")
	var replay struct {
		Projection string `json:"projection"`
		Generation int    `json:"generation"`
		State      string `json:"state"`
	}
	res.JSON(t, &replay)
	if replay.Projection != "status" || replay.Generation != 2 || replay.State != "building" {
		t.Fatalf("replay answer %s", res.Body)
	}
	// A second rebuild while one is building is refused.
	again := h.Do(t, "ops", http.MethodPost, "/api/projections/status/replay", h.OperatorKey(t), nil)
	pitMustStatus(t, again, http.StatusConflict, "second replay")
	if !bytes.Contains(again.Body, []byte(`"rebuild_in_progress"`)) {
		t.Fatalf("second replay: %s", again.Body)
	}

	type gen struct {
		Projection string
		Generation int
		State      string
	}
	states := func() map[string]string {
		r := h.Do(t, "ops", http.MethodGet, "/api/projections", h.OperatorKey(t), nil)
		pitMustStatus(t, r, http.StatusOK, "projections list")
		var body struct {
			Generations []gen `json:"generations"`
		}
		r.JSON(t, &body)
		out := map[string]string{}
		for _, g := range body.Generations {
			out[fmt.Sprintf("%s/%d", g.Projection, g.Generation)] = g.State
		}
		return out
	}
	apptest.Eventually(t, 30*time.Second, "generation 2 of status to become active", func() bool { return states()["status/2"] == "active" })
	st := states()
	if st["status/1"] != "retired" {
		t.Fatalf("generations %v: g1 should be retired", st)
	}
	if _, ok := st["notifications/2"]; ok {
		t.Fatalf("generations %v: the delivery log must not be rebuilt", st)
	}

	rebuilt := pitSnapshot(t, pool, 2)
	for _, tb := range pitTables {
		if live[tb.base] != rebuilt[tb.base] {
			t.Errorf("%s differs after the rebuild:\nlive:    %s\nrebuilt: %s", tb.base, live[tb.base], rebuilt[tb.base])
		}
	}
	if pitBehind(t, pool, "status", 2) != 0 {
		t.Fatal("g2 is active but has not applied every stream")
	}

	afterList := h.Do(t, "status", http.MethodGet, listPath, "", nil)
	pitMustStatus(t, afterList, http.StatusOK, "list after")
	if !bytes.Equal(beforeList.Body, afterList.Body) {
		t.Errorf("GET %s differs after the rebuild:\nbefore: %s\nafter:  %s", listPath, beforeList.Body, afterList.Body)
	}
	afterWidget := h.Do(t, "status", http.MethodGet, "/api/widget", "", nil)
	if !bytes.Equal(beforeWidget.Body, afterWidget.Body) {
		t.Errorf("GET /api/widget differs after the rebuild:\nbefore: %s\nafter:  %s", beforeWidget.Body, afterWidget.Body)
	}

	// Give a re-send every chance to show up, then check none did.
	time.Sleep(time.Second)
	if n := pitCount(t, pool, `SELECT count(*) FROM notification_deliveries`); n != deliveries {
		t.Fatalf("notification_deliveries has %d rows after the rebuild, %d before", n, deliveries)
	}
	if n := pitCount(t, pool, `SELECT seq FROM notification_dispatch_cursor`); n != lastPublished {
		t.Fatal("a notification was published again during the rebuild")
	}

	// The new generation keeps serving new writes (read your writes on g2).
	id, pos := pitCreateIncident(t, h, "After rebuild", "minor")
	q := h.Do(t, "status", http.MethodGet, "/api/incidents?incidentId="+id, "", nil, "X-Platform-Min-Position", pos)
	pitMustStatus(t, q, http.StatusOK, "read after rebuild")
	if n := pitCount(t, pool, `SELECT count(*) FROM status_incidents_g2 WHERE incident_id=$1`, id); n != 1 {
		t.Fatalf("new incident not in g2")
	}
}

// pitPublish sends raw records to a topic with the platform's producer settings.
func pitPublish(t *testing.T, h *apptest.Harness, msgs ...*sarama.ProducerMessage) {
	t.Helper()
	producer, err := sarama.NewSyncProducer(h.Config.Kafka.Brokers, h.Config.Kafka.ProducerConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer producer.Close()
	for _, m := range msgs {
		if _, _, err := producer.SendMessage(m); err != nil {
			t.Fatal(err)
		}
	}
}

func pitCheckpointPast(t *testing.T, pool *pgxpool.Pool, projection string, generation int, msg *sarama.ProducerMessage) bool {
	t.Helper()
	var next int64
	err := pool.QueryRow(context.Background(), `SELECT next_offset FROM proj_checkpoints WHERE projection=$1 AND generation=$2 AND topic=$3 AND partition=$4`,
		projection, generation, msg.Topic, msg.Partition).Scan(&next)
	return err == nil && next > msg.Offset
}

func pitRow(t *testing.T, pool *pgxpool.Pool, sql string, args ...any) string {
	t.Helper()
	var s string
	if err := pool.QueryRow(context.Background(), `SELECT COALESCE(json_agg(x)::text, '[]') FROM (`+sql+`) x`, args...).Scan(&s); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return s
}

// TestRedeliveryChangesNothing: an event applied already, published again at
// a new offset, is dropped: the read model is unchanged and the duplicate is
// counted.
func TestRedeliveryChangesNothing(t *testing.T) {
	h := apptest.Start(t, apptest.Options{})
	pool := h.App.Pool

	id, _ := pitCreateIncident(t, h, "Queue backlog", "major")
	pitMustStatus(t, h.Do(t, "status", http.MethodPatch, "/api/incidents/"+id, "", map[string]any{"message": "Identified", "status": "identified"}), http.StatusOK, "update")
	pitMustStatus(t, h.Do(t, "status", http.MethodPatch, "/api/incidents/"+id, "", map[string]any{"message": "Monitoring", "status": "monitoring"}), http.StatusOK, "update")

	// A component that fails once, then answers again: its check events carry
	// no revision, so only the runner's duplicate check protects it.
	srv := pitCheckServer(t, 500, 200)
	res := h.Do(t, "status", http.MethodPut, "/api/components/queue", "", map[string]any{
		"componentHost": "queue.example.com", "componentName": "Queue", "checkUrl": srv.URL})
	pitMustStatus(t, res, http.StatusOK, "define component")
	apptest.Eventually(t, 20*time.Second, "status g1 to apply every stream", func() bool { return pitBehind(t, pool, "status", 1) == 0 })
	pitMustStatus(t, h.Do(t, "status", http.MethodPost, "/poll", "", nil), http.StatusOK, "poll 1")
	pitMustStatus(t, h.Do(t, "status", http.MethodPost, "/poll", "", nil), http.StatusOK, "poll 2")
	apptest.Eventually(t, 20*time.Second, "status g1 to apply every stream", func() bool { return pitBehind(t, pool, "status", 1) == 0 })
	apptest.Eventually(t, 20*time.Second, "notifications and history to apply every stream", func() bool {
		return pitBehind(t, pool, "notifications", 1) == 0 && pitBehind(t, pool, "history", 1) == 0
	})

	componentStream := "component:" + h.OrgID + ":queue"
	incidentBefore := pitRow(t, pool, `SELECT * FROM status_incidents_g1 WHERE incident_id=$1`, id)
	updatesBefore := pitRow(t, pool, `SELECT * FROM status_incident_updates_g1 WHERE incident_id=$1 ORDER BY revision`, id)
	componentBefore := pitRow(t, pool, `SELECT * FROM status_components_g1 WHERE organization_id=$1`, h.OrgID)
	if !strings.Contains(componentBefore, `"consecutive_fails":0`) || !strings.Contains(componentBefore, `"last_http_status":200`) {
		t.Fatalf("component before the redelivery: %s", componentBefore)
	}
	// Only the redelivered streams' rows: another context's reactor (the
	// gateway provisioning the new organization) may still be appending.
	historyOf := `SELECT count(*) FROM history_events_g1 WHERE stream_id = ANY($1)`
	redelivered := []string{id, "component:" + h.OrgID + ":queue"}
	historyBefore := pitCount(t, pool, historyOf, redelivered)
	deliveriesBefore := pitCount(t, pool, `SELECT count(*) FROM notification_deliveries`)
	droppedBefore := pitDupDropped("status")

	ctx := context.Background()
	incidentEvents, err := h.App.Store.Load(ctx, id)
	if err != nil || len(incidentEvents) != 3 {
		t.Fatalf("load incident: %d events, %v", len(incidentEvents), err)
	}
	componentEvents, err := h.App.Store.Load(ctx, componentStream)
	if err != nil || len(componentEvents) != 3 {
		t.Fatalf("load component: %d events, %v", len(componentEvents), err)
	}
	if componentEvents[1].Type != "status.component.check_failed" {
		t.Fatalf("component event 2 is %s", componentEvents[1].Type)
	}
	topic := h.Config.Kafka.Topics.ForContext("status")
	var dups []*sarama.ProducerMessage
	for _, e := range []eventstore.Event{incidentEvents[1], componentEvents[1]} {
		m, err := e.ToMessage(topic)
		if err != nil {
			t.Fatal(err)
		}
		dups = append(dups, m)
	}
	pitPublish(t, h, dups...)
	for _, m := range dups {
		apptest.Eventually(t, 20*time.Second, "the projections to pass the duplicate", func() bool {
			return pitCheckpointPast(t, pool, "status", 1, m) && pitCheckpointPast(t, pool, "history", 1, m) && pitCheckpointPast(t, pool, "notifications", 1, m)
		})
	}

	if got := pitRow(t, pool, `SELECT * FROM status_incidents_g1 WHERE incident_id=$1`, id); got != incidentBefore {
		t.Errorf("incident changed by a redelivery:\nbefore: %s\nafter:  %s", incidentBefore, got)
	}
	if got := pitRow(t, pool, `SELECT * FROM status_incident_updates_g1 WHERE incident_id=$1 ORDER BY revision`, id); got != updatesBefore {
		t.Errorf("incident updates changed by a redelivery:\nbefore: %s\nafter:  %s", updatesBefore, got)
	}
	if got := pitRow(t, pool, `SELECT * FROM status_components_g1 WHERE organization_id=$1`, h.OrgID); got != componentBefore {
		t.Errorf("component changed by a redelivered check:\nbefore: %s\nafter:  %s", componentBefore, got)
	}
	if n := pitCount(t, pool, historyOf, redelivered); n != historyBefore {
		t.Errorf("history has %d events after the redelivery, %d before", n, historyBefore)
	}
	if n := pitCount(t, pool, `SELECT count(*) FROM notification_deliveries`); n != deliveriesBefore {
		t.Errorf("delivery log has %d rows after the redelivery, %d before", n, deliveriesBefore)
	}
	if n := pitCount(t, pool, `SELECT count(*) FROM proj_failures`); n != 0 {
		t.Errorf("%d failures recorded: a duplicate is not a failure", n)
	}
	if d := pitDupDropped("status") - droppedBefore; d != 2 {
		t.Errorf("duplicates dropped by status: %v, want 2", d)
	}
	q := h.Do(t, "status", http.MethodGet, "/api/incidents?incidentId="+id, "", nil)
	pitMustStatus(t, q, http.StatusOK, "query")
	var list struct {
		Incidents []struct {
			Revision int    `json:"revision"`
			Status   string `json:"status"`
			Updates  []any  `json:"updates"`
		} `json:"incidents"`
	}
	q.JSON(t, &list)
	if len(list.Incidents) != 1 || list.Incidents[0].Revision != 3 || list.Incidents[0].Status != "monitoring" || len(list.Incidents[0].Updates) != 3 {
		t.Fatalf("query after the redelivery: %s", q.Body)
	}
}

// TestPoisonEventIsParked: a record that is not an envelope, and an envelope
// whose payload the reducer cannot read, are parked (failure row, dead-letter
// record with the reason) and the projection goes on with later events.
func TestPoisonEventIsParked(t *testing.T) {
	h := apptest.Start(t, apptest.Options{})
	pool := h.App.Pool
	// Let the projection start before the poison arrives.
	_, pos := pitCreateIncident(t, h, "Before poison", "minor")
	pitMustStatus(t, h.Do(t, "status", http.MethodGet, "/api/incidents", "", nil, "X-Platform-Min-Position", pos), http.StatusOK, "read before")

	topic := h.Config.Kafka.Topics.ForContext("status")
	garbage := []byte("this is not an envelope {")
	badPayload := eventstore.Event{ID: uuid.Must(uuid.NewV7()), Type: "status.incident.created", SchemaVersion: 1, StreamType: "status.incident",
		StreamID: "poison-" + uuid.NewString(), StreamVersion: 1, OrganizationID: "poison-org", Actor: eventstore.Actor{ID: "t", Type: "system"},
		OccurredAt: time.Now().UTC(), RecordedAt: time.Now().UTC(), Payload: json.RawMessage(`"not an object"`)}
	badMsg, err := badPayload.ToMessage(topic)
	if err != nil {
		t.Fatal(err)
	}
	garbageMsg := &sarama.ProducerMessage{Topic: topic, Key: sarama.StringEncoder("poison-key"), Value: sarama.ByteEncoder(garbage)}
	pitPublish(t, h, garbageMsg, badMsg)

	// Later events are still applied.
	id, pos := pitCreateIncident(t, h, "After poison", "major")
	q := h.Do(t, "status", http.MethodGet, "/api/incidents?incidentId="+id, "", nil, "X-Platform-Min-Position", pos)
	pitMustStatus(t, q, http.StatusOK, "read after poison")
	if !bytes.Contains(q.Body, []byte(`"After poison"`)) {
		t.Fatalf("read after poison: %s", q.Body)
	}

	for _, m := range []*sarama.ProducerMessage{garbageMsg, badMsg} {
		apptest.Eventually(t, 20*time.Second, "the status projection to pass the poison", func() bool { return pitCheckpointPast(t, pool, "status", 1, m) })
		var reason, eventID string
		err := pool.QueryRow(context.Background(), `SELECT reason, event_id FROM proj_failures
			WHERE projection='status' AND generation=1 AND topic=$1 AND partition=$2 AND "offset"=$3`, m.Topic, m.Partition, m.Offset).Scan(&reason, &eventID)
		if err != nil {
			t.Fatalf("failure row of %s/%d@%d: %v", m.Topic, m.Partition, m.Offset, err)
		}
		if reason == "" {
			t.Fatal("a parked event must carry its reason")
		}
		if m == badMsg && eventID != badPayload.ID.String() {
			t.Fatalf("failure row event id %q, want %s", eventID, badPayload.ID)
		}
	}
	if n := pitCount(t, pool, `SELECT count(*) FROM proj_failures WHERE projection='status'`); n != 2 {
		t.Fatalf("%d status failures, want 2", n)
	}
	if n := pitCount(t, pool, `SELECT count(*) FROM status_incidents_g1 WHERE organization_id='poison-org'`); n != 0 {
		t.Fatal("the poison was applied")
	}

	// The dead-letter topic holds both, with the reason in the metadata.
	dlq := h.Config.Kafka.Topics.DeadLetter()
	type parked struct{ projection, reason, offset string }
	var found []parked
	apptest.Eventually(t, 20*time.Second, "both poison records on the dead-letter topic for status", func() bool {
		found = found[:0]
		for _, m := range apptest.ReadTopic(t, h.Config.Kafka.Brokers, dlq, 20*time.Second) {
			hd := map[string]string{}
			for _, x := range m.Headers {
				hd[string(x.Key)] = string(x.Value)
			}
			if hd["projection"] != "status" {
				continue
			}
			if !bytes.Equal(m.Value, garbage) && !bytes.Contains(m.Value, []byte(badPayload.ID.String())) {
				continue
			}
			found = append(found, parked{hd["projection"], hd["reason"], hd["source_offset"]})
		}
		return len(found) >= 2
	})
	if len(found) != 2 {
		t.Fatalf("dead-letter records for status: %+v, want 2", found)
	}
	for _, f := range found {
		if f.reason == "" || f.offset == "" {
			t.Fatalf("dead-letter record without reason or source offset: %+v", f)
		}
	}
}
