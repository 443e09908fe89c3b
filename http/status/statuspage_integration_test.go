package status_test

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	httpapi "github.com/platform/backend/http"
	statushttp "github.com/platform/backend/http/status"
	"github.com/platform/backend/internal/apptest"
	"github.com/platform/backend/internal/schema"
	statusview "github.com/platform/backend/projections/status"
)

// statuspageSchema compiles one definition of the repo's Statuspage schema
// file (statuspage-v2.schema.json, written from Statuspage's public API
// documentation), read from disk: the test holds the answers to the
// document, not to the descriptors made from it.
func statuspageSchema(t *testing.T, def string) *jsonschema.Schema {
	t.Helper()
	raw, err := os.ReadFile("statuspage-v2.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	c := schema.NewCompiler()
	if err := c.AddResource("statuspage.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("statuspage.json#/$defs/" + def)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestStatuspageCompatibleAPI (issue 23): GET /api/v2/summary.json,
// status.json, incidents.json and scheduled-maintenances.json answer the
// public organization's page in Statuspage's shape, each validated against
// the schema file: components with their group (a group component listing
// its members), the open incident with its updates newest first and its
// component, the rollup from the most severe open incident, a resolved
// incident in incidents.json only, a scheduled window; nothing of the
// probes (check URL, host). Without a public organization every route is
// 404.
func TestStatuspageCompatibleAPI(t *testing.T) {
	h := apptest.Start(t, apptest.Options{})
	const checkURL = "https://probe.internal.example/health?token=s3cret"
	for _, c := range []struct{ id, name string }{{"db", "Database"}, {"api", "API"}} {
		apptest.Must(t, h.Do(t, "status", http.MethodPut, "/api/components/"+c.id, "", map[string]any{"componentHost": c.id + ".internal",
			"componentName": c.name, "componentGroup": "Core", "checkUrl": checkURL}), http.StatusOK, "component")
	}
	apptest.Must(t, h.Do(t, "status", http.MethodPut, "/api/components/web", "", map[string]any{"componentHost": "web.internal",
		"componentName": "Website", "checkUrl": checkURL}), http.StatusOK, "component")
	var open, gone struct {
		IncidentID string `json:"incident_id"`
	}
	res := h.Do(t, "status", http.MethodPost, "/api/incidents", "", map[string]any{"title": "Slow queries", "message": "Looking into it",
		"severity": "major", "componentHost": "db.internal", "componentName": "Database"})
	apptest.Must(t, res, http.StatusCreated, "incident")
	res.JSON(t, &open)
	apptest.Must(t, h.Do(t, "status", http.MethodPatch, "/api/incidents/"+open.IncidentID, "", map[string]any{"message": "Watching", "status": "monitoring"}),
		http.StatusOK, "update")
	res = h.Do(t, "status", http.MethodPost, "/api/incidents", "", map[string]any{"title": "Old one", "message": "x", "severity": "minor",
		"componentName": "Website"}) // a component without a group, listed with its position
	apptest.Must(t, res, http.StatusCreated, "incident")
	res.JSON(t, &gone)
	apptest.Must(t, h.Do(t, "status", http.MethodPatch, "/api/incidents/"+gone.IncidentID, "", map[string]any{"message": "Fixed", "status": "resolved"}),
		http.StatusOK, "resolve")
	start := time.Now().UTC().Add(24 * time.Hour).Truncate(time.Second)
	apptest.Must(t, h.Do(t, "status", http.MethodPost, "/api/maintenance", "", map[string]any{"title": "Upgrade", "message": "Read-only",
		"scheduledStart": start.Format(time.RFC3339), "scheduledEnd": start.Add(time.Hour).Format(time.RFC3339)}), http.StatusCreated, "maintenance")

	serve := func(org string) string {
		handler, err := httpapi.NewHandler(statushttp.Service(statushttp.Deps{Queries: apptest.Provided[*statusview.Queries](h), PublicOrganizationID: org}),
			httpapi.Deps{Limiter: httpapi.NewLimiter(h.Config.RateLimit), Reader: h.App.Reader, Log: slog.Default(), CheckOutput: true})
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(handler)
		t.Cleanup(srv.Close)
		return srv.URL
	}
	base := serve(h.OrgID)
	fetch := func(path string) (int, []byte) {
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, body
	}
	var summary struct {
		Page       struct{ ID, Name string }
		Components []struct {
			ID, Name, Status string
			Group            bool     `json:"group"`
			GroupID          *string  `json:"group_id"`
			Members          []string `json:"components"`
			Position         int      `json:"position"`
		}
		Incidents []struct {
			ID, Name, Status, Impact string
			MonitoringAt             *string                         `json:"monitoring_at"`
			Updates                  []struct{ Status, Body string } `json:"incident_updates"`
			Components               []struct{ Name string }         `json:"components"`
		}
		Maintenances []struct {
			Name, Status string
			For          string `json:"scheduled_for"`
		} `json:"scheduled_maintenances"`
		Status struct{ Indicator, Description string }
	}
	var body []byte
	apptest.Eventually(t, 15*time.Second, "the page in the read model", func() bool {
		var status int
		status, body = fetch("/api/v2/summary.json")
		summary.Incidents, summary.Maintenances, summary.Components = nil, nil, nil
		_ = json.Unmarshal(body, &summary)
		return status == http.StatusOK && len(summary.Components) == 4 && len(summary.Incidents) == 1 &&
			len(summary.Incidents[0].Updates) == 2 && len(summary.Maintenances) == 1
	})
	if problems := schema.Validate(statuspageSchema(t, "summary"), body); len(problems) > 0 {
		t.Fatalf("summary.json does not match the Statuspage schema: %+v\n%s", problems, body)
	}
	for _, hidden := range []string{"probe.internal", "s3cret", ".internal", h.OrgID} {
		if strings.Contains(string(body), hidden) {
			t.Fatalf("summary.json shows %q: %s", hidden, body)
		}
	}
	// The page's order: components without a group first, then each group
	// followed by its members.
	core := summary.Components[1]
	if summary.Components[0].Name != "Website" || summary.Components[0].GroupID != nil || !core.Group || core.Name != "Core" ||
		len(core.Members) != 2 || core.Position != 2 || summary.Components[2].GroupID == nil || *summary.Components[2].GroupID != core.ID ||
		summary.Components[3].Position != 4 {
		t.Fatalf("components %+v", summary.Components)
	}
	inc := summary.Incidents[0]
	if inc.ID != open.IncidentID || inc.Status != "monitoring" || inc.Impact != "major" || inc.MonitoringAt == nil ||
		inc.Updates[0].Status != "monitoring" || inc.Updates[0].Body != "Watching" || len(inc.Components) != 1 || inc.Components[0].Name != "Database" {
		t.Fatalf("incident %+v", inc)
	}
	if summary.Status.Indicator != "major" || summary.Status.Description != "Partial System Outage" ||
		summary.Maintenances[0].Status != "scheduled" || summary.Maintenances[0].Name != "Upgrade" {
		t.Fatalf("summary %s", body)
	}

	for path, def := range map[string]string{"/api/v2/status.json": "statusDocument", "/api/v2/incidents.json": "incidentsDocument",
		"/api/v2/scheduled-maintenances.json": "scheduledMaintenancesDocument"} {
		status, body := fetch(path)
		if status != http.StatusOK {
			t.Fatalf("%s: %d %s", path, status, body)
		}
		if problems := schema.Validate(statuspageSchema(t, def), body); len(problems) > 0 {
			t.Fatalf("%s does not match the Statuspage schema: %+v\n%s", path, problems, body)
		}
		if path == "/api/v2/incidents.json" && (!strings.Contains(string(body), gone.IncidentID) || !strings.Contains(string(body), `"resolved_at":"`)) {
			t.Fatalf("incidents.json lacks the resolved incident: %s", body)
		}
	}

	// No public organization: 404, like the page.
	resp, err := http.Get(serve("") + "/api/v2/status.json")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("without a public organization: %d", resp.StatusCode)
	}
}
