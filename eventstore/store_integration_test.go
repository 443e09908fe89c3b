package eventstore_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/internal/apptest"
)

// esitResponse is one HTTP answer collected from a goroutine (t.Fatal may not
// be called there).
type esitResponse struct {
	status int
	header http.Header
	body   []byte
	err    error
}

func esitDo(h *apptest.Harness, service, method, path string, body any, headers ...string) esitResponse {
	var rd io.Reader
	if body != nil {
		raw, err := json.Marshal(body)
		if err != nil {
			return esitResponse{err: err}
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, h.URLs[service]+path, rd)
	if err != nil {
		return esitResponse{err: err}
	}
	req.Header.Set("Authorization", "Bearer "+h.APIKey)
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := h.Client.Do(req)
	if err != nil {
		return esitResponse{err: err}
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	return esitResponse{status: resp.StatusCode, header: resp.Header, body: raw, err: err}
}

func esitCount(t *testing.T, pool *pgxpool.Pool, sql string, args ...any) int64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var n int64
	if err := pool.QueryRow(ctx, sql, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return n
}

// TestIdempotencyUnderConcurrency: 20 concurrent identical requests with one
// Idempotency-Key append one incident; every answer is the first result, 19
// of them marked as replayed. The same key with another body is refused and
// appends nothing.
func TestIdempotencyUnderConcurrency(t *testing.T) {
	h := apptest.Start(t, apptest.Options{})
	const n = 20
	key := "idem-" + uuid.NewString()
	body := map[string]any{"title": "Checkout errors", "message": "Investigating elevated 5xx", "severity": "major"}
	answers := make([]esitResponse, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			answers[i] = esitDo(h, "status", http.MethodPost, "/api/incidents", body, "Idempotency-Key", key)
		}()
	}
	close(start)
	wg.Wait()

	ids := map[string]int{}
	positions := map[string]int{}
	replayed := 0
	var firstRequest string // the one answer not replayed: its request appended
	for i, a := range answers {
		if a.err != nil {
			t.Fatalf("request %d: %v", i, a.err)
		}
		if a.status != http.StatusCreated {
			t.Fatalf("request %d: status %d %s", i, a.status, a.body)
		}
		var inc struct {
			IncidentID string `json:"incident_id"`
			Revision   int    `json:"revision"`
		}
		if err := json.Unmarshal(a.body, &inc); err != nil {
			t.Fatalf("request %d: %v: %s", i, err, a.body)
		}
		if inc.Revision != 1 {
			t.Fatalf("request %d: revision %d, want 1", i, inc.Revision)
		}
		ids[inc.IncidentID]++
		positions[a.header.Get("X-Platform-Position")]++
		switch v := a.header.Get("Idempotent-Replayed"); v {
		case "true":
			replayed++
		case "":
			firstRequest = a.header.Get("X-Request-Id")
		default:
			t.Fatalf("request %d: Idempotent-Replayed %q", i, v)
		}
	}
	if len(ids) != 1 {
		t.Fatalf("answers name %d incidents, want 1: %v", len(ids), ids)
	}
	var id string
	for k := range ids {
		id = k
	}
	if len(positions) != 1 {
		t.Fatalf("answers carry %d positions, want one: %v", len(positions), positions)
	}
	if _, ok := positions[id+"@1"]; !ok {
		t.Fatalf("positions %v, want %s@1", positions, id)
	}
	if replayed != n-1 {
		t.Fatalf("%d answers marked Idempotent-Replayed, want %d", replayed, n-1)
	}
	pool := h.App.Pool
	created := esitCount(t, pool, `SELECT count(*) FROM es_events WHERE event_type='status.incident.created' AND organization_id=$1`, h.OrgID)
	if created != 1 {
		t.Fatalf("%d status.incident.created events, want 1", created)
	}
	if c := esitCount(t, pool, `SELECT count(*) FROM es_events WHERE stream_id=$1`, id); c != 1 {
		t.Fatalf("stream %s has %d events, want 1", id, c)
	}
	if c := esitCount(t, pool, `SELECT count(*) FROM es_idempotency WHERE scope=$1 AND key=$2`, h.OrgID, key); c != 1 {
		t.Fatalf("%d idempotency records, want 1", c)
	}
	// A request's events carry its request id (what the refusal is checked by).
	if c := esitCount(t, pool, `SELECT count(*) FROM es_events WHERE correlation_id=$1 AND stream_id=$2`, firstRequest, id); firstRequest == "" || c != 1 {
		t.Fatalf("the first request (%q) has %d events, want 1", firstRequest, c)
	}

	// Same key, another body: a clear error and nothing appended. What the
	// request would append carries its request id as correlation id, or the
	// key; the whole table is no measure: the platform's reactors append
	// for the new organization (the gateway's provisioning) whenever they
	// get to it, seconds later under load.
	other := map[string]any{"title": "Checkout errors", "message": "Something else", "severity": "critical"}
	res := h.Do(t, "status", http.MethodPost, "/api/incidents", "", other, "Idempotency-Key", key)
	if res.Status != http.StatusUnprocessableEntity {
		t.Fatalf("reused key: status %d %s, want 422", res.Status, res.Body)
	}
	var problem struct {
		Code      string `json:"code"`
		RequestID string `json:"request_id"`
	}
	res.JSON(t, &problem)
	if problem.Code != "idempotency_key_reused" {
		t.Fatalf("reused key: code %q, want idempotency_key_reused (%s)", problem.Code, res.Body)
	}
	if ct := res.Header.Get("Content-Type"); ct != "application/problem+json" {
		t.Fatalf("reused key: content type %q", ct)
	}
	if problem.RequestID == "" {
		t.Fatalf("reused key: no request_id (%s)", res.Body)
	}
	if c := esitCount(t, pool, `SELECT count(*) FROM es_events WHERE correlation_id=$1`, problem.RequestID); c != 0 {
		t.Fatalf("a refused request appended %d events", c)
	}
	if c := esitCount(t, pool, `SELECT count(*) FROM es_events WHERE idempotency_key=$1`, key); c != 1 {
		t.Fatalf("%d events carry the key after the refusal, want 1", c)
	}
	if c := esitCount(t, pool, `SELECT count(*) FROM es_events WHERE event_type='status.incident.created' AND organization_id=$1`, h.OrgID); c != 1 {
		t.Fatalf("%d status.incident.created events after the reused key, want 1", c)
	}
	// And the original request still replays.
	again := h.Do(t, "status", http.MethodPost, "/api/incidents", "", body, "Idempotency-Key", key)
	if again.Status != http.StatusCreated || again.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("replay after refusal: %d %v %s", again.Status, again.Header, again.Body)
	}
}

// TestParallelUpdatesKeepRevisionsDense: 50 parallel updates of one incident
// give revisions exactly 2..51, and the stream holds versions 1..51.
func TestParallelUpdatesKeepRevisionsDense(t *testing.T) {
	h := apptest.Start(t, apptest.Options{})
	res := h.Do(t, "status", http.MethodPost, "/api/incidents", "", map[string]any{"title": "Latency", "message": "Looking", "severity": "minor"})
	if res.Status != http.StatusCreated {
		t.Fatalf("create: %d %s", res.Status, res.Body)
	}
	var inc struct {
		IncidentID string `json:"incident_id"`
	}
	res.JSON(t, &inc)

	const n = 50
	answers := make([]esitResponse, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	statuses := []string{"investigating", "identified", "monitoring"}
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			answers[i] = esitDo(h, "status", http.MethodPatch, "/api/incidents/"+inc.IncidentID,
				map[string]any{"message": fmt.Sprintf("update %d", i), "status": statuses[i%len(statuses)]})
		}()
	}
	close(start)
	wg.Wait()

	var revisions []int
	for i, a := range answers {
		if a.err != nil {
			t.Fatalf("update %d: %v", i, a.err)
		}
		if a.status != http.StatusOK {
			t.Fatalf("update %d: status %d %s", i, a.status, a.body)
		}
		var st struct {
			Revision int `json:"revision"`
		}
		if err := json.Unmarshal(a.body, &st); err != nil {
			t.Fatal(err)
		}
		if pos := a.header.Get("X-Platform-Position"); pos != fmt.Sprintf("%s@%d", inc.IncidentID, st.Revision) {
			t.Fatalf("update %d: position %q for revision %d", i, pos, st.Revision)
		}
		revisions = append(revisions, st.Revision)
	}
	sort.Ints(revisions)
	for i, r := range revisions {
		if r != i+2 {
			t.Fatalf("revisions %v: want exactly 2..%d", revisions, n+1)
		}
	}

	ctx := context.Background()
	rows, err := h.App.Pool.Query(ctx, `SELECT stream_version, (payload->>'revision')::int FROM es_events WHERE stream_id=$1 ORDER BY stream_version`, inc.IncidentID)
	if err != nil {
		t.Fatal(err)
	}
	var versions []int64
	for rows.Next() {
		var v int64
		var rev int
		if err := rows.Scan(&v, &rev); err != nil {
			t.Fatal(err)
		}
		if int64(rev) != v {
			t.Fatalf("event at version %d carries revision %d", v, rev)
		}
		versions = append(versions, v)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if len(versions) != n+1 {
		t.Fatalf("stream has %d events, want %d", len(versions), n+1)
	}
	for i, v := range versions {
		if v != int64(i+1) {
			t.Fatalf("stream versions %v: want 1..%d, no gap, no duplicate", versions, n+1)
		}
	}
	if head := esitCount(t, h.App.Pool, `SELECT version FROM es_streams WHERE stream_id=$1`, inc.IncidentID); head != n+1 {
		t.Fatalf("stream head %d, want %d", head, n+1)
	}
	// The read model converges to the last revision.
	q := h.Do(t, "status", http.MethodGet, "/api/incidents?incidentId="+inc.IncidentID, "", nil,
		"X-Platform-Min-Position", fmt.Sprintf("%s@%d", inc.IncidentID, n+1))
	if q.Status != http.StatusOK {
		t.Fatalf("query: %d %s", q.Status, q.Body)
	}
	var list struct {
		Incidents []struct {
			Revision int `json:"revision"`
			Updates  []struct {
				Revision int `json:"revision"`
			} `json:"updates"`
		} `json:"incidents"`
	}
	q.JSON(t, &list)
	if len(list.Incidents) != 1 || list.Incidents[0].Revision != n+1 || len(list.Incidents[0].Updates) != n+1 {
		t.Fatalf("read model: %s", q.Body)
	}
}

// TestRelayPublishesLateCommits: a row whose global_seq is lower than an
// already published one, but which commits later, is still published.
func TestRelayPublishesLateCommits(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	pool, kc := apptest.Infra(t, "relay", []func(context.Context, *pgxpool.Pool) error{eventstore.Migrate},
		func(kc eventstore.KafkaConfig) []string { return []string{kc.Topics.ForContext("status")} })
	topic := kc.Topics.ForContext("status")
	writer, err := eventstore.NewKafkaLogWriter(kc)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { writer.Close() })
	relay, err := eventstore.NewRelay(pool, writer, eventstore.RelayConfig{}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}

	insert := `INSERT INTO es_events (event_id, stream_type, stream_id, stream_version, event_type, schema_version,
		organization_id, actor_id, actor_type, occurred_at, recorded_at, idempotency_key, correlation_id, causation_id, payload, topic)
		VALUES ($1,'status.incident',$2,1,'status.incident.created',1,'org-relay','tester','system',now(),now(),'','','',$3,$4)
		RETURNING global_seq`
	idA, idB := uuid.Must(uuid.NewV7()), uuid.Must(uuid.NewV7())
	streamA, streamB := "late-"+uuid.NewString(), "early-"+uuid.NewString()

	// Transaction A allocates its global_seq first but does not commit yet.
	txA, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer txA.Rollback(context.Background()) //nolint:errcheck
	var seqA, seqB int64
	if err := txA.QueryRow(ctx, insert, idA, streamA, `{"incident_id":"a"}`, topic).Scan(&seqA); err != nil {
		t.Fatal(err)
	}
	// Transaction B gets a higher global_seq and commits first.
	txB, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := txB.QueryRow(ctx, insert, idB, streamB, `{"incident_id":"b"}`, topic).Scan(&seqB); err != nil {
		t.Fatal(err)
	}
	if err := txB.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if seqB <= seqA {
		t.Fatalf("global_seq of B %d is not above A's %d", seqB, seqA)
	}

	// B is committed but A, older, still runs: the relay's horizon holds B
	// back rather than moving a cursor past A.
	n, err := relay.PublishBatch(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Fatalf("first batch published %d rows, want 0 (A's transaction is still open below B)", n)
	}
	if p, err := eventstore.Pending(ctx, pool); err != nil || p != 1 {
		t.Fatalf("Pending = %d, %v; want 1 (B)", p, err)
	}
	if err := txA.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	// The horizon is cluster-wide: a transaction of a test running beside
	// this one may hold it a moment longer, so the relay may need a few
	// batches; it must publish exactly A and B, once.
	total, deadline := 0, time.Now().Add(15*time.Second)
	for total < 2 && time.Now().Before(deadline) {
		if n, err = relay.PublishBatch(ctx); err != nil {
			t.Fatal(err)
		}
		total += n
		if total < 2 {
			time.Sleep(20 * time.Millisecond)
		}
	}
	if total != 2 {
		t.Fatalf("after A committed the relay published %d rows, want 2 (A, committed late with a lower global_seq, and B)", total)
	}
	if n, err := relay.PublishBatch(ctx); err != nil || n != 0 {
		t.Fatalf("third batch: %d %v, want nothing left", n, err)
	}
	if p, err := eventstore.Pending(ctx, pool); err != nil || p != 0 {
		t.Fatalf("Pending = %d, %v", p, err)
	}

	msgs := apptest.ReadTopic(t, kc.Brokers, topic, 20*time.Second)
	seen := map[uuid.UUID]int{}
	for _, m := range msgs {
		e, err := eventstore.DecodeEvent(m.Value)
		if err != nil {
			t.Fatalf("offset %d: %v", m.Offset, err)
		}
		if string(m.Key) != e.StreamID {
			t.Fatalf("record key %q, want stream id %q", m.Key, e.StreamID)
		}
		seen[e.ID]++
	}
	if len(msgs) != 2 || seen[idA] != 1 || seen[idB] != 1 {
		t.Fatalf("topic holds %d records %v, want A %s and B %s once each", len(msgs), seen, idA, idB)
	}
}

// TestRelayOutputMatchesOutbox: after the relay ran, every event on the status
// topic decodes to an outbox row with the same event id, every row is there,
// and each stream's versions increase along its one partition.
func TestRelayOutputMatchesOutbox(t *testing.T) {
	h := apptest.Start(t, apptest.Options{})
	const incidents, updates = 8, 5
	var wg sync.WaitGroup
	errc := make(chan error, incidents*(updates+1))
	for i := range incidents {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a := esitDo(h, "status", http.MethodPost, "/api/incidents", map[string]any{"title": fmt.Sprintf("incident %d", i), "message": "start", "severity": "minor"})
			if a.err != nil || a.status != http.StatusCreated {
				errc <- fmt.Errorf("create %d: %d %v %s", i, a.status, a.err, a.body)
				return
			}
			var inc struct {
				IncidentID string `json:"incident_id"`
			}
			if err := json.Unmarshal(a.body, &inc); err != nil {
				errc <- err
				return
			}
			for u := range updates {
				a := esitDo(h, "status", http.MethodPatch, "/api/incidents/"+inc.IncidentID, map[string]any{"message": fmt.Sprintf("u%d", u)})
				if a.err != nil || a.status != http.StatusOK {
					errc <- fmt.Errorf("update %d/%d: %d %v %s", i, u, a.status, a.err, a.body)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errc)
	for err := range errc {
		t.Fatal(err)
	}
	pool := h.App.Pool
	apptest.Eventually(t, 20*time.Second, "the relay to publish every row", func() bool {
		n, err := eventstore.Pending(context.Background(), pool)
		return err == nil && n == 0
	})
	topic := h.Config.Kafka.Topics.ForContext("status")
	type row struct {
		stream  string
		version int64
		typ     string
	}
	want := map[uuid.UUID]row{}
	rows, err := pool.Query(context.Background(), `SELECT event_id, stream_id, stream_version, event_type FROM es_events WHERE topic=$1`, topic)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id uuid.UUID
		var r row
		if err := rows.Scan(&id, &r.stream, &r.version, &r.typ); err != nil {
			t.Fatal(err)
		}
		want[id] = r
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if len(want) != incidents*(updates+1) {
		t.Fatalf("outbox holds %d status events, want %d", len(want), incidents*(updates+1))
	}

	msgs := apptest.ReadTopic(t, h.Config.Kafka.Brokers, topic, 20*time.Second)
	got := map[uuid.UUID]int{}
	partitionOf := map[string]int32{}
	lastVersion := map[string]int64{}
	for _, m := range msgs {
		e, err := eventstore.DecodeEvent(m.Value)
		if err != nil {
			t.Fatalf("%s/%d@%d does not decode: %v", m.Topic, m.Partition, m.Offset, err)
		}
		r, ok := want[e.ID]
		if !ok {
			t.Fatalf("event %s on Kafka is not in the outbox", e.ID)
		}
		if r.stream != e.StreamID || r.version != e.StreamVersion || r.typ != e.Type {
			t.Fatalf("event %s: Kafka says %s@%d %s, outbox %s@%d %s", e.ID, e.StreamID, e.StreamVersion, e.Type, r.stream, r.version, r.typ)
		}
		headerID := ""
		for _, hd := range m.Headers {
			if string(hd.Key) == eventstore.HeaderEventID {
				headerID = string(hd.Value)
			}
		}
		if headerID != e.ID.String() {
			t.Fatalf("header event_id %q, value %s", headerID, e.ID)
		}
		got[e.ID]++
		if p, ok := partitionOf[e.StreamID]; ok && p != m.Partition {
			t.Fatalf("stream %s is on partitions %d and %d", e.StreamID, p, m.Partition)
		}
		partitionOf[e.StreamID] = m.Partition
		if e.StreamVersion <= lastVersion[e.StreamID] {
			t.Fatalf("stream %s: version %d after %d on partition %d", e.StreamID, e.StreamVersion, lastVersion[e.StreamID], m.Partition)
		}
		lastVersion[e.StreamID] = e.StreamVersion
	}
	for id := range want {
		if got[id] != 1 {
			t.Fatalf("event %s is on Kafka %d times, want 1", id, got[id])
		}
	}
	if len(msgs) != len(want) {
		t.Fatalf("%d records on Kafka, %d events in the outbox", len(msgs), len(want))
	}
	for stream, v := range lastVersion {
		if v != updates+1 {
			t.Fatalf("stream %s ends at version %d on Kafka, want %d", stream, v, updates+1)
		}
	}
}
