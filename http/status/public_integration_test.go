package status_test

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	httpapi "github.com/platform/backend/http"
	statushttp "github.com/platform/backend/http/status"
	"github.com/platform/backend/internal/apptest"
	"github.com/platform/backend/internal/schema"
	statusview "github.com/platform/backend/projections/status"
)

// TestPublicStatusPageDisclosesNoProbe: the public GET /api/status shows
// what a status page shows (component name, group, state, last check; open
// incidents by component name) and nothing of the probes behind it (check
// URL, host, last HTTP status, failure count); its answer matches its
// published output schema. The authenticated routes keep what they need.
func TestPublicStatusPageDisclosesNoProbe(t *testing.T) {
	h := apptest.Start(t, apptest.Options{})
	const checkURL = "https://probe.internal.example/health?token=s3cret"
	res := h.Do(t, "status", http.MethodPut, "/api/components/db", "", map[string]any{"componentHost": "db-primary.internal",
		"componentName": "Database", "componentGroup": "Core", "checkUrl": checkURL})
	apptest.Must(t, res, http.StatusOK, "register component")
	res = h.Do(t, "status", http.MethodPost, "/api/incidents", "", map[string]any{"title": "Slow queries", "message": "Looking into it",
		"severity": "minor", "componentHost": "db-primary.internal", "componentName": "Database"})
	apptest.Must(t, res, http.StatusCreated, "create incident")
	var inc struct {
		IncidentID string `json:"incident_id"`
	}
	res.JSON(t, &inc)
	// The organization's own (authenticated) reads keep the operator's view.
	list := h.Do(t, "status", http.MethodGet, "/api/incidents?incidentId="+inc.IncidentID, "", nil,
		httpapi.HeaderMinPosition, res.Header.Get(httpapi.HeaderPosition))
	apptest.Must(t, list, http.StatusOK, "incident")
	if !strings.Contains(string(list.Body), `"component_host":"db-primary.internal"`) {
		t.Fatalf("the authenticated incident read lost the host: %s", list.Body)
	}

	// The harness organization's public page (STATUS_PUBLIC_ORGANIZATION_ID),
	// served the way platformd serves it.
	public, err := httpapi.NewHandler(statushttp.Service(statushttp.Deps{Queries: apptest.Provided[*statusview.Queries](h), PublicOrganizationID: h.OrgID}),
		httpapi.Deps{Limiter: httpapi.NewLimiter(h.Config.RateLimit), Reader: h.App.Reader, Log: slog.Default()})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(public)
	t.Cleanup(srv.Close)
	var body []byte
	apptest.Eventually(t, 15*time.Second, "the component and the incident on the public page", func() bool {
		resp, err := http.Get(srv.URL + "/api/status")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ = io.ReadAll(resp.Body)
		// The component and the incident are two streams (two partitions,
		// perhaps): wait for both, the component by a member only it has.
		return resp.StatusCode == http.StatusOK && strings.Contains(string(body), `"component_group":"Core"`) &&
			strings.Contains(string(body), inc.IncidentID)
	})
	for _, hidden := range []string{"check_url", "probe.internal", "s3cret", "component_host", "db-primary", "last_http_status",
		"consecutive_fails"} {
		if strings.Contains(string(body), hidden) {
			t.Errorf("the public status page shows %q: %s", hidden, body)
		}
	}
	var page struct {
		Components []map[string]any `json:"components"`
	}
	if err := json.Unmarshal(body, &page); err != nil || len(page.Components) != 1 || page.Components[0]["component_group"] != "Core" ||
		page.Components[0]["status"] != "operational" {
		t.Fatalf("public page: %v %s", err, body)
	}

	// The answer matches the output schema the descriptor publishes.
	res = h.Do(t, "status", http.MethodGet, "/api/actions", "-", nil)
	var actions struct {
		Actions []struct {
			Name         string          `json:"name"`
			OutputSchema json.RawMessage `json:"outputSchema"`
		} `json:"actions"`
	}
	res.JSON(t, &actions)
	for _, a := range actions.Actions {
		if a.Name != "status.get" {
			continue
		}
		var doc any
		_ = json.Unmarshal(a.OutputSchema, &doc)
		c := schema.NewCompiler()
		if err := c.AddResource("out.json", doc); err != nil {
			t.Fatal(err)
		}
		s, err := c.Compile("out.json")
		if err != nil {
			t.Fatal(err)
		}
		if problems := schema.Validate(s, body); len(problems) > 0 {
			t.Fatalf("the public page does not match its output schema: %+v\n%s", problems, body)
		}
		return
	}
	t.Fatal("no status.get descriptor")
}
