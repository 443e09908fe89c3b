package agent_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/platform/backend/internal/app"
	"github.com/platform/backend/internal/apptest"
	"github.com/platform/backend/internal/module"
	agentmod "github.com/platform/backend/internal/modules/agent"
)

// TestApprovalResumesOnce: a three-step flow whose second step's action
// requires confirmation. The run reads, waits for the approval (its input
// mapped from the trigger), and two approvals sent at once resume it once:
// one is answered with the run, the other 409 approval_decided. Step 0 ran
// once, step 2 once (one attempt each, one claim each on their jobs), the
// incident was opened once (one status.incident.created event, carrying the
// Idempotency-Key derived from the run and step), and step 2 read the
// incident step 1 opened.
func TestApprovalResumesOnce(t *testing.T) {
	h := apptest.Start(t, apptest.Options{})
	var f flowOf
	call(t, h, http.MethodPost, "/api/flows", "", threeSteps("Triage"), http.StatusCreated, &f)
	title := "Checkout errors " + strings.ReplaceAll(f.FlowID[:8], "-", "")
	var r run
	call(t, h, http.MethodPost, "/api/flows/"+f.FlowID+"/runs", "", map[string]any{"input": map[string]any{"title": title, "severity": "major"}},
		http.StatusCreated, &r)
	r = waitRun(t, h, "", r.RunID, "the run waiting for its approval", func(r run) bool { return r.Status == "waiting" })
	if r.Steps[0].Status != "succeeded" || r.Steps[0].Decision == nil || r.Steps[0].Decision.Kind != "auto" || r.Steps[1].Status != "awaiting_approval" {
		t.Fatalf("waiting run: %+v", r.Steps)
	}
	var in map[string]any
	_ = json.Unmarshal(r.Steps[1].Input, &in)
	if in["title"] != title || in["severity"] != "major" {
		t.Fatalf("step 1's input was not mapped from the trigger: %s", r.Steps[1].Input)
	}
	approval := r.Steps[1].WaitID
	var pending struct {
		Items []struct {
			ID    string `json:"id"`
			State string `json:"state"`
		} `json:"items"`
	}
	call(t, h, http.MethodGet, "/api/approvals?state=pending", "", nil, http.StatusOK, &pending)
	if len(pending.Items) != 1 || pending.Items[0].ID != approval {
		t.Fatalf("pending approvals %+v, want %s", pending.Items, approval)
	}

	statuses := make([]int, 2)
	bodies := make([]apptest.Response, 2)
	var wg sync.WaitGroup
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			bodies[i] = h.Do(t, "agent", http.MethodPost, "/api/approvals/"+approval+"/approve", "", map[string]any{"note": "go"},
				"Idempotency-Key", "approve-"+string(rune('a'+i)))
			statuses[i] = bodies[i].Status
		}()
	}
	wg.Wait()
	if !(statuses[0] == 200 && statuses[1] == 409 || statuses[0] == 409 && statuses[1] == 200) {
		t.Fatalf("two approvals answered %v, want one 200 and one 409", statuses)
	}
	for _, b := range bodies {
		if b.Status == http.StatusConflict {
			apptest.ExpectProblem(t, b, http.StatusConflict, "approval_decided")
		}
	}
	r = waitRun(t, h, "", r.RunID, "the run's end", func(r run) bool { return r.Status != "waiting" && r.Status != "running" })
	if r.Status != "succeeded" {
		t.Fatalf("run %s (%s): %+v", r.Status, r.Reason, r.Steps)
	}
	for i, s := range r.Steps {
		if s.Status != "succeeded" || s.Attempts != 1 || s.StartedAt == nil || s.FinishedAt == nil {
			t.Fatalf("step %d: %+v", i, s)
		}
	}
	if r.Steps[1].Decision.Kind != "approved" || r.Steps[1].HTTPStatus != http.StatusCreated {
		t.Fatalf("step 1: %+v", r.Steps[1])
	}
	var opened struct {
		IncidentID string `json:"incident_id"`
	}
	_ = json.Unmarshal(r.Steps[1].Output, &opened)
	var read struct {
		Incidents []struct {
			IncidentID string `json:"incident_id"`
			Title      string `json:"title"`
		} `json:"incidents"`
	}
	_ = json.Unmarshal(r.Steps[2].Output, &read)
	if opened.IncidentID == "" || len(read.Incidents) != 1 || read.Incidents[0].IncidentID != opened.IncidentID {
		t.Fatalf("step 2 read %s, step 1 opened %s", r.Steps[2].Output, r.Steps[1].Output)
	}
	// The effect once, in the history: one incident with the title, opened
	// with the step's key.
	if n := count(t, h, `SELECT count(*) FROM es_events WHERE event_type='status.incident.created' AND organization_id=$1
		AND payload->'payload'->>'title' = $2`, h.OrgID, title); n != 1 {
		// the payload's shape is status's: fall back to a text match
		if n2 := count(t, h, `SELECT count(*) FROM es_events WHERE event_type='status.incident.created' AND organization_id=$1
			AND payload::text LIKE '%' || $2 || '%'`, h.OrgID, title); n2 != 1 {
			t.Fatalf("%d incident.created events with the title, want 1", n2)
		}
	}
	if n := count(t, h, `SELECT count(*) FROM es_events WHERE event_type='status.incident.created' AND idempotency_key=$1`,
		"agent:run:"+r.RunID+":step:1"); n != 1 {
		t.Fatalf("%d incidents opened with the step's idempotency key, want 1", n)
	}
	for i := range 3 {
		if n := count(t, h, `SELECT count(*) FROM es_events WHERE stream_id=$1 AND event_type='agent.job.claimed'`,
			"job:agent.step:"+r.RunID+"."+string(rune('0'+i))); n != 1 {
			t.Fatalf("step %d's job was claimed %d times, want 1", i, n)
		}
	}
	if n := count(t, h, `SELECT count(*) FROM es_events WHERE stream_id=$1 AND event_type='agent.run.step_requested'`, r.RunID); n != 3 {
		t.Fatalf("%d steps requested, want 3", n)
	}
	if n := count(t, h, `SELECT count(*) FROM es_events WHERE stream_id=$1 AND event_type='agent.run.approval_granted'`, r.RunID); n != 1 {
		t.Fatalf("%d approvals granted, want 1", n)
	}
	// A late approval of the finished run runs nothing either.
	apptest.ExpectProblem(t, h.Do(t, "agent", http.MethodPost, "/api/approvals/"+approval+"/approve", "", map[string]any{}),
		http.StatusConflict, "approval_decided")
}

// TestRejectedApprovalEndsTheRun: a rejection ends the run (rejected), the
// step never runs.
func TestRejectedApprovalEndsTheRun(t *testing.T) {
	h := apptest.Start(t, apptest.Options{})
	var f flowOf
	call(t, h, http.MethodPost, "/api/flows", "", threeSteps("Rejected"), http.StatusCreated, &f)
	var r run
	call(t, h, http.MethodPost, "/api/flows/"+f.FlowID+"/runs", "", map[string]any{"input": map[string]any{"title": "Never opened"}},
		http.StatusCreated, &r)
	r = waitRun(t, h, "", r.RunID, "the approval", func(r run) bool { return r.Status == "waiting" })
	call(t, h, http.MethodPost, "/api/approvals/"+r.Steps[1].WaitID+"/reject", "", map[string]any{"note": "not now"}, http.StatusOK, &r)
	if r.Status != "rejected" || r.Steps[1].Status != "rejected" || r.Steps[2].Status != "pending" || r.Steps[1].Decision.Kind != "rejected" {
		t.Fatalf("rejected run: %s %+v", r.Status, r.Steps)
	}
	apptest.ExpectProblem(t, h.Do(t, "agent", http.MethodPost, "/api/approvals/"+r.Steps[1].WaitID+"/approve", "", map[string]any{}),
		http.StatusConflict, "approval_decided")
	if n := count(t, h, `SELECT count(*) FROM es_events WHERE event_type='status.incident.created' AND organization_id=$1`, h.OrgID); n != 0 {
		t.Fatalf("%d incidents opened by a rejected step", n)
	}
	if n := count(t, h, `SELECT count(*) FROM es_events WHERE stream_id=$1`, "job:agent.step:"+r.RunID+".1"); n != 0 {
		t.Fatalf("the rejected step has a job (%d events)", n)
	}
}

// TestOwnerLostPermissionFailsTheStep: a flow saved by a member runs its
// steps with a key the member delegated; demoted to guest (read only), the
// member no longer holds status:write, and the approved step is refused by
// the status service with 403 permission_denied: the step and the run fail
// with that status. The delegated key is the organization's, its creator the
// member.
func TestOwnerLostPermissionFailsTheStep(t *testing.T) {
	h := apptest.Start(t, apptest.Options{})
	member := newPerson(t, h, h.OrgID, "member")
	flow := map[string]any{"name": "Open", "trigger": map[string]any{"type": "manual"}, "steps": []any{
		map[string]any{"service": "status", "action": "incidents.create",
			"input": map[string]any{"title": "By the member", "message": "m", "severity": "minor"}}}}
	var f flowOf
	call(t, h, http.MethodPost, "/api/flows", member.Key, flow, http.StatusCreated, &f)
	var r run
	call(t, h, http.MethodPost, "/api/flows/"+f.FlowID+"/runs", member.Key, map[string]any{}, http.StatusCreated, &r)
	r = waitRun(t, h, "", r.RunID, "the approval", func(r run) bool { return r.Status == "waiting" })
	setRole(t, h, h.OrgID, member.UserID, "guest")
	call(t, h, http.MethodPost, "/api/approvals/"+r.Steps[0].WaitID+"/approve", "", map[string]any{}, http.StatusOK, nil)
	r = waitRun(t, h, "", r.RunID, "the refused step", func(r run) bool { return r.Status == "failed" })
	s := r.Steps[0]
	if s.Status != "failed" || s.Failure == nil || s.Failure.Status != http.StatusForbidden || s.Failure.Code != "permission_denied" {
		t.Fatalf("step %+v, failure %+v", s, s.Failure)
	}
	if n := count(t, h, `SELECT count(*) FROM es_events WHERE event_type='status.incident.created' AND organization_id=$1`, h.OrgID); n != 0 {
		t.Fatalf("%d incidents opened beyond the owner's permissions", n)
	}
	// The delegated key: minted by identity for the flow, its creator the
	// member's key.
	if n := count(t, h, `SELECT count(*) FROM agent_credentials WHERE flow_id=$1 AND app_id='status'`, f.FlowID); n != 1 {
		t.Fatalf("%d delegated keys for the flow's status steps", n)
	}
	// A guest cannot save a flow that writes either.
	apptest.ExpectProblem(t, h.Do(t, "agent", http.MethodPost, "/api/flows", member.Key, flow), http.StatusForbidden, "permission_denied")
	// Deleting the flow revokes its key.
	setRole(t, h, h.OrgID, member.UserID, "member")
	call(t, h, http.MethodDelete, "/api/flows/"+f.FlowID, "", nil, http.StatusOK, nil)
	if n := count(t, h, `SELECT count(*) FROM agent_credentials WHERE flow_id=$1`, f.FlowID); n != 0 {
		t.Fatalf("a deleted flow keeps %d keys", n)
	}
}

// TestRetriedStepActsOnce: the status service acts on a step's call and
// its answer is lost (the connection drops); the attempt is unconfirmed,
// the kernel's probe sends the step again with the same Idempotency-Key,
// and the platform answers the first result: one incident, and the run
// goes on with its id.
func TestRetriedStepActsOnce(t *testing.T) {
	var target atomic.Value
	var dropped atomic.Int32
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u, _ := url.Parse(target.Load().(string))
		if r.Method == http.MethodPost && r.URL.Path == "/api/incidents" && dropped.Add(1) == 1 {
			// Deliver the call, drop its answer.
			rec := httptest.NewRecorder()
			httputil.NewSingleHostReverseProxy(u).ServeHTTP(rec, r)
			hj, ok := w.(http.Hijacker)
			if !ok {
				t.Error("no hijacker")
				return
			}
			conn, _, _ := hj.Hijack()
			conn.Close()
			return
		}
		httputil.NewSingleHostReverseProxy(u).ServeHTTP(w, r)
	}))
	defer proxy.Close()
	h := apptest.Start(t, apptest.Options{Configure: func(c *app.Config) {
		module.SectionOf[*agentmod.Config](c.Modules).ServiceURLs = map[string]string{"status": proxy.URL}
	}})
	target.Store(h.URLs["status"])
	flow := map[string]any{"name": "Once", "trigger": map[string]any{"type": "manual"}, "steps": []any{
		map[string]any{"service": "status", "action": "incidents.create", "input": map[string]any{"title": "Exactly once", "message": "m", "severity": "minor"}}}}
	var f flowOf
	call(t, h, http.MethodPost, "/api/flows", "", flow, http.StatusCreated, &f)
	var r run
	call(t, h, http.MethodPost, "/api/flows/"+f.FlowID+"/runs", "", map[string]any{}, http.StatusCreated, &r)
	r = waitRun(t, h, "", r.RunID, "the approval", func(r run) bool { return r.Status == "waiting" })
	call(t, h, http.MethodPost, "/api/approvals/"+r.Steps[0].WaitID+"/approve", "", map[string]any{}, http.StatusOK, nil)
	r = waitRun(t, h, "", r.RunID, "the step done after its lost answer", func(r run) bool { return r.Status == "succeeded" })
	if dropped.Load() < 2 {
		t.Fatalf("the step was sent %d times: its lost answer was never retried", dropped.Load())
	}
	if n := count(t, h, `SELECT count(*) FROM es_events WHERE event_type='status.incident.created' AND organization_id=$1`, h.OrgID); n != 1 {
		t.Fatalf("%d incidents opened, want 1", n)
	}
	if r.Steps[0].Attempts < 2 {
		t.Fatalf("step attempts %d, want a second attempt", r.Steps[0].Attempts)
	}
	var opened struct {
		IncidentID string `json:"incident_id"`
	}
	_ = json.Unmarshal(r.Steps[0].Output, &opened)
	if opened.IncidentID == "" {
		t.Fatalf("output %s", r.Steps[0].Output)
	}
}

// TestApprovalExpires: an approval nobody decides ends the run when its
// durable timer fires (expired); deciding it afterwards runs nothing.
func TestApprovalExpires(t *testing.T) {
	h := apptest.Start(t, apptest.Options{Configure: func(c *app.Config) {
		module.SectionOf[*agentmod.Config](c.Modules).Commands.ApprovalTTL = 2 * time.Second
	}})
	var f flowOf
	call(t, h, http.MethodPost, "/api/flows", "", threeSteps("Expiring"), http.StatusCreated, &f)
	var r run
	call(t, h, http.MethodPost, "/api/flows/"+f.FlowID+"/runs", "", map[string]any{"input": map[string]any{"title": "Late"}}, http.StatusCreated, &r)
	r = waitRun(t, h, "", r.RunID, "the run's expiry", func(r run) bool { return r.Status == "expired" })
	if r.Steps[1].Status != "expired" || r.Steps[1].Decision == nil || r.Steps[1].Decision.Kind != "expired" || r.Steps[2].Status != "pending" {
		t.Fatalf("expired run: %+v", r.Steps)
	}
	apptest.ExpectProblem(t, h.Do(t, "agent", http.MethodPost, "/api/approvals/"+r.Steps[1].WaitID+"/approve", "", map[string]any{}),
		http.StatusConflict, "approval_decided")
	if n := count(t, h, `SELECT count(*) FROM es_events WHERE event_type='status.incident.created' AND organization_id=$1`, h.OrgID); n != 0 {
		t.Fatalf("an expired approval opened %d incidents", n)
	}
}
