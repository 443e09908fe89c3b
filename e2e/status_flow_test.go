package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

type incident struct {
	IncidentID string `json:"incident_id"`
	Title      string `json:"title"`
	Message    string `json:"message"`
	Severity   string `json:"severity"`
	Status     string `json:"status"`
	Revision   int    `json:"revision"`
}

type maintenance struct {
	MaintenanceID string `json:"maintenance_id"`
	Status        string `json:"status"`
	Revision      int    `json:"revision"`
}

// publicComponent is a component as the public status page shows it: no
// check URL, host, HTTP status or failure count.
type publicComponent struct {
	Name      string     `json:"component_name"`
	Status    string     `json:"status"`
	UpdatedAt *time.Time `json:"updated_at"`
}

type historyEntry struct {
	EventID        string `json:"event_id"`
	OrganizationID string `json:"organization_id"`
	StreamID       string `json:"stream_id"`
	StreamVersion  int64  `json:"stream_version"`
	Type           string `json:"type"`
	ActorID        string `json:"actor_id"`
	ActorType      string `json:"actor_type"`
	CorrelationID  string `json:"correlation_id"`
}

// TestStatusFlowsOverHTTP drives the status service through its whole life
// cycle over HTTP and the command line, as a client would.
func TestStatusFlowsOverHTTP(t *testing.T) {
	s := NewStack(t)
	srv := s.StartServer(ServerOptions{})
	status, ops := srv.URL("status"), srv.URL("ops")
	key := s.APIKey

	// --- Incident life cycle: investigating (1) -> identified (2) -> monitoring (3) -> resolved (4).
	res := expect(t, "create incident", do(t, Req{Method: http.MethodPost, URL: status + "/api/incidents", Key: key,
		Headers: map[string]string{"X-Request-Id": "e2e-incident-rev-1"},
		Body:    map[string]any{"title": "API errors", "message": "Investigating elevated 5xx", "severity": "major"}}), http.StatusCreated)
	var inc incident
	res.Decode(t, &inc)
	if inc.IncidentID == "" || inc.Revision != 1 || inc.Status != "investigating" {
		t.Fatalf("create incident: %s", res)
	}
	if pos := res.Header.Get("X-Platform-Position"); pos != inc.IncidentID+"@1" {
		t.Fatalf("create incident: X-Platform-Position %q, want %s@1", pos, inc.IncidentID)
	}
	var lastPos string
	for i, step := range []string{"identified", "monitoring", "resolved"} {
		res := expect(t, "update incident to "+step, do(t, Req{Method: http.MethodPatch, URL: status + "/api/incidents/" + inc.IncidentID, Key: key,
			Headers: map[string]string{"X-Request-Id": fmt.Sprintf("e2e-incident-rev-%d", i+2)},
			Body:    map[string]any{"status": step, "message": "Now " + step}}), http.StatusOK)
		var got incident
		res.Decode(t, &got)
		if got.Revision != i+2 || got.Status != step {
			t.Fatalf("update incident to %s: %s, want revision %d", step, res, i+2)
		}
		lastPos = res.Header.Get("X-Platform-Position")
		if lastPos != fmt.Sprintf("%s@%d", inc.IncidentID, i+2) {
			t.Fatalf("update incident: X-Platform-Position %q", lastPos)
		}
	}
	expectProblem(t, "update of a resolved incident", do(t, Req{Method: http.MethodPatch, URL: status + "/api/incidents/" + inc.IncidentID,
		Key: key, Body: map[string]any{"status": "monitoring", "message": "again"}}), http.StatusConflict, "incident_resolved")

	// An incident that stays open, for the status page.
	res = expect(t, "create open incident", do(t, Req{Method: http.MethodPost, URL: status + "/api/incidents", Key: key,
		Body: map[string]any{"title": "Slow dashboard", "message": "Looking into it", "severity": "minor"}}), http.StatusCreated)
	var open incident
	res.Decode(t, &open)

	// --- Maintenance: scheduled (1) -> in_progress (2) -> completed (3).
	start := time.Now().Add(time.Hour).UTC().Truncate(time.Second)
	res = expect(t, "schedule maintenance", do(t, Req{Method: http.MethodPost, URL: status + "/api/maintenance", Key: key,
		Body: map[string]any{"title": "Database upgrade", "message": "Short read-only window",
			"scheduledStart": start.Format(time.RFC3339), "scheduledEnd": start.Add(time.Hour).Format(time.RFC3339)}}), http.StatusCreated)
	var mnt maintenance
	res.Decode(t, &mnt)
	if mnt.MaintenanceID == "" || mnt.Revision != 1 || mnt.Status != "scheduled" {
		t.Fatalf("schedule maintenance: %s", res)
	}
	for i, step := range []string{"in_progress", "completed"} {
		res := expect(t, "maintenance "+step, do(t, Req{Method: http.MethodPatch, URL: status + "/api/maintenance/" + mnt.MaintenanceID, Key: key,
			Body: map[string]any{"status": step}}), http.StatusOK)
		var got maintenance
		res.Decode(t, &got)
		if got.Revision != i+2 || got.Status != step {
			t.Fatalf("maintenance %s: %s, want revision %d", step, res, i+2)
		}
	}
	expectProblem(t, "complete a completed maintenance", do(t, Req{Method: http.MethodPatch, URL: status + "/api/maintenance/" + mnt.MaintenanceID,
		Key: key, Body: map[string]any{"status": "completed"}}), http.StatusConflict, "invalid_transition")
	res = expect(t, "schedule upcoming maintenance", do(t, Req{Method: http.MethodPost, URL: status + "/api/maintenance", Key: key,
		Body: map[string]any{"title": "Network maintenance", "message": "Router firmware",
			"scheduledStart": start.Add(24 * time.Hour).Format(time.RFC3339), "scheduledEnd": start.Add(25 * time.Hour).Format(time.RFC3339)}}),
		http.StatusCreated)
	var upcoming maintenance
	res.Decode(t, &upcoming)

	// --- Component checks against a surface this test controls.
	var answer atomic.Int32
	answer.Store(http.StatusInternalServerError)
	var hits atomic.Int32
	surface := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		w.WriteHeader(int(answer.Load()))
	}))
	defer surface.Close()
	res = expect(t, "register component", do(t, Req{Method: http.MethodPut, URL: status + "/api/components/api", Key: key,
		Body: map[string]any{"componentHost": "api.e2e.example", "componentName": "API", "checkUrl": surface.URL + "/health"}}), http.StatusOK)
	// /poll reads the components of the read model: wait for the registration
	// (with the key: a public caller's position waits for no tenant's stream).
	expect(t, "widget after registration", do(t, Req{Method: http.MethodGet, URL: status + "/api/widget", Key: key,
		Headers: map[string]string{"X-Platform-Min-Position": res.Header.Get("X-Platform-Position")}}), http.StatusOK)
	poll := func(wantStatus string, wantFails int) {
		t.Helper()
		res := expect(t, "poll", do(t, Req{Method: http.MethodPost, URL: status + "/poll", Key: key}), http.StatusOK)
		var out struct {
			Polled  int `json:"polled"`
			Results []struct {
				ComponentID      string `json:"component_id"`
				HTTPStatus       int    `json:"http_status"`
				Status           string `json:"status"`
				ConsecutiveFails int    `json:"consecutive_fails"`
			} `json:"results"`
		}
		res.Decode(t, &out)
		if out.Polled != 1 || len(out.Results) != 1 {
			t.Fatalf("poll: %s", res)
		}
		r := out.Results[0]
		if r.ComponentID != "api" || r.Status != wantStatus || r.ConsecutiveFails != wantFails || r.HTTPStatus != int(answer.Load()) {
			t.Fatalf("poll: %s, want status %s with %d consecutive fails", res, wantStatus, wantFails)
		}
	}
	poll("operational", 1)
	poll("operational", 2)
	poll("degraded", 3)
	answer.Store(http.StatusOK)
	poll("operational", 0)
	if n := hits.Load(); n != 4 {
		t.Errorf("the surface was checked %d times, want 4", n)
	}

	// --- Public status page: no credential.
	var page struct {
		Status       string            `json:"status"`
		Components   []publicComponent `json:"components"`
		Incidents    []incident        `json:"incidents"`
		Maintenances []maintenance     `json:"maintenances"`
	}
	eventually(t, 15*time.Second, "the status page to show the final state", func() error {
		res := do(t, Req{Method: http.MethodGet, URL: status + "/api/status"})
		if res.Status != http.StatusOK {
			return fmt.Errorf("%s", res)
		}
		page.Components, page.Incidents, page.Maintenances = nil, nil, nil
		res.Decode(t, &page)
		if len(page.Components) != 1 || page.Components[0].Name != "API" || page.Components[0].Status != "operational" ||
			page.Components[0].UpdatedAt == nil {
			return fmt.Errorf("components: %s", res)
		}
		if strings.Contains(res.String(), "check_url") || strings.Contains(res.String(), "last_http_status") {
			return fmt.Errorf("the public page shows the probe: %s", res)
		}
		if len(page.Incidents) != 1 || page.Incidents[0].IncidentID != open.IncidentID {
			return fmt.Errorf("open incidents (want only %s): %s", open.IncidentID, res)
		}
		if len(page.Maintenances) != 1 || page.Maintenances[0].MaintenanceID != upcoming.MaintenanceID || page.Maintenances[0].Status != "scheduled" {
			return fmt.Errorf("maintenances (want only %s): %s", upcoming.MaintenanceID, res)
		}
		return nil
	})
	if page.Status != "degraded" {
		t.Errorf("status page status %q, want degraded (one open minor incident)", page.Status)
	}

	// --- Widget: the caller's organization, with the key only.
	expectProblem(t, "widget without a credential", do(t, Req{Method: http.MethodGet, URL: status + "/api/widget"}), http.StatusUnauthorized, "authentication_required")
	res = expect(t, "widget", do(t, Req{Method: http.MethodGet, URL: status + "/api/widget", Key: key}), http.StatusOK)
	var widget struct {
		Success bool `json:"success"`
		Widgets []struct {
			AppID                string `json:"appId"`
			Status               string `json:"status"`
			OpenIncidents        int    `json:"open_incidents"`
			DegradedComponents   int    `json:"degraded_components"`
			UpcomingMaintenances int    `json:"upcoming_maintenances"`
		} `json:"widgets"`
	}
	res.Decode(t, &widget)
	if len(widget.Widgets) != 1 {
		t.Fatalf("widget: %s", res)
	}
	if w := widget.Widgets[0]; !widget.Success || w.AppID != "status" || w.OpenIncidents != 1 || w.DegradedComponents != 0 ||
		w.UpcomingMaintenances != 1 || w.Status != page.Status {
		t.Errorf("widget: %s", res)
	}

	// --- Audit history of the first incident, oldest first.
	res = expect(t, "history", do(t, Req{Method: http.MethodGet, URL: ops + "/api/history?streamId=" + inc.IncidentID, Key: key,
		Headers: map[string]string{"X-Platform-Min-Position": lastPos}}), http.StatusOK)
	var hist struct {
		Events []historyEntry `json:"events"`
	}
	res.Decode(t, &hist)
	wantTypes := []string{"status.incident.created", "status.incident.updated", "status.incident.updated", "status.incident.resolved"}
	if len(hist.Events) != len(wantTypes) {
		t.Fatalf("history of %s: %d events, want %d: %s", inc.IncidentID, len(hist.Events), len(wantTypes), res)
	}
	for i, e := range hist.Events {
		if e.Type != wantTypes[i] || e.StreamVersion != int64(i+1) || e.StreamID != inc.IncidentID || e.OrganizationID != s.OrgID {
			t.Errorf("history event %d: %+v, want %s version %d", i, e, wantTypes[i], i+1)
		}
		if e.ActorID != s.KeyID || e.ActorType != "api_key" {
			t.Errorf("history event %d: actor %s/%s, want the bootstrap key %s/api_key", i, e.ActorID, e.ActorType, s.KeyID)
		}
		if want := fmt.Sprintf("e2e-incident-rev-%d", i+1); e.CorrelationID != want {
			t.Errorf("history event %d: correlation id %q, want the request id %q", i, e.CorrelationID, want)
		}
	}

	// --- platformctl: actions list.
	out, errOut, err := srv.Ctl("actions", "list")
	if err != nil {
		t.Fatalf("platformctl actions list: %v\n%s", err, errOut)
	}
	for _, a := range []string{"incidents.create", "incidents.update", "incidents.list", "maintenance.schedule", "maintenance.update",
		"components.upsert", "status.get", "status.poll", "widget.get"} {
		if !containsLine(out, "status", a) {
			t.Errorf("platformctl actions list does not show status action %s:\n%s", a, out)
		}
	}

	// --- platformctl: a state-changing call needs --confirm, and without it changes nothing.
	incidentEvents := func() int64 {
		return queryInt(t, s.Pool(), `SELECT count(*) FROM es_events WHERE stream_type='status.incident'`)
	}
	before := incidentEvents()
	input := `{"title":"CLI incident","message":"Opened from platformctl","severity":"critical"}`
	out, errOut, err = srv.Ctl("actions", "call", "incidents.create", input)
	if err == nil {
		t.Fatalf("platformctl actions call without --confirm succeeded: %s", out)
	}
	if !strings.Contains(errOut, "confirmation") || !strings.Contains(errOut, "--confirm") {
		t.Errorf("platformctl actions call without --confirm: stderr %q does not explain the confirmation", errOut)
	}
	if n := incidentEvents(); n != before {
		t.Fatalf("a call without --confirm appended %d incident events", n-before)
	}
	out, errOut, err = srv.Ctl("actions", "call", "incidents.create", input, "--confirm")
	if err != nil {
		t.Fatalf("platformctl actions call --confirm: %v\n%s\n%s", err, out, errOut)
	}
	var cli incident
	if err := json.Unmarshal([]byte(out), &cli); err != nil || cli.IncidentID == "" || cli.Revision != 1 || cli.Severity != "critical" {
		t.Fatalf("platformctl actions call --confirm printed %q (%v)", out, err)
	}
	if n := incidentEvents(); n != before+1 {
		t.Fatalf("a confirmed call appended %d incident events, want 1", n-before)
	}

	// --- platformctl: validate reports the failing members as JSON pointers.
	out, errOut, err = srv.Ctl("actions", "validate", "incidents.create", `{"title":""}`)
	if err == nil {
		t.Fatalf("platformctl actions validate of an invalid input succeeded: %s", out)
	}
	for _, p := range []string{"/title", "/message", "/severity"} {
		if !strings.Contains(errOut, p) {
			t.Errorf("platformctl actions validate: %q does not name %s", errOut, p)
		}
	}
	if out, errOut, err := srv.Ctl("actions", "validate", "incidents.create", input); err != nil || strings.TrimSpace(out) != "valid" {
		t.Errorf("platformctl actions validate of a valid input: %q %q %v", out, errOut, err)
	}

	// --- platformctl: history of one stream (--json: one event per line, for scripts).
	out, errOut, err = srv.Ctl("history", "--json", "--stream", inc.IncidentID)
	if err != nil {
		t.Fatalf("platformctl history: %v\n%s", err, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != len(wantTypes) {
		t.Fatalf("platformctl history --stream printed %d lines, want %d:\n%s", len(lines), len(wantTypes), out)
	}
	for i, l := range lines {
		var e historyEntry
		if err := json.Unmarshal([]byte(l), &e); err != nil || e.StreamID != inc.IncidentID || e.Type != wantTypes[i] || e.StreamVersion != int64(i+1) {
			t.Errorf("platformctl history line %d: %s (%v)", i, l, err)
		}
	}

	// --- platformctl replay: generation 2 serves the same answers.
	listAll := func() []byte {
		t.Helper()
		return expect(t, "list incidents", do(t, Req{Method: http.MethodGet, URL: status + "/api/incidents?status=all&limit=200", Key: key}), http.StatusOK).Body
	}
	var listBefore []byte
	eventually(t, 15*time.Second, "the CLI incident in the read model", func() error {
		listBefore = listAll()
		var l struct{ Incidents []incident }
		if err := json.Unmarshal(listBefore, &l); err != nil {
			return err
		}
		if len(l.Incidents) != 3 || !slices.ContainsFunc(l.Incidents, func(i incident) bool { return i.IncidentID == cli.IncidentID }) {
			return fmt.Errorf("%s", listBefore)
		}
		return nil
	})
	replayStart := time.Now()
	out, errOut, err = srv.Ctl("replay", "status")
	if err != nil {
		t.Fatalf("platformctl replay status: %v\n%s\n%s", err, out, errOut)
	}
	t.Logf("platformctl replay status took %s", time.Since(replayStart).Round(time.Millisecond))
	if last := lastLine(out); last != "generation 2 of status is active" {
		t.Fatalf("platformctl replay status ended with %q:\n%s", last, out)
	}
	res = expect(t, "projections", do(t, Req{Method: http.MethodGet, URL: ops + "/api/projections", Key: key}), http.StatusOK)
	var gens struct {
		Generations []struct {
			Projection string
			Generation int
			State      string
		} `json:"generations"`
	}
	res.Decode(t, &gens)
	states := map[int]string{}
	for _, g := range gens.Generations {
		if g.Projection == "status" {
			states[g.Generation] = g.State
		}
	}
	if !reflect.DeepEqual(states, map[int]string{1: "retired", 2: "active"}) {
		t.Errorf("status generations after replay: %v (%s)", states, res)
	}
	if after := listAll(); !jsonEqual(listBefore, after) {
		t.Errorf("GET /api/incidents differs after the replay:\nbefore %s\nafter  %s", listBefore, after)
	}
	// The rebuilt generation also serves the status page the same way.
	res = expect(t, "status page after replay", do(t, Req{Method: http.MethodGet, URL: status + "/api/status"}), http.StatusOK)
	var pageAfter struct {
		Components []publicComponent `json:"components"`
		Incidents  []incident        `json:"incidents"`
	}
	res.Decode(t, &pageAfter)
	if len(pageAfter.Components) != 1 || pageAfter.Components[0].Status != "operational" || len(pageAfter.Incidents) != 2 {
		t.Errorf("status page after replay: %s", res)
	}
}

// containsLine reports whether a line of a table holds every word.
func containsLine(table string, words ...string) bool {
	for _, l := range strings.Split(table, "\n") {
		fields := strings.Fields(l)
		ok := true
		for _, w := range words {
			if !slices.Contains(fields, w) {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

func jsonEqual(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}
