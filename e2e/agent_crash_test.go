package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"
)

// TestAgentApprovalSurvivesKillNine: a three-step flow (read, open an
// incident: its action requires confirmation, read it back) waits for its
// approval when platformd is killed with SIGKILL. The restarted platformd
// has the run where it was; two approvals sent at once resume it once (one
// 200, one 409 approval_decided); step 1 ran once, step 3 once (one claim
// of each step's job), and the incident was opened once (its history holds
// one incident.created, made with the step's Idempotency-Key).
func TestAgentApprovalSurvivesKillNine(t *testing.T) {
	s := NewStack(t)
	srv := s.StartServer(ServerOptions{})
	api := srv.URL("agent")
	call := func(method, path string, body any, status int, out any, headers ...string) Response {
		t.Helper()
		r := Req{Method: method, URL: api + path, Key: s.APIKey, Body: body, Headers: map[string]string{}}
		for i := 0; i+1 < len(headers); i += 2 {
			r.Headers[headers[i]] = headers[i+1]
		}
		res := expect(t, method+" "+path, do(t, r), status)
		if out != nil {
			res.Decode(t, out)
		}
		return res
	}
	type run struct {
		RunID  string `json:"runId"`
		Status string `json:"status"`
		Steps  []struct {
			Status   string          `json:"status"`
			WaitID   string          `json:"waitId"`
			Attempts int             `json:"attempts"`
			Output   json.RawMessage `json:"output"`
		} `json:"steps"`
	}
	waitRun := func(id, what string, cond func(run) bool) run {
		t.Helper()
		var r run
		deadline := time.Now().Add(60 * time.Second)
		for {
			res := do(t, Req{Method: http.MethodGet, URL: api + "/api/runs/" + id, Key: s.APIKey})
			if res.Status == http.StatusOK {
				r = run{}
				res.Decode(t, &r)
				if cond(r) {
					return r
				}
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: the run is %+v (%s)", what, r, res)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	title := "Crash " + strconv.FormatInt(time.Now().UnixNano(), 36)
	var f struct {
		FlowID string `json:"flowId"`
	}
	call(http.MethodPost, "/api/flows", map[string]any{"name": "Triage", "trigger": map[string]any{"type": "manual"}, "steps": []any{
		map[string]any{"service": "status", "action": "incidents.list", "input": map[string]any{"status": "all"}},
		map[string]any{"service": "status", "action": "incidents.create",
			"input": map[string]any{"title": map[string]any{"$from": "/trigger/data/title"}, "message": "Opened by a flow", "severity": "major"}},
		map[string]any{"service": "status", "action": "incidents.list",
			"input": map[string]any{"incidentId": map[string]any{"$from": "/steps/1/output/incident_id"}}},
	}}, http.StatusCreated, &f)
	var r run
	call(http.MethodPost, "/api/flows/"+f.FlowID+"/runs", map[string]any{"input": map[string]any{"title": title}}, http.StatusCreated, &r)
	r = waitRun(r.RunID, "waiting for the approval", func(r run) bool { return r.Status == "waiting" })
	approval := r.Steps[1].WaitID

	srv.Kill9()
	srv.Start()
	api = srv.URL("agent")

	r = waitRun(r.RunID, "the run after the restart", func(r run) bool { return true })
	if r.Status != "waiting" || r.Steps[0].Status != "succeeded" || r.Steps[1].Status != "awaiting_approval" {
		t.Fatalf("after the restart the run is %+v", r)
	}
	statuses := make([]int, 2)
	var wg sync.WaitGroup
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := send(context.Background(), httpClient, Req{Method: http.MethodPost, URL: api + "/api/approvals/" + approval + "/approve",
				Key: s.APIKey, Body: map[string]any{"note": "approved after the crash"}, Headers: map[string]string{"Idempotency-Key": "approve-" + strconv.Itoa(i)}})
			if err != nil {
				t.Error(err)
				return
			}
			statuses[i] = res.Status
			if res.Status == http.StatusConflict {
				var p Problem
				res.Decode(t, &p)
				if p.Code != "approval_decided" {
					t.Errorf("the second approval: %s", res)
				}
			}
		}()
	}
	wg.Wait()
	if !(statuses[0] == 200 && statuses[1] == 409 || statuses[0] == 409 && statuses[1] == 200) {
		t.Fatalf("two approvals answered %v, want one 200 and one 409", statuses)
	}
	r = waitRun(r.RunID, "the run's end", func(r run) bool { return r.Status != "waiting" && r.Status != "running" })
	if r.Status != "succeeded" {
		t.Fatalf("run %+v", r)
	}
	pool := s.Pool()
	jobOf := func(i int) string { return "job:agent.step:" + r.RunID + "." + strconv.Itoa(i) }
	history := func(i int) string {
		var h string
		_ = pool.QueryRow(context.Background(), `SELECT coalesce(string_agg(event_type || ' ' || coalesce(payload->'job'->>'failure', ''), '; '
			ORDER BY stream_version), '') FROM es_events WHERE stream_id=$1`, jobOf(i)).Scan(&h)
		return h
	}
	for i, st := range r.Steps {
		if st.Status != "succeeded" {
			t.Fatalf("step %d: %s; its job: %s", i, st.Status, history(i))
		}
	}
	q := func(sql string, args ...any) int64 {
		t.Helper()
		var n int64
		if err := pool.QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := q(`SELECT count(*) FROM es_events WHERE event_type='status.incident.created' AND payload::text LIKE '%' || $1 || '%'`, title); n != 1 {
		t.Fatalf("%d incidents opened, want 1", n)
	}
	if n := q(`SELECT count(*) FROM es_events WHERE event_type='status.incident.created' AND idempotency_key=$1`,
		"agent:run:"+r.RunID+":step:1"); n != 1 {
		t.Fatalf("%d incidents opened with the step's key, want 1", n)
	}
	// Step 1 ran before the crash and never again; step 2 ran once, after
	// the approval; each succeeded once.
	for i := range 2 {
		if n := q(`SELECT count(*) FROM es_events WHERE stream_id=$1 AND event_type='agent.job.claimed'`, jobOf(i)); n != 1 {
			t.Fatalf("step %d's job was claimed %d times, want 1: %s", i, n, history(i))
		}
	}
	// Step 3 reads what step 2 wrote: its call waits for step 2's position in
	// the status read model, which a restarted process may take longer to
	// reach than the read's bounded wait (the killed process's consumer
	// still holds the partitions until its session times out). Such an
	// attempt is refused before anything is read (503) and asked again; the
	// step succeeds once, and nothing else fails it.
	for i := range 3 {
		if n := q(`SELECT count(*) FROM es_events WHERE stream_id=$1 AND event_type='agent.job.succeeded'`, jobOf(i)); n != 1 {
			t.Fatalf("step %d succeeded %d times, want 1: %s", i, n, history(i))
		}
		if n := q(`SELECT count(*) FROM es_events WHERE stream_id=$1 AND event_type='agent.job.failed'
			AND payload->'job'->'failure'->>'reason' <> 'the action answered 503'`, jobOf(i)); n != 0 {
			t.Fatalf("step %d failed otherwise than a read model behind: %s", i, history(i))
		}
	}
	if n := q(`SELECT count(*) FROM es_events WHERE stream_id=$1 AND event_type='agent.run.step_requested'`, r.RunID); n != 3 {
		t.Fatalf("%d steps requested, want 3 (one each)", n)
	}
	if n := q(`SELECT count(*) FROM es_events WHERE stream_id=$1 AND event_type='agent.run.approval_granted'`, r.RunID); n != 1 {
		t.Fatalf("%d approvals granted, want 1", n)
	}
	// The incident's history (the audit view) shows one creation.
	var opened struct {
		IncidentID string `json:"incident_id"`
	}
	_ = json.Unmarshal(r.Steps[1].Output, &opened)
	if n := q(`SELECT count(*) FROM es_events WHERE stream_id=$1 AND event_type='status.incident.created'`, opened.IncidentID); n != 1 {
		t.Fatalf("the incident's history holds %d creations", n)
	}
}
