package httpapi_test

import (
	"net"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/platform/backend/internal/app"
	"github.com/platform/backend/internal/apptest"
	"github.com/platform/backend/internal/testenv"
)

// TestAuthentication: missing, malformed, wrong, under-scoped and revoked
// credentials, each with the problem shape and its code.
func TestAuthentication(t *testing.T) {
	h := apptest.Start(t, apptest.Options{})

	t.Run("no credential", func(t *testing.T) {
		apptest.ExpectProblem(t, h.Do(t, "status", http.MethodPost, "/api/incidents", "-", map[string]any{"title": "x", "message": "y", "severity": "minor"}),
			http.StatusUnauthorized, "authentication_required")
		apptest.ExpectProblem(t, h.Do(t, "status", http.MethodGet, "/api/incidents", "-", nil), http.StatusUnauthorized, "authentication_required")
		apptest.ExpectProblem(t, h.Do(t, "ops", http.MethodGet, "/api/history", "-", nil), http.StatusUnauthorized, "authentication_required")
	})
	t.Run("bad key", func(t *testing.T) {
		apptest.ExpectProblem(t, h.Do(t, "status", http.MethodGet, "/api/incidents", "pk_nonsense", nil), http.StatusUnauthorized, "authentication_required")
		apptest.ExpectProblem(t, h.Do(t, "status", http.MethodGet, "/api/incidents", "not-even-a-platform-key", nil), http.StatusUnauthorized, "authentication_required")
		// The right key id with a wrong secret.
		wrong := "pk_" + apptest.KeyID(h.APIKey) + ".AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
		apptest.ExpectProblem(t, h.Do(t, "status", http.MethodGet, "/api/incidents", wrong, nil), http.StatusUnauthorized, "authentication_required")
	})
	t.Run("api key header", func(t *testing.T) {
		apptest.Must(t, h.Do(t, "status", http.MethodGet, "/api/incidents", "-", nil, "X-Api-Key", h.APIKey), http.StatusOK, "X-Api-Key")
	})

	// A read-only key of the same organization, created through the API.
	res := h.Do(t, "identity", http.MethodPost, "/api/api-keys", "", map[string]any{"name": "reader", "scopes": []string{"status:read"}})
	apptest.Must(t, res, http.StatusCreated, "create key")
	var key struct {
		KeyID string `json:"key_id"`
		Token string `json:"token"`
		State string `json:"state"`
	}
	res.JSON(t, &key)
	if key.Token == "" || key.KeyID == "" || apptest.KeyID(key.Token) != key.KeyID {
		t.Fatalf("created key: %s", res.Body)
	}

	t.Run("missing permission", func(t *testing.T) {
		before := h.Events(t, "status")
		p := apptest.ExpectProblem(t, h.Do(t, "status", http.MethodPost, "/api/incidents", key.Token, map[string]any{"title": "x", "message": "y", "severity": "minor"}),
			http.StatusForbidden, "permission_denied")
		if !strings.Contains(p.Detail, "status:write") {
			t.Fatalf("detail %q should name the missing permission", p.Detail)
		}
		apptest.ExpectProblem(t, h.Do(t, "status", http.MethodPost, "/poll", key.Token, nil), http.StatusForbidden, "permission_denied")
		apptest.ExpectProblem(t, h.Do(t, "ops", http.MethodGet, "/api/projections", key.Token, nil), http.StatusForbidden, "permission_denied")
		if after := h.Events(t, "status"); after != before {
			t.Fatalf("a refused command appended %d events", after-before)
		}
		apptest.Must(t, h.Do(t, "status", http.MethodGet, "/api/incidents", key.Token, nil), http.StatusOK, "read with status:read")
	})

	t.Run("revoked key", func(t *testing.T) {
		apptest.Must(t, h.Do(t, "status", http.MethodGet, "/api/incidents", key.Token, nil), http.StatusOK, "before revocation")
		res := h.Do(t, "identity", http.MethodDelete, "/api/api-keys/"+key.KeyID, "", nil)
		apptest.Must(t, res, http.StatusOK, "revoke")
		if !strings.Contains(string(res.Body), `"revoked"`) {
			t.Fatalf("revoke answer: %s", res.Body)
		}
		// At once: the very next call.
		apptest.ExpectProblem(t, h.Do(t, "status", http.MethodGet, "/api/incidents", key.Token, nil), http.StatusUnauthorized, "authentication_required")
		apptest.ExpectProblem(t, h.Do(t, "status", http.MethodGet, "/api/incidents", "-", nil, "X-Api-Key", key.Token), http.StatusUnauthorized, "authentication_required")
		// The harness key is untouched.
		apptest.Must(t, h.Do(t, "status", http.MethodGet, "/api/incidents", "", nil), http.StatusOK, "other key")
	})
}

// TestTenantIsolation: a second organization neither sees nor changes the
// first one's incidents or keys.
func TestTenantIsolation(t *testing.T) {
	h := apptest.Start(t, apptest.Options{})
	_, other := h.NewOrganization(t, "Other Org", testenv.UniqueName("other"), apptest.DefaultScopes...)
	id, pos := h.CreateIncident(t, "")

	// Wait until the read model has the incident, so a 404 is isolation, not
	// lag (with the owner's key: another organization's position is not waited for).
	apptest.Must(t, h.Do(t, "status", http.MethodGet, "/api/incidents?incidentId="+id, "", nil, "X-Platform-Min-Position", pos), http.StatusOK, "owner waits")
	list := h.Do(t, "status", http.MethodGet, "/api/incidents?status=all", other, nil)
	apptest.Must(t, list, http.StatusOK, "other org list")
	var body struct {
		Incidents []struct {
			IncidentID string `json:"incident_id"`
		} `json:"incidents"`
	}
	list.JSON(t, &body)
	if len(body.Incidents) != 0 {
		t.Fatalf("the other organization sees incidents: %s", list.Body)
	}
	apptest.ExpectProblem(t, h.Do(t, "status", http.MethodGet, "/api/incidents?incidentId="+id, other, nil), http.StatusNotFound, "not_found")
	apptest.ExpectProblem(t, h.Do(t, "status", http.MethodPatch, "/api/incidents/"+id, other, map[string]any{"message": "hijack", "status": "resolved"}),
		http.StatusNotFound, "not_found")
	apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodDelete, "/api/api-keys/"+apptest.KeyID(h.APIKey), other, nil), http.StatusNotFound, "not_found")
	w := h.Do(t, "status", http.MethodGet, "/api/widget", other, nil)
	apptest.Must(t, w, http.StatusOK, "other widget")
	if !strings.Contains(string(w.Body), `"open_incidents":0`) {
		t.Fatalf("other organization's widget counts foreign incidents: %s", w.Body)
	}

	// The owner still sees its incident unchanged, and its key still works.
	own := h.Do(t, "status", http.MethodGet, "/api/incidents?incidentId="+id, "", nil)
	apptest.Must(t, own, http.StatusOK, "owner get")
	if !strings.Contains(string(own.Body), `"revision":1`) || !strings.Contains(string(own.Body), `"status":"investigating"`) {
		t.Fatalf("owner's incident changed: %s", own.Body)
	}
	if n := h.Count(t, `SELECT count(*) FROM es_events WHERE stream_id=$1`, id); n != 1 {
		t.Fatalf("the incident stream has %d events, want 1", n)
	}
	// The owner's list holds it, the other's list stays empty.
	ownList := h.Do(t, "status", http.MethodGet, "/api/incidents", "", nil)
	if !strings.Contains(string(ownList.Body), id) {
		t.Fatalf("owner list: %s", ownList.Body)
	}
}

// TestInvalidInputListsEveryPointer: one 422 names every failing member.
func TestInvalidInputListsEveryPointer(t *testing.T) {
	h := apptest.Start(t, apptest.Options{NoWorkers: true})
	before := h.Events(t, "status")
	p := apptest.ExpectProblem(t, h.Do(t, "status", http.MethodPost, "/api/incidents", "", map[string]any{"title": "", "severity": "huge", "extra": 1}),
		http.StatusUnprocessableEntity, "invalid_input")
	var pointers []string
	for _, e := range p.Errors {
		if e.Detail == "" {
			t.Fatalf("error without detail: %+v", e)
		}
		pointers = append(pointers, e.Pointer)
	}
	sort.Strings(pointers)
	if want := []string{"/extra", "/message", "/severity", "/title"}; strings.Join(pointers, " ") != strings.Join(want, " ") {
		t.Fatalf("pointers %v, want %v", pointers, want)
	}
	// Query parameters are checked against the same schema.
	p = apptest.ExpectProblem(t, h.Do(t, "status", http.MethodGet, "/api/incidents?status=weird&limit=0", "", nil), http.StatusUnprocessableEntity, "invalid_input")
	pointers = pointers[:0]
	for _, e := range p.Errors {
		pointers = append(pointers, e.Pointer)
	}
	sort.Strings(pointers)
	if strings.Join(pointers, " ") != "/limit /status" {
		t.Fatalf("query pointers %v, want /limit /status", pointers)
	}
	// A body that is not JSON.
	apptest.ExpectProblem(t, h.Do(t, "status", http.MethodPost, "/api/incidents", "", []byte("{not json")), http.StatusUnprocessableEntity, "invalid_input")
	if after := h.Events(t, "status"); after != before {
		t.Fatalf("invalid input appended %d events", after-before)
	}
}

// TestRateLimit: the third quick call of a credential with burst 2 is 429
// with Retry-After; another credential has its own bucket.
func TestRateLimit(t *testing.T) {
	h := apptest.Start(t, apptest.Options{NoWorkers: true, Configure: func(c *app.Config) {
		c.RateLimit.PerSecond = 1
		c.RateLimit.Burst = 2
	}})
	_, other := h.NewOrganization(t, "Second", testenv.UniqueName("second"), apptest.DefaultScopes...)
	apptest.Must(t, h.Do(t, "status", http.MethodGet, "/api/widget", "", nil), http.StatusOK, "first")
	apptest.Must(t, h.Do(t, "status", http.MethodGet, "/api/widget", "", nil), http.StatusOK, "second")
	res := h.Do(t, "status", http.MethodGet, "/api/widget", "", nil)
	apptest.ExpectProblem(t, res, http.StatusTooManyRequests, "rate_limited")
	ra, err := strconv.Atoi(res.Header.Get("Retry-After"))
	if err != nil || ra < 1 || ra > 2 {
		t.Fatalf("Retry-After %q, want 1 or 2 seconds", res.Header.Get("Retry-After"))
	}
	apptest.Must(t, h.Do(t, "status", http.MethodGet, "/api/widget", other, nil), http.StatusOK, "another credential")
	// After the advertised wait the credential is served again.
	time.Sleep(time.Duration(ra) * time.Second)
	apptest.Must(t, h.Do(t, "status", http.MethodGet, "/api/widget", "", nil), http.StatusOK, "after Retry-After")
}

// TestValidationUnavailableFailsClosed: when the identity service cannot be
// reached, authenticated routes answer 503 and nothing is written.
func TestValidationUnavailableFailsClosed(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String()
	ln.Close()
	h := apptest.Start(t, apptest.Options{NoWorkers: true, Configure: func(c *app.Config) { c.AuthBaseURL = closed }})
	start := time.Now()
	res := h.Do(t, "status", http.MethodGet, "/api/incidents", "", nil)
	apptest.ExpectProblem(t, res, http.StatusServiceUnavailable, "dependency_unavailable")
	if res.Header.Get("Retry-After") == "" {
		t.Fatal("503 without Retry-After")
	}
	apptest.ExpectProblem(t, h.Do(t, "status", http.MethodPost, "/api/incidents", "", map[string]any{"title": "x", "message": "y", "severity": "minor"}),
		http.StatusServiceUnavailable, "dependency_unavailable")
	if n := h.Count(t, `SELECT count(*) FROM es_events WHERE stream_type LIKE 'status.%'`); n != 0 {
		t.Fatalf("%d status events written without validation", n)
	}
	if time.Since(start) > 10*time.Second {
		t.Fatalf("failing closed took %s", time.Since(start))
	}
	// No credential is still 401, and public routes still serve.
	apptest.ExpectProblem(t, h.Do(t, "status", http.MethodGet, "/api/incidents", "-", nil), http.StatusUnauthorized, "authentication_required")
	apptest.Must(t, h.Do(t, "status", http.MethodGet, "/api/status", "-", nil), http.StatusOK, "public status")
}

// TestStatusDescriptors: the 9 status actions with seed 000's rules, their
// OpenAPI document, the public status page.
func TestStatusDescriptors(t *testing.T) {
	h := apptest.Start(t, apptest.Options{NoWorkers: true})
	res := h.Do(t, "status", http.MethodGet, "/api/actions", "-", nil)
	apptest.Must(t, res, http.StatusOK, "actions")
	var doc struct {
		Service string `json:"service"`
		Actions []struct {
			Name                 string         `json:"name"`
			Method               string         `json:"method"`
			Path                 string         `json:"path"`
			Permission           string         `json:"permission"`
			InputSchema          map[string]any `json:"inputSchema"`
			OutputSchema         map[string]any `json:"outputSchema"`
			ReadOnly             bool           `json:"readOnly"`
			Destructive          bool           `json:"destructive"`
			RequiresConfirmation bool           `json:"requiresConfirmation"`
			AgentAccess          string         `json:"agentAccess"`
			AuthorizationMode    string         `json:"authorizationMode"`
		} `json:"actions"`
	}
	res.JSON(t, &doc)
	type spec struct {
		method, path, permission string
		read                     bool
	}
	want := map[string]spec{
		"widget.get":           {"GET", "/api/widget", "status:read", true},
		"status.get":           {"GET", "/api/status", "", true},
		"status.poll":          {"POST", "/poll", "status:poll", false},
		"incidents.create":     {"POST", "/api/incidents", "status:write", false},
		"incidents.update":     {"PATCH", "/api/incidents/{incidentId}", "status:write", false},
		"incidents.list":       {"GET", "/api/incidents", "status:read", true},
		"maintenance.schedule": {"POST", "/api/maintenance", "status:write", false},
		"maintenance.update":   {"PATCH", "/api/maintenance/{maintenanceId}", "status:write", false},
		"components.upsert":    {"PUT", "/api/components/{componentId}", "status:write", false},
		// Ours beside the seed's: the Statuspage-compatible public reads (issue 23).
		"statuspage.summary.get":                 {"GET", "/api/v2/summary.json", "", true},
		"statuspage.status.get":                  {"GET", "/api/v2/status.json", "", true},
		"statuspage.incidents.list":              {"GET", "/api/v2/incidents.json", "", true},
		"statuspage.scheduled_maintenances.list": {"GET", "/api/v2/scheduled-maintenances.json", "", true},
	}
	if doc.Service != "status" || len(doc.Actions) != len(want) {
		t.Fatalf("service %q with %d actions, want status with %d", doc.Service, len(doc.Actions), len(want))
	}
	seen := map[string]bool{}
	for _, a := range doc.Actions {
		w, ok := want[a.Name]
		if !ok || seen[a.Name] {
			t.Fatalf("unexpected or repeated action %q", a.Name)
		}
		seen[a.Name] = true
		if a.Method != w.method || a.Path != w.path || a.Permission != w.permission || a.ReadOnly != w.read {
			t.Errorf("%s: %s %s %q readOnly=%v, want %s %s %q readOnly=%v", a.Name, a.Method, a.Path, a.Permission, a.ReadOnly, w.method, w.path, w.permission, w.read)
		}
		if a.ReadOnly && (a.AgentAccess != "auto" || a.RequiresConfirmation) {
			t.Errorf("%s: read action with agentAccess %q requiresConfirmation %v", a.Name, a.AgentAccess, a.RequiresConfirmation)
		}
		if !a.ReadOnly && (a.AgentAccess != "confirm" || !a.RequiresConfirmation) {
			t.Errorf("%s: mutation with agentAccess %q requiresConfirmation %v", a.Name, a.AgentAccess, a.RequiresConfirmation)
		}
		wantMode := "static"
		if w.permission == "" {
			wantMode = "public"
		}
		if a.AuthorizationMode != wantMode {
			t.Errorf("%s: authorizationMode %q, want %q", a.Name, a.AuthorizationMode, wantMode)
		}
		if a.Destructive {
			t.Errorf("%s: no status action is destructive", a.Name)
		}
		if a.InputSchema["type"] != "object" || a.OutputSchema == nil {
			t.Errorf("%s: input schema %v output schema %v", a.Name, a.InputSchema, a.OutputSchema)
		}
	}

	res = h.Do(t, "status", http.MethodGet, "/api/openapi.json", "-", nil)
	apptest.Must(t, res, http.StatusOK, "openapi")
	var api struct {
		OpenAPI string                               `json:"openapi"`
		Paths   map[string]map[string]map[string]any `json:"paths"`
	}
	res.JSON(t, &api)
	if !strings.HasPrefix(api.OpenAPI, "3.") {
		t.Fatalf("openapi version %q", api.OpenAPI)
	}
	for name, w := range want {
		op, ok := api.Paths[w.path][strings.ToLower(w.method)]
		if !ok {
			t.Errorf("openapi lacks %s %s", w.method, w.path)
			continue
		}
		if op["operationId"] != name {
			t.Errorf("%s %s: operationId %v, want %s", w.method, w.path, op["operationId"], name)
		}
		_, secured := op["security"]
		if secured != (w.permission != "") {
			t.Errorf("%s: security declared %v, want %v", name, secured, w.permission != "")
		}
	}
	if len(api.Paths) != 12 { // the seed's 8 and the 4 Statuspage-compatible reads
		paths := make([]string, 0, len(api.Paths))
		for p := range api.Paths {
			paths = append(paths, p)
		}
		t.Errorf("openapi has %d paths, want 12: %v", len(api.Paths), paths)
	}

	// The public status page needs no credential.
	res = h.Do(t, "status", http.MethodGet, "/api/status", "-", nil)
	apptest.Must(t, res, http.StatusOK, "public status")
	if !strings.Contains(string(res.Body), `"status":"operational"`) {
		t.Fatalf("public status: %s", res.Body)
	}
	apptest.Must(t, h.Do(t, "status", http.MethodGet, "/api/health", "-", nil), http.StatusOK, "health")
	apptest.ExpectProblem(t, h.Do(t, "status", http.MethodGet, "/api/nowhere", "-", nil), http.StatusNotFound, "not_found")
}

// TestReadYourWritesBoundedWait: a position the projection will not reach in
// time answers 503 with Retry-After after a bounded wait.
func TestReadYourWritesBoundedWait(t *testing.T) {
	h := apptest.Start(t, apptest.Options{})
	id, pos := h.CreateIncident(t, "")
	apptest.Must(t, h.Do(t, "status", http.MethodGet, "/api/incidents?incidentId="+id, "", nil, "X-Platform-Min-Position", pos), http.StatusOK, "reachable position")

	start := time.Now()
	res := h.Do(t, "status", http.MethodGet, "/api/incidents?incidentId="+id, "", nil, "X-Platform-Min-Position", id+"@99")
	elapsed := time.Since(start)
	apptest.ExpectProblem(t, res, http.StatusServiceUnavailable, "dependency_unavailable")
	if ra, err := strconv.Atoi(res.Header.Get("Retry-After")); err != nil || ra < 1 {
		t.Fatalf("Retry-After %q", res.Header.Get("Retry-After"))
	}
	if elapsed < 2*time.Second || elapsed > 10*time.Second {
		t.Fatalf("answered after %s, want a bounded wait of a few seconds", elapsed)
	}
	// A malformed position is the client's mistake.
	p := apptest.ExpectProblem(t, h.Do(t, "status", http.MethodGet, "/api/incidents", "", nil, "X-Platform-Min-Position", "nonsense"),
		http.StatusUnprocessableEntity, "invalid_input")
	if len(p.Errors) != 1 || p.Errors[0].Pointer != "/header/X-Platform-Min-Position" {
		t.Fatalf("malformed position problem: %+v", p)
	}
}
