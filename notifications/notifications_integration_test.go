package notifications_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/IBM/sarama"
	"github.com/ThreeDotsLabs/watermill-kafka/v3/pkg/kafka"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	domain "github.com/platform/backend/domain/status"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/internal/app"
	"github.com/platform/backend/internal/apptest"
	"github.com/platform/backend/notifications"
	"github.com/platform/backend/notifications/contracts"
	statusmap "github.com/platform/backend/notifications/status"
)

func nitMust(t *testing.T, res apptest.Response, want int, what string) {
	t.Helper()
	if res.Status != want {
		t.Fatalf("%s: status %d, want %d: %s", what, res.Status, want, res.Body)
	}
}

func nitCount(t *testing.T, pool *pgxpool.Pool, sql string, args ...any) int64 {
	t.Helper()
	var n int64
	if err := pool.QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return n
}

func nitHeader(m *sarama.ConsumerMessage, key string) string {
	for _, h := range m.Headers {
		if string(h.Key) == key {
			return string(h.Value)
		}
	}
	return ""
}

// nitFlows drives every status transition that notifies: an incident
// created, updated, resolved; a maintenance window scheduled, started,
// completed; and, when withComponent, a component degraded by three failed
// checks and recovered by the fourth. It returns the expected key per type.
func nitFlows(t *testing.T, h *apptest.Harness, withComponent bool) map[string]string {
	t.Helper()
	want := map[string]string{}
	res := h.Do(t, "status", http.MethodPost, "/api/incidents", "", map[string]any{"title": "Login failures", "message": "Investigating", "severity": "critical",
		"componentHost": "auth.example.com", "componentName": "Auth"})
	nitMust(t, res, http.StatusCreated, "create incident")
	var inc struct {
		IncidentID string `json:"incident_id"`
	}
	res.JSON(t, &inc)
	nitMust(t, h.Do(t, "status", http.MethodPatch, "/api/incidents/"+inc.IncidentID, "", map[string]any{"message": "Root cause found", "status": "identified"}), http.StatusOK, "update incident")
	nitMust(t, h.Do(t, "status", http.MethodPatch, "/api/incidents/"+inc.IncidentID, "", map[string]any{"message": "All good", "status": "resolved"}), http.StatusOK, "resolve incident")
	want[domain.IncidentCreated] = "status:incident:" + inc.IncidentID + ":rev:1"
	want[domain.IncidentUpdated] = "status:incident:" + inc.IncidentID + ":rev:2"
	want[domain.IncidentResolved] = "status:incident:" + inc.IncidentID + ":rev:3"

	start := time.Now().Add(2 * time.Hour).UTC().Truncate(time.Second)
	res = h.Do(t, "status", http.MethodPost, "/api/maintenance", "", map[string]any{"title": "Database upgrade", "message": "Short read-only window",
		"scheduledStart": start.Format(time.RFC3339), "scheduledEnd": start.Add(time.Hour).Format(time.RFC3339)})
	nitMust(t, res, http.StatusCreated, "schedule maintenance")
	var mw struct {
		MaintenanceID string `json:"maintenance_id"`
	}
	res.JSON(t, &mw)
	nitMust(t, h.Do(t, "status", http.MethodPatch, "/api/maintenance/"+mw.MaintenanceID, "", map[string]any{"status": "in_progress"}), http.StatusOK, "start maintenance")
	nitMust(t, h.Do(t, "status", http.MethodPatch, "/api/maintenance/"+mw.MaintenanceID, "", map[string]any{"status": "completed", "message": "Done"}), http.StatusOK, "complete maintenance")
	want[domain.MaintenanceScheduled] = "status:maintenance:" + mw.MaintenanceID + ":rev:1"
	want[domain.MaintenanceStarted] = "status:maintenance:" + mw.MaintenanceID + ":rev:2"
	want[domain.MaintenanceCompleted] = "status:maintenance:" + mw.MaintenanceID + ":rev:3"

	if !withComponent {
		return want
	}
	var checks atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if checks.Add(1) <= 3 {
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(srv.Close)
	res = h.Do(t, "status", http.MethodPut, "/api/components/api", "", map[string]any{"componentHost": "api.example.com", "componentName": "API",
		"componentGroup": "Core", "checkUrl": srv.URL + "/health"})
	nitMust(t, res, http.StatusOK, "define component")
	// /poll reads the components from the read model: wait until it has this one.
	nitMust(t, h.Do(t, "status", http.MethodGet, "/api/widget", "", nil, "X-Platform-Min-Position", res.Header.Get("X-Platform-Position")), http.StatusOK, "wait for component")
	wantStatus := []string{"operational", "operational", "degraded", "operational"}
	for i := range 4 {
		res := h.Do(t, "status", http.MethodPost, "/poll", "", nil)
		nitMust(t, res, http.StatusOK, fmt.Sprintf("poll %d", i+1))
		var out struct {
			Polled  int `json:"polled"`
			Results []struct {
				Status     string `json:"status"`
				HTTPStatus int    `json:"http_status"`
			} `json:"results"`
		}
		res.JSON(t, &out)
		if out.Polled != 1 || out.Results[0].Status != wantStatus[i] {
			t.Fatalf("poll %d: %s, want status %s", i+1, res.Body, wantStatus[i])
		}
	}
	if n := checks.Load(); n != 4 {
		t.Fatalf("the check URL was called %d times, want 4", n)
	}
	// Stream versions: 1 registered, 2-4 check_failed, 5 degraded, 6 recovered.
	want[domain.ComponentDegraded] = "status:component:" + h.OrgID + ":api:v5"
	want[domain.ComponentRecovered] = "status:component:" + h.OrgID + ":api:v6"
	return want
}

type nitRow struct {
	key, typ, org, state, reason, sourceEvent string
	version                                   int
	envelope                                  notifications.Envelope
	delivered                                 bool
}

func nitRows(t *testing.T, pool *pgxpool.Pool) []nitRow {
	t.Helper()
	rows, err := pool.Query(context.Background(), `SELECT d.idempotency_key, d.type, d.version, d.organization_id, s.state, d.reason, d.source_event_id,
		d.envelope, d.delivered_at IS NOT NULL FROM notification_deliveries d JOIN notification_states s USING (idempotency_key)
		ORDER BY d.idempotency_key`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []nitRow
	for rows.Next() {
		var r nitRow
		var env []byte
		if err := rows.Scan(&r.key, &r.typ, &r.version, &r.org, &r.state, &r.reason, &r.sourceEvent, &env, &r.delivered); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(env, &r.envelope); err != nil {
			t.Fatalf("envelope of %s: %v", r.key, err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// nitCheckRows asserts the delivery log holds exactly the wanted keys, each
// valid against its contract and traced to its source event.
func nitCheckRows(t *testing.T, h *apptest.Harness, reg *contracts.Registry, rows []nitRow, want map[string]string, states ...string) {
	t.Helper()
	if len(rows) != len(want) {
		t.Fatalf("delivery log holds %d rows, want %d: %+v", len(rows), len(want), rows)
	}
	byType := map[string]int{}
	for _, r := range rows {
		byType[r.typ]++
		okState := false
		for _, s := range states {
			okState = okState || r.state == s
		}
		if !okState {
			t.Errorf("%s: state %q (reason %q), want one of %v", r.key, r.state, r.reason, states)
		}
		if want[r.typ] != r.key {
			t.Errorf("%s: key %q, want %q", r.typ, r.key, want[r.typ])
		}
		env := r.envelope
		if env.Type != r.typ || env.IdempotencyKey != r.key || env.OrganizationID != h.OrgID || r.org != h.OrgID {
			t.Errorf("%s: envelope %+v does not match its row", r.key, env)
		}
		c, ok := reg.Get(r.typ)
		if !ok {
			t.Fatalf("%s: no contract", r.typ)
		}
		if !c.IdempotencyKeyPattern.MatchString(r.key) {
			t.Errorf("%s: key %q does not match %s", r.typ, r.key, c.IdempotencyKeyPattern)
		}
		if err := reg.Validate(r.typ, r.key, env.Payload); err != nil {
			t.Errorf("%s: %v\npayload %s", r.key, err, env.Payload)
		}
		if env.Version != c.Version || r.version != c.Version || env.DataClassification != c.DataClassification ||
			env.Recipients.Mode != c.RecipientsMode || env.SensitiveFields == nil {
			t.Errorf("%s: envelope descriptor %+v does not carry the contract's %+v", r.key, env, c)
		}
		var srcType string
		if err := h.App.Pool.QueryRow(context.Background(), `SELECT event_type FROM es_events WHERE event_id=$1`, r.sourceEvent).Scan(&srcType); err != nil {
			t.Errorf("%s: source event %s: %v", r.key, r.sourceEvent, err)
		} else if srcType != r.typ {
			t.Errorf("%s: source event is a %s", r.key, srcType)
		}
	}
	for typ := range want {
		if byType[typ] != 1 {
			t.Errorf("%s appears %d times, want once", typ, byType[typ])
		}
	}
}

// TestStatusNotificationsEndToEnd: every status transition is logged once,
// valid against its contract, published, and on the notifications topic
// under the same keys.
func TestStatusNotificationsEndToEnd(t *testing.T) {
	reg, err := contracts.Load()
	if err != nil {
		t.Fatal(err)
	}
	h := apptest.Start(t, apptest.Options{})
	want := nitFlows(t, h, true)
	if len(want) != 8 {
		t.Fatalf("expected 8 notification types, have %d", len(want))
	}
	pool := h.App.Pool
	apptest.Eventually(t, 30*time.Second, "8 notifications logged and published", func() bool {
		return nitCount(t, pool, `SELECT count(*) FROM notification_states WHERE state='published'`) == 8
	})
	nitCheckRows(t, h, reg, nitRows(t, pool), want, "published")

	var msgs []*sarama.ConsumerMessage
	apptest.Eventually(t, 20*time.Second, "8 records on the notifications topic", func() bool {
		msgs = apptest.ReadTopic(t, h.Config.Kafka.Brokers, h.Config.Kafka.Topics.Notifications(), 20*time.Second)
		return len(msgs) >= 8
	})
	var keys, wantKeys []string
	for _, m := range msgs {
		var env notifications.Envelope
		if err := json.Unmarshal(m.Value, &env); err != nil {
			t.Fatalf("record %d: %v", m.Offset, err)
		}
		if k := nitHeader(m, notifications.MetaIdempotencyKey); k != env.IdempotencyKey {
			t.Fatalf("record header key %q, envelope key %q", k, env.IdempotencyKey)
		}
		if typ := nitHeader(m, notifications.MetaType); typ != env.Type {
			t.Fatalf("record header type %q, envelope type %q", typ, env.Type)
		}
		if err := reg.Validate(env.Type, env.IdempotencyKey, env.Payload); err != nil {
			t.Fatalf("published record: %v", err)
		}
		keys = append(keys, env.IdempotencyKey)
	}
	for _, k := range want {
		wantKeys = append(wantKeys, k)
	}
	sort.Strings(keys)
	sort.Strings(wantKeys)
	if strings.Join(keys, "\n") != strings.Join(wantKeys, "\n") {
		t.Fatalf("notifications topic keys:\n%s\nwant:\n%s", strings.Join(keys, "\n"), strings.Join(wantKeys, "\n"))
	}
	if n := nitCount(t, pool, `SELECT count(*) FROM proj_failures WHERE projection='notifications'`); n != 0 {
		t.Fatalf("%d notification projection failures", n)
	}
}

// TestWebhookDeliveryRetries: PLATFORM_NOTIFY_URL fails twice, then accepts:
// every key ends up POSTed successfully exactly once, with its
// Idempotency-Key header, and its row is delivered.
func TestWebhookDeliveryRetries(t *testing.T) {
	reg, err := contracts.Load()
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu        sync.Mutex
		posts     int
		succeeded = map[string]int{}
		problems  []string
	)
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		defer mu.Unlock()
		posts++
		if r.Method != http.MethodPost {
			problems = append(problems, "method "+r.Method)
		}
		var env notifications.Envelope
		if err := json.Unmarshal(body, &env); err != nil {
			problems = append(problems, "body: "+err.Error())
		}
		key := r.Header.Get("Idempotency-Key")
		if key == "" || key != env.IdempotencyKey {
			problems = append(problems, fmt.Sprintf("Idempotency-Key %q, envelope key %q", key, env.IdempotencyKey))
		}
		if typ := r.Header.Get("X-Platform-Notification-Type"); typ != env.Type {
			problems = append(problems, fmt.Sprintf("type header %q, envelope type %q", typ, env.Type))
		}
		if posts <= 2 {
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		succeeded[key]++
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(receiver.Close)

	h := apptest.Start(t, apptest.Options{Configure: func(c *app.Config) { c.Notify.URL = receiver.URL + "/notify" }})
	want := nitFlows(t, h, false)
	pool := h.App.Pool
	dump := func() string {
		var out string
		_ = pool.QueryRow(context.Background(), `SELECT COALESCE(json_agg(json_build_object('key', idempotency_key, 'state', s.state,
			'delivered', d.delivered_at IS NOT NULL, 'attempts', delivery_attempts, 'error', last_error))::text, '')
			FROM notification_deliveries d JOIN notification_states s USING (idempotency_key)`).Scan(&out)
		return out
	}
	wait := func(timeout time.Duration, sql string) bool {
		for deadline := time.Now().Add(timeout); nitCount(t, pool, sql) != int64(len(want)); time.Sleep(50 * time.Millisecond) {
			if time.Now().After(deadline) {
				return false
			}
		}
		return true
	}
	if !wait(30*time.Second, `SELECT count(*) FROM notification_deliveries WHERE delivered_at IS NOT NULL`) {
		mu.Lock()
		t.Fatalf("timed out waiting for every notification to be delivered\nrows: %s\nreceiver: %d POSTs, successes %v", dump(), posts, succeeded)
	}
	// Every row the webhook delivered must say so.
	if !wait(2*time.Second, `SELECT count(*) FROM notification_deliveries WHERE state='delivered' AND delivered_at IS NOT NULL`) {
		t.Fatalf("every notification was delivered (delivered_at set) but not every row is in state delivered: "+
			"the dispatcher's mark overwrote the webhook's state\nrows: %s", dump())
	}
	// Leave time for a second delivery to show up if one were coming.
	time.Sleep(500 * time.Millisecond)
	rows := nitRows(t, pool)
	nitCheckRows(t, h, reg, rows, want, "delivered")
	for _, r := range rows {
		if !r.delivered {
			t.Errorf("%s: delivered_at not set", r.key)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(problems) > 0 {
		t.Fatalf("receiver saw: %v", problems)
	}
	for typ, key := range want {
		if succeeded[key] != 1 {
			t.Errorf("%s (%s) was delivered successfully %d times, want 1", key, typ, succeeded[key])
		}
	}
	if len(succeeded) != len(want) {
		t.Errorf("receiver accepted %d keys, want %d: %v", len(succeeded), len(want), succeeded)
	}
	if posts != len(want)+2 {
		t.Errorf("receiver got %d POSTs, want %d (2 failures, then one per key)", posts, len(want)+2)
	}
	if n := nitCount(t, pool, `SELECT COALESCE(sum(delivery_attempts), 0) FROM notification_deliveries`); n != int64(len(want)+2) {
		t.Errorf("recorded %d delivery attempts, want %d", n, len(want)+2)
	}
}

// TestInvalidNotificationIsDeadLettered: a mapped notification that fails its
// contract is logged as invalid, then parked on the dead-letter topic with
// the reason; it never reaches the notifications topic. A valid one next to
// it is published.
func TestInvalidNotificationIsDeadLettered(t *testing.T) {
	reg, err := contracts.Load()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	pool, kc := apptest.Infra(t, "notif", []func(context.Context, *pgxpool.Pool) error{notifications.Migrate}, notificationTopics)
	publisher, err := notifications.NewPublisher(kc)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { publisher.Close() })

	badKey := "status:incident:bad-" + uuid.NewString() + ":rev:1"
	mapper := func(e eventstore.Event) ([]notifications.Notification, error) {
		if e.StreamID == "bad" {
			// The key matches the pattern; the payload misses required members.
			return []notifications.Notification{{Type: domain.IncidentCreated, IdempotencyKey: badKey, Payload: map[string]any{"title": ""}}}, nil
		}
		return statusmap.Mapping.Map(e)
	}
	p := &notifications.Projection{Registry: reg, Mappers: map[string]notifications.Mapper{"status": mapper}}
	at := time.Now().UTC().Truncate(time.Microsecond)
	mk := func(stream string) eventstore.Event {
		payload, _ := json.Marshal(domain.IncidentCreatedV1{IncidentID: stream, Title: "Errors", Message: "Looking", Severity: "major",
			Status: domain.Investigating, Revision: 1, OccurredAt: at})
		return eventstore.Event{ID: uuid.Must(uuid.NewV7()), Type: domain.IncidentCreated, SchemaVersion: 1, StreamType: domain.StreamIncident,
			StreamID: stream, StreamVersion: 1, OrganizationID: "org-notif", RecordedAt: at, OccurredAt: at, Payload: payload}
	}
	goodEvent := mk("good-" + uuid.NewString())
	goodKey := "status:incident:" + goodEvent.StreamID + ":rev:1"
	for _, e := range []eventstore.Event{mk("bad"), goodEvent} {
		stmts, err := p.Reduce(e)
		if err != nil {
			t.Fatal(err)
		}
		if len(stmts) != 1 {
			t.Fatalf("%d statements, want 1", len(stmts))
		}
		for _, s := range stmts {
			if strings.Contains(s.SQL, "{{") {
				t.Fatalf("the delivery log is not versioned: %s", s.SQL)
			}
			if _, err := pool.Exec(ctx, s.SQL, s.Args...); err != nil {
				t.Fatal(err)
			}
		}
		// Replaying the same event logs nothing new.
		stmts, _ = p.Reduce(e)
		for _, s := range stmts {
			tag, err := pool.Exec(ctx, s.SQL, s.Args...)
			if err != nil || tag.RowsAffected() != 0 {
				t.Fatalf("replayed mapping wrote %d rows, %v", tag.RowsAffected(), err)
			}
		}
	}
	var state, reason string
	if err := pool.QueryRow(ctx, `SELECT state, reason FROM notification_deliveries WHERE idempotency_key=$1`, badKey).Scan(&state, &reason); err != nil {
		t.Fatal(err)
	}
	if state != "invalid" || !strings.Contains(reason, "/body") || !strings.Contains(reason, "/title") {
		t.Fatalf("bad notification: state %q reason %q, want invalid naming /title and /body", state, reason)
	}

	d := &notifications.Dispatcher{Pool: pool, Writer: dispatchWriter(t, kc), Topics: kc.Topics, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	if n := dispatchN(t, d, 2); n != 2 {
		t.Fatalf("dispatch: %d, want 2", n)
	}
	if n, err := d.DispatchBatch(ctx); err != nil || n != 0 {
		t.Fatalf("second dispatch: %d %v, want nothing", n, err)
	}
	if got := nitCount(t, pool, `SELECT count(*) FROM notification_states WHERE idempotency_key=$1 AND state='parked'`, badKey); got != 1 {
		t.Fatal("the invalid notification is not parked")
	}
	if got := nitCount(t, pool, `SELECT count(*) FROM notification_states WHERE idempotency_key=$1 AND state='published'`, goodKey); got != 1 {
		t.Fatal("the valid notification is not published")
	}

	var emittedKeys []string
	for _, m := range apptest.ReadTopic(t, kc.Brokers, kc.Topics.Notifications(), 20*time.Second) {
		emittedKeys = append(emittedKeys, nitHeader(m, notifications.MetaIdempotencyKey))
	}
	if len(emittedKeys) != 1 || emittedKeys[0] != goodKey {
		t.Fatalf("notifications topic keys %v, want only %s", emittedKeys, goodKey)
	}
	dead := apptest.ReadTopic(t, kc.Brokers, kc.Topics.DeadLetter(), 20*time.Second)
	if len(dead) != 1 {
		t.Fatalf("%d dead-letter records, want 1", len(dead))
	}
	if k := nitHeader(dead[0], notifications.MetaIdempotencyKey); k != badKey {
		t.Fatalf("dead-letter key %q, want %q", k, badKey)
	}
	if r := nitHeader(dead[0], notifications.MetaReason); r != reason {
		t.Fatalf("dead-letter reason %q, want %q", r, reason)
	}
}

// nitRacingWriter writes, then lets the webhook handle the records before
// the dispatcher gets to save its cursor: what happens when the webhook
// consumer is faster than the dispatcher (a GC pause, a slow database).
type nitRacingWriter struct {
	eventstore.LogWriter
	topic   string
	webhook *notifications.Webhook
	errs    []error
}

func (w *nitRacingWriter) Write(batches map[eventstore.TopicPartition][]*sarama.ProducerMessage) map[eventstore.TopicPartition]error {
	result := w.LogWriter.Write(batches)
	for tp, msgs := range batches {
		if tp.Topic != w.topic || result[tp] != nil {
			continue
		}
		for _, pm := range msgs {
			value, _ := pm.Value.Encode()
			rec := &sarama.ConsumerMessage{Topic: tp.Topic, Value: value}
			for i := range pm.Headers {
				rec.Headers = append(rec.Headers, &pm.Headers[i])
			}
			m, err := kafka.DefaultMarshaler{}.Unmarshal(rec)
			if err == nil {
				err = w.webhook.Handle(m)
			}
			if err != nil {
				w.errs = append(w.errs, err)
			}
		}
	}
	return result
}

// TestDeliveredStateSurvivesDispatcherMark: a notification the webhook has
// already delivered stays 'delivered' when the dispatcher marks it published
// afterwards; the delivery log must not claim it is still undelivered.
func TestDeliveredStateSurvivesDispatcherMark(t *testing.T) {
	reg, err := contracts.Load()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	pool, kc := apptest.Infra(t, "race", []func(context.Context, *pgxpool.Pool) error{notifications.Migrate}, notificationTopics)
	var accepted atomic.Int64
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		accepted.Add(1)
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(receiver.Close)

	at := time.Now().UTC().Truncate(time.Microsecond)
	id := uuid.NewString()
	payload, _ := json.Marshal(domain.IncidentCreatedV1{IncidentID: id, Title: "Errors", Message: "Looking", Severity: "major",
		Status: domain.Investigating, Revision: 1, OccurredAt: at})
	e := eventstore.Event{ID: uuid.Must(uuid.NewV7()), Type: domain.IncidentCreated, SchemaVersion: 1, StreamType: domain.StreamIncident,
		StreamID: id, StreamVersion: 1, OrganizationID: "org-race", RecordedAt: at, OccurredAt: at, Payload: payload}
	p := &notifications.Projection{Registry: reg, Mappers: map[string]notifications.Mapper{"status": statusmap.Mapping.Map}}
	stmts, err := p.Reduce(e)
	if err != nil || len(stmts) != 1 {
		t.Fatalf("reduce: %d statements, %v", len(stmts), err)
	}
	if _, err := pool.Exec(ctx, stmts[0].SQL, stmts[0].Args...); err != nil {
		t.Fatal(err)
	}
	key := "status:incident:" + id + ":rev:1"

	wh := &notifications.Webhook{Pool: pool, Client: &http.Client{}, Config: notifications.WebhookConfig{URL: receiver.URL, Timeout: 5 * time.Second}}
	pub := &nitRacingWriter{LogWriter: dispatchWriter(t, kc), topic: kc.Topics.Notifications(), webhook: wh}
	d := &notifications.Dispatcher{Pool: pool, Writer: pub, Topics: kc.Topics, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	if n := dispatchN(t, d, 1); n != 1 {
		t.Fatalf("dispatch: %d", n)
	}
	if len(pub.errs) > 0 || accepted.Load() != 1 {
		t.Fatalf("webhook: %v, %d accepted", pub.errs, accepted.Load())
	}
	var state string
	var delivered bool
	if err := pool.QueryRow(ctx, `SELECT state, delivered_at IS NOT NULL FROM notification_deliveries WHERE idempotency_key=$1`, key).Scan(&state, &delivered); err != nil {
		t.Fatal(err)
	}
	if !delivered || state != "delivered" {
		t.Fatalf("after delivery then the dispatcher's mark: state %q (delivered_at set: %v), want delivered: "+
			"the dispatcher's UPDATE overwrote the webhook's state", state, delivered)
	}
}

func notificationTopics(kc eventstore.KafkaConfig) []string {
	return []string{kc.Topics.Notifications(), kc.Topics.DeadLetter()}
}
