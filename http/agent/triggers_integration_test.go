package agent_test

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/platform/backend/internal/apptest"
)

type runList struct {
	Runs []struct {
		RunID   string `json:"runId"`
		Status  string `json:"status"`
		Trigger struct {
			Type      string          `json:"type"`
			EventType string          `json:"eventType"`
			Data      json.RawMessage `json:"data"`
		} `json:"trigger"`
	} `json:"runs"`
}

func runsOf(t *testing.T, h *apptest.Harness, token, flowID string) runList {
	t.Helper()
	var l runList
	call(t, h, http.MethodGet, "/api/runs?flowId="+flowID, token, nil, http.StatusOK, &l)
	return l
}

// TestEventTrigger: a flow triggered by status.incident.created runs once
// per incident opened after it was saved, with the event's payload as
// /trigger/data; an incident opened before it, or in another organization,
// starts nothing. A flow triggered by status.incident.updated whose own
// step updates the incident does not start itself again.
func TestEventTrigger(t *testing.T) {
	h := apptest.Start(t, apptest.Options{})
	before, _ := h.CreateIncident(t, "")
	flow := map[string]any{"name": "On incident", "trigger": map[string]any{"type": "event", "eventType": "status.incident.created"},
		"steps": []any{map[string]any{"service": "status", "action": "incidents.list",
			"input": map[string]any{"incidentId": map[string]any{"$from": "/trigger/data/incident_id"}}}}}
	var f flowOf
	call(t, h, http.MethodPost, "/api/flows", "", flow, http.StatusCreated, &f)
	otherOrg, otherKey := h.NewOrganization(t, "Other", "other-trigger", apptest.DefaultScopes...)
	_ = otherOrg
	h.CreateIncident(t, otherKey)
	after, _ := h.CreateIncident(t, "")
	var l runList
	apptest.Eventually(t, 60*time.Second, "the event-triggered run", func() bool {
		l = runsOf(t, h, "", f.FlowID)
		return len(l.Runs) == 1 && l.Runs[0].Status == "succeeded"
	})
	var data struct {
		IncidentID string `json:"incident_id"`
	}
	_ = json.Unmarshal(l.Runs[0].Trigger.Data, &data)
	if l.Runs[0].Trigger.Type != "event" || l.Runs[0].Trigger.EventType != "status.incident.created" || data.IncidentID != after {
		t.Fatalf("trigger %+v (incident before %s, after %s)", l.Runs[0].Trigger, before, after)
	}

	// A flow never starts itself: its step's update is correlated to its run.
	selfish := map[string]any{"name": "On update", "trigger": map[string]any{"type": "event", "eventType": "status.incident.updated"},
		"steps": []any{map[string]any{"service": "status", "action": "incidents.update",
			"input": map[string]any{"incidentId": map[string]any{"$from": "/trigger/data/incident_id"}, "message": "Flow's update"}}}}
	var sf flowOf
	call(t, h, http.MethodPost, "/api/flows", "", selfish, http.StatusCreated, &sf)
	call(t, h, http.MethodDelete, "/api/flows/"+f.FlowID, "", nil, http.StatusOK, nil)
	apptest.Must(t, h.Do(t, "status", http.MethodPatch, "/api/incidents/"+after, "", map[string]any{"message": "A person's update"}),
		http.StatusOK, "update")
	var first string
	apptest.Eventually(t, 60*time.Second, "the update's run waiting for its approval", func() bool {
		l = runsOf(t, h, "", sf.FlowID)
		if len(l.Runs) == 1 && l.Runs[0].Status == "waiting" {
			first = l.Runs[0].RunID
			return true
		}
		return false
	})
	r := waitRun(t, h, "", first, "the approval", func(r run) bool { return r.Steps[0].WaitID != "" })
	call(t, h, http.MethodPost, "/api/approvals/"+r.Steps[0].WaitID+"/approve", "", map[string]any{}, http.StatusOK, nil)
	waitRun(t, h, "", first, "the flow's own update", func(r run) bool { return r.Status == "succeeded" })
	// The step's update is an incident.updated event the reactor reads.
	if n := count(t, h, `SELECT count(*) FROM es_events WHERE event_type='status.incident.updated' AND correlation_id LIKE $1`,
		"agent.flow."+sf.FlowID+".run."+first+".%"); n != 1 {
		t.Fatalf("%d updates correlated to the run, want 1", n)
	}
	time.Sleep(3 * time.Second) // a run it started would show now
	if l = runsOf(t, h, "", sf.FlowID); len(l.Runs) != 1 {
		t.Fatalf("the flow started %d runs, want 1 (it must not start itself)", len(l.Runs))
	}
}

// TestScheduleTrigger: a scheduled flow runs at its start time on a durable
// timer, and its next run moves one period on.
func TestScheduleTrigger(t *testing.T) {
	h := apptest.Start(t, apptest.Options{})
	start := time.Now().Add(2 * time.Second).UTC()
	flow := map[string]any{"name": "Every five", "trigger": map[string]any{"type": "schedule", "everyMinutes": 5,
		"startAt": start.Format(time.RFC3339Nano)},
		"steps": []any{map[string]any{"service": "status", "action": "incidents.list", "input": map[string]any{"status": "open"}}}}
	var f struct {
		FlowID    string     `json:"flowId"`
		NextRunAt *time.Time `json:"nextRunAt"`
	}
	call(t, h, http.MethodPost, "/api/flows", "", flow, http.StatusCreated, &f)
	if f.NextRunAt == nil || f.NextRunAt.Sub(start).Abs() > time.Millisecond {
		t.Fatalf("next run %v, want %v", f.NextRunAt, start)
	}
	var l runList
	apptest.Eventually(t, 60*time.Second, "the scheduled run", func() bool {
		l = runsOf(t, h, "", f.FlowID)
		return len(l.Runs) == 1 && l.Runs[0].Status == "succeeded"
	})
	if l.Runs[0].Trigger.Type != "schedule" {
		t.Fatalf("trigger %+v", l.Runs[0].Trigger)
	}
	apptest.Eventually(t, 20*time.Second, "the next slot", func() bool {
		var g struct {
			NextRunAt *time.Time `json:"nextRunAt"`
		}
		call(t, h, http.MethodGet, "/api/flows/"+f.FlowID, "", nil, http.StatusOK, &g)
		return g.NextRunAt != nil && g.NextRunAt.Sub(start.Add(5*time.Minute)).Abs() < time.Millisecond
	})
	// Paused, it has no next run.
	var g struct {
		State     string     `json:"state"`
		NextRunAt *time.Time `json:"nextRunAt"`
	}
	call(t, h, http.MethodPost, "/api/flows/"+f.FlowID+"/pause", "", map[string]any{}, http.StatusOK, &g)
	if g.State != "paused" || g.NextRunAt != nil {
		t.Fatalf("paused flow %+v", g)
	}
	apptest.ExpectProblem(t, h.Do(t, "agent", http.MethodPost, "/api/flows/"+f.FlowID+"/runs", "", map[string]any{}), http.StatusConflict, "flow_paused")
}

// TestCrossOrganizationRefused: a step acting in another organization is
// refused (403 cross_organization_refused, naming the member), the refusal
// recorded on the organization's policy stream and listed.
func TestCrossOrganizationRefused(t *testing.T) {
	h := apptest.Start(t, apptest.Options{})
	other, _ := h.NewOrganization(t, "Other", "other-policy", apptest.DefaultScopes...)
	flow := map[string]any{"name": "Reach out", "trigger": map[string]any{"type": "manual"}, "steps": []any{
		map[string]any{"service": "status", "action": "incidents.list", "input": map[string]any{}},
		map[string]any{"service": "status", "action": "incidents.list", "input": map[string]any{}, "organizationId": other}}}
	p := apptest.ExpectProblem(t, h.Do(t, "agent", http.MethodPost, "/api/flows", "", flow), http.StatusForbidden, "cross_organization_refused")
	if len(p.Errors) != 1 || p.Errors[0].Pointer != "/steps/1/organizationId" {
		t.Fatalf("problem %+v", p)
	}
	if n := count(t, h, `SELECT count(*) FROM es_events WHERE event_type='agent.policy.cross_organization_refused' AND organization_id=$1
		AND payload->>'target_organization_id'=$2`, h.OrgID, other); n != 1 {
		t.Fatalf("%d refusals recorded, want 1", n)
	}
	if n := count(t, h, `SELECT count(*) FROM es_events WHERE event_type='agent.flow.created' AND organization_id=$1`, h.OrgID); n != 0 {
		t.Fatalf("the refused flow was saved")
	}
	var l struct {
		Refusals []struct {
			TargetOrganizationID string `json:"targetOrganizationId"`
			Action               string `json:"action"`
			Step                 int    `json:"step"`
		} `json:"refusals"`
	}
	apptest.Eventually(t, 15*time.Second, "the refusal listed", func() bool {
		call(t, h, http.MethodGet, "/api/policy-refusals", "", nil, http.StatusOK, &l)
		return len(l.Refusals) == 1
	})
	if l.Refusals[0].TargetOrganizationID != other || l.Refusals[0].Step != 1 || l.Refusals[0].Action != "status.incidents.list" {
		t.Fatalf("refusal %+v", l.Refusals[0])
	}
	// The other organization sees none of it.
	_, otherKey := h.NewOrganization(t, "Third", "third-policy", apptest.DefaultScopes...)
	call(t, h, http.MethodGet, "/api/policy-refusals", otherKey, nil, http.StatusOK, &l)
	if len(l.Refusals) != 0 {
		t.Fatalf("another organization sees %d refusals", len(l.Refusals))
	}
}

// TestWidgetAndActionItems: the tile counts active flows, open tasks,
// pending approvals and today's runs; the dashboard's action queue lists
// the pending approval and the open task, each linking to where it is
// resolved.
func TestWidgetAndActionItems(t *testing.T) {
	h := apptest.Start(t, apptest.Options{})
	var f, task flowOf
	call(t, h, http.MethodPost, "/api/flows", "", threeSteps("Tile"), http.StatusCreated, &f)
	call(t, h, http.MethodPost, "/api/flows", "", map[string]any{"name": "Ask", "trigger": map[string]any{"type": "manual"},
		"steps": []any{map[string]any{"kind": "task", "instructions": "Write the customer"}}}, http.StatusCreated, &task)
	var r, tr run
	call(t, h, http.MethodPost, "/api/flows/"+f.FlowID+"/runs", "", map[string]any{"input": map[string]any{"title": "T"}}, http.StatusCreated, &r)
	call(t, h, http.MethodPost, "/api/flows/"+task.FlowID+"/runs", "", map[string]any{}, http.StatusCreated, &tr)
	waitRun(t, h, "", r.RunID, "the approval", func(r run) bool { return r.Status == "waiting" })
	var w struct {
		Success bool `json:"success"`
		Widgets []struct {
			AppID            string `json:"appId"`
			ActiveFlows      int    `json:"activeFlows"`
			PendingTasks     int    `json:"pendingTasks"`
			PendingApprovals int    `json:"pendingApprovals"`
			RunsToday        int    `json:"runsToday"`
		} `json:"widgets"`
	}
	apptest.Eventually(t, 15*time.Second, "the tile's figures", func() bool {
		call(t, h, http.MethodGet, "/api/widget", "", nil, http.StatusOK, &w)
		x := w.Widgets[0]
		return x.AppID == "agent" && x.ActiveFlows == 2 && x.PendingTasks == 1 && x.PendingApprovals == 1 && x.RunsToday == 2
	})
	var q struct {
		Items []struct {
			Kind, ObjectID, URL string
		} `json:"items"`
	}
	res := h.Do(t, "dashboard", http.MethodGet, "/api/action-items", "", nil)
	apptest.Must(t, res, http.StatusOK, "action items")
	res.JSON(t, &q)
	kinds := map[string]bool{}
	for _, it := range q.Items {
		kinds[it.Kind] = true
	}
	if !kinds["agent.approval.pending"] || !kinds["agent.task.open"] {
		t.Fatalf("action items %+v", q.Items)
	}
	// The task completed with its output, the run is done.
	var tasks struct {
		Items []struct {
			ID string `json:"id"`
		} `json:"items"`
	}
	call(t, h, http.MethodGet, "/api/tasks?state=open", "", nil, http.StatusOK, &tasks)
	if len(tasks.Items) != 1 {
		t.Fatalf("open tasks %+v", tasks.Items)
	}
	call(t, h, http.MethodPost, "/api/tasks/"+tasks.Items[0].ID+"/complete", "", map[string]any{"output": map[string]any{"sent": true}},
		http.StatusOK, &tr)
	if tr.Status != "succeeded" || string(tr.Steps[0].Output) != `{"sent":true}` {
		t.Fatalf("completed task's run %s %s", tr.Status, tr.Steps[0].Output)
	}
}
