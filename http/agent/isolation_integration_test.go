package agent_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/platform/backend/internal/apptest"
)

// TestCrossTenantProbes: every route of the agent that names an id, called
// by another organization with this organization's ids, answers exactly as
// it does for an id that exists nowhere (404, the same problem), and changes
// nothing; filters by another organization's ids list nothing.
func TestCrossTenantProbes(t *testing.T) {
	h := apptest.Start(t, apptest.Options{})
	owner := newPerson(t, h, h.OrgID, "admin")
	_, other := h.NewOrganization(t, "Other", "other-probes", apptest.DefaultScopes...)

	// This organization's objects: a flow with a run waiting for an
	// approval, a task, a document, a persona, a profile with a source.
	var f, tf flowOf
	call(t, h, http.MethodPost, "/api/flows", "", threeSteps("Probe"), http.StatusCreated, &f)
	call(t, h, http.MethodPost, "/api/flows", "", map[string]any{"name": "Task", "trigger": map[string]any{"type": "manual"},
		"steps": []any{map[string]any{"kind": "task", "instructions": "Do it"}}}, http.StatusCreated, &tf)
	var r, tr run
	call(t, h, http.MethodPost, "/api/flows/"+f.FlowID+"/runs", "", map[string]any{"input": map[string]any{"title": "Probe"}}, http.StatusCreated, &r)
	call(t, h, http.MethodPost, "/api/flows/"+tf.FlowID+"/runs", "", map[string]any{}, http.StatusCreated, &tr)
	r = waitRun(t, h, "", r.RunID, "the approval", func(r run) bool { return r.Status == "waiting" })
	tr = waitRun(t, h, "", tr.RunID, "the task", func(r run) bool { return r.Status == "waiting" })
	doc := addDocument(t, h, "", "Doc", "https://x.example/doc", "Some content about refunds.")
	call(t, h, http.MethodPut, "/api/personas/support", "", map[string]any{"name": "Support"}, http.StatusOK, nil)
	var p profileOut
	call(t, h, http.MethodPost, "/api/person-profiles", owner.Session, map[string]any{"displayName": "Owner"}, http.StatusCreated, &p)
	var withSource struct {
		ProfileID string `json:"profileId"`
	}
	call(t, h, http.MethodPost, "/api/person-profiles/"+p.ProfileID+"/sources", owner.Session,
		map[string]any{"kind": "note", "title": "Note", "content": "Refunds matter."}, http.StatusCreated, &withSource)
	var sources struct {
		Sources []struct {
			SourceID string `json:"sourceId"`
		} `json:"sources"`
	}
	call(t, h, http.MethodGet, "/api/person-profiles/"+p.ProfileID+"/sources", owner.Session, nil, http.StatusOK, &sources)
	source := sources.Sources[0].SourceID

	missing := "01a2bbbb-0000-7000-8000-000000000001"
	ids := map[string]string{"{flowId}": f.FlowID, "{runId}": r.RunID, "{approvalId}": r.Steps[1].WaitID, "{taskId}": tr.Steps[0].WaitID,
		"{documentId}": doc, "{personaId}": "support", "{id}": p.ProfileID, "{sourceId}": source}
	probes := []struct {
		method, path string
		body         any
	}{
		{http.MethodGet, "/api/flows/{flowId}", nil},
		{http.MethodPatch, "/api/flows/{flowId}", map[string]any{"name": "Taken"}},
		{http.MethodDelete, "/api/flows/{flowId}", nil},
		{http.MethodPost, "/api/flows/{flowId}/pause", map[string]any{}},
		{http.MethodPost, "/api/flows/{flowId}/resume", map[string]any{}},
		{http.MethodPost, "/api/flows/{flowId}/runs", map[string]any{}},
		{http.MethodGet, "/api/runs/{runId}", nil},
		{http.MethodPost, "/api/runs/{runId}/cancel", map[string]any{}},
		{http.MethodPost, "/api/approvals/{approvalId}/approve", map[string]any{}},
		{http.MethodPost, "/api/approvals/{approvalId}/reject", map[string]any{}},
		{http.MethodPost, "/api/tasks/{taskId}/complete", map[string]any{}},
		{http.MethodGet, "/api/knowledge/documents/{documentId}", nil},
		{http.MethodPatch, "/api/knowledge/documents/{documentId}", map[string]any{"title": "Taken"}},
		{http.MethodDelete, "/api/knowledge/documents/{documentId}", nil},
		{http.MethodDelete, "/api/personas/{personaId}", nil},
		{http.MethodGet, "/api/person-profiles/{id}", nil},
		{http.MethodPatch, "/api/person-profiles/{id}", map[string]any{"headline": "Taken"}},
		{http.MethodDelete, "/api/person-profiles/{id}", nil},
		{http.MethodGet, "/api/person-profiles/{id}/sources", nil},
		{http.MethodPost, "/api/person-profiles/{id}/sources", map[string]any{"kind": "note", "title": "T", "content": "c"}},
		{http.MethodDelete, "/api/person-profiles/{id}/sources/{sourceId}", nil},
		{http.MethodGet, "/api/person-profiles/{id}/style-snapshots", nil},
		{http.MethodPost, "/api/person-profiles/{id}/style-snapshots", map[string]any{}},
		{http.MethodPost, "/api/person-profiles/{id}/preview", map[string]any{"topic": "refunds"}},
	}
	fill := func(path string, theirs bool) string {
		for k, v := range ids {
			if !theirs {
				if k == "{personaId}" {
					v = "nobody"
				} else {
					v = missing
				}
			}
			path = strings.ReplaceAll(path, k, v)
		}
		return path
	}
	before := count(t, h, `SELECT count(*) FROM es_events WHERE organization_id=$1`, h.OrgID)
	for _, pr := range probes {
		theirs := h.Do(t, "agent", pr.method, fill(pr.path, true), other, pr.body)
		none := h.Do(t, "agent", pr.method, fill(pr.path, false), other, pr.body)
		a := apptest.ExpectProblem(t, theirs, http.StatusNotFound, "not_found")
		b := apptest.ExpectProblem(t, none, http.StatusNotFound, "not_found")
		if a.Detail != b.Detail || a.Title != b.Title {
			t.Errorf("%s %s: another organization's id answers %q, a missing one %q", pr.method, pr.path, a.Detail, b.Detail)
		}
	}
	time.Sleep(200 * time.Millisecond)
	if after := count(t, h, `SELECT count(*) FROM es_events WHERE organization_id=$1`, h.OrgID); after != before {
		t.Fatalf("the probes wrote %d events in the organization", after-before)
	}
	var l struct {
		Runs []struct{} `json:"runs"`
	}
	call(t, h, http.MethodGet, "/api/runs?flowId="+f.FlowID, other, nil, http.StatusOK, &l)
	if len(l.Runs) != 0 {
		t.Fatalf("another organization lists %d runs of the flow", len(l.Runs))
	}
	// The objects are intact for their organization.
	r = waitRun(t, h, "", r.RunID, "the run", func(r run) bool { return true })
	if r.Status != "waiting" {
		t.Fatalf("the probed run is %s", r.Status)
	}
}
