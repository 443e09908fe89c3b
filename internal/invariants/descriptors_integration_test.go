package invariants_test

import (
	"net/http"
	"slices"
	"sort"
	"strings"
	"testing"

	domain "github.com/platform/backend/domain/identity"
	"github.com/platform/backend/internal/app"
	"github.com/platform/backend/internal/apptest"
)

// TestEveryDescriptorFollowsTheHouseRules: for every action of every service
// the app builds, seed 000's descriptor rules (reads run without
// confirmation, mutations need it, an authorization mode from the seed, a
// permission exactly when the action is not public) and a static
// permission that the catalog declares for the service's app.
func TestEveryDescriptorFollowsTheHouseRules(t *testing.T) {
	h := started(t)
	// The catalog identity seeds: its defaults and every module's app.
	declared := map[string][]string{}
	for _, e := range domain.DefaultCatalog("http://localhost") {
		declared[e.AppID] = append(append([]string(nil), e.Scopes...), e.PlatformScopes...)
	}
	for _, m := range app.Modules() {
		if m.App != nil {
			declared[m.App.AppID] = append(append([]string(nil), m.App.Scopes...), m.App.PlatformScopes...)
		}
	}
	services := make([]string, 0, len(h.URLs))
	for s := range h.URLs {
		services = append(services, s)
	}
	sort.Strings(services)
	var problems []string
	actions := 0
	for _, svc := range services {
		appID := h.App.Services[svc].AppID
		if _, ok := declared[appID]; !ok {
			problems = append(problems, svc+": app id "+appID+" is not in the catalog (declare the module's App)")
			continue
		}
		res := h.Do(t, svc, http.MethodGet, "/api/actions", "-", nil)
		apptest.Must(t, res, http.StatusOK, svc+" actions")
		var body struct {
			Actions []struct {
				Name                 string `json:"name"`
				Permission           string `json:"permission"`
				ReadOnly             bool   `json:"readOnly"`
				RequiresConfirmation bool   `json:"requiresConfirmation"`
				Destructive          bool   `json:"destructive"`
				AgentAccess          string `json:"agentAccess"`
				AuthorizationMode    string `json:"authorizationMode"`
			} `json:"actions"`
		}
		res.JSON(t, &body)
		for _, a := range body.Actions {
			actions++
			where := svc + " " + a.Name
			if a.ReadOnly && (a.AgentAccess != "auto" || a.RequiresConfirmation) {
				problems = append(problems, where+": a read needs agentAccess auto without confirmation")
			}
			if a.ReadOnly && a.Destructive {
				problems = append(problems, where+": a read cannot be destructive")
			}
			if !a.ReadOnly && (a.AgentAccess != "confirm" || !a.RequiresConfirmation) {
				problems = append(problems, where+": a mutation needs agentAccess confirm with confirmation")
			}
			switch a.AuthorizationMode {
			case "public":
				if a.Permission != "" {
					problems = append(problems, where+": public with a permission")
				}
			case "static":
				if a.Permission == "" {
					problems = append(problems, where+": static without a permission")
				} else if short := strings.TrimPrefix(a.Permission, appID+"."); !slices.Contains(declared[appID], short) {
					problems = append(problems, where+": permission "+a.Permission+" is not declared in the catalog for "+appID)
				}
			case "runtime":
			default:
				problems = append(problems, where+": authorizationMode "+a.AuthorizationMode)
			}
		}
	}
	if actions == 0 {
		t.Fatal("no action descriptors")
	}
	sort.Strings(problems)
	for _, p := range problems {
		t.Error(p)
	}
}
