package invariants_test

import (
	"encoding/json"
	"net/http"
	"testing"

	domain "github.com/platform/backend/domain/identity"
	httpapi "github.com/platform/backend/http"
	"github.com/platform/backend/internal/app"
	"github.com/platform/backend/internal/apptest"
)

// TestEveryServiceMatchesItsModule: each module's service is built and
// served under the module's service name; its permissions are checked under
// the app id its module declares (a module App with another id would seed
// scopes that no action checks, and leave the service's own app without
// them), or, for a service whose module declares none, an app of the
// default catalog (identity's own); and it answers its health route, the
// one platformctl services, the e2e harness and operators probe.
func TestEveryServiceMatchesItsModule(t *testing.T) {
	h := started(t)
	defaults := map[string]bool{}
	for _, e := range domain.DefaultCatalog("http://localhost") {
		defaults[e.AppID] = true
	}
	served := 0
	for _, m := range app.Modules() {
		if m.Service == nil {
			continue
		}
		name := m.Service.Name
		svc, ok := h.App.Services[name]
		if !ok || h.URLs[name] == "" {
			t.Errorf("module %s: service %s is not built and served", m.Name, name)
			continue
		}
		served++
		switch {
		case m.App != nil && svc.AppID != m.App.AppID:
			t.Errorf("module %s: service %s checks permissions as app %q, the module declares app %q", m.Name, name, svc.AppID, m.App.AppID)
		case m.App == nil && !defaults[svc.AppID]:
			t.Errorf("module %s: service %s checks permissions as app %q, which neither the module nor the default catalog declares", m.Name, name, svc.AppID)
		}
		health := m.Service.HealthPath
		if health == "" {
			health = httpapi.DefaultHealthPath
		}
		res := h.Do(t, name, http.MethodGet, health, "-", nil)
		apptest.Must(t, res, http.StatusOK, name+" "+health)
		var body struct {
			Status  string `json:"status"`
			Service string `json:"service"`
		}
		res.JSON(t, &body)
		if body.Status != "ok" || body.Service != name {
			t.Errorf("%s %s: %s", name, health, res.Body)
		}
	}
	if served == 0 {
		t.Fatal("no module serves a service")
	}
	// Job workers answer their liveness route on a listener of their own.
	for _, name := range app.Workers() {
		url, ok := h.WorkerURLs[name]
		if !ok {
			t.Errorf("job workers %s are not served", name)
			continue
		}
		res, err := h.Client.Get(url + app.HealthPath(name))
		if err != nil {
			t.Fatal(err)
		}
		var body struct{ Status, Service string }
		err = json.NewDecoder(res.Body).Decode(&body)
		res.Body.Close()
		if err != nil || res.StatusCode != http.StatusOK || body.Status != "ok" || body.Service != name {
			t.Errorf("%s %s: %d %+v %v", name, app.HealthPath(name), res.StatusCode, body, err)
		}
	}
}
