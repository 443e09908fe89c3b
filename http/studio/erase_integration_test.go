package studio_test

import (
	"context"
	"image/color"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/platform/backend/commands"
	identitycmd "github.com/platform/backend/commands/identity"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/internal/app"
	"github.com/platform/backend/internal/apptest"
	"github.com/platform/backend/internal/module"
	studiomod "github.com/platform/backend/internal/modules/studio"
	"github.com/platform/backend/internal/testenv"
)

// fill makes one of everything in an organization's default workspace and
// answers the project's id.
func fill(t *testing.T, h *apptest.Harness, c *client, org string) string {
	t.Helper()
	var p, cv map[string]any
	c.json(http.MethodPost, base+"/projects", map[string]any{"title": "Private launch", "objective": "Secret plans"}, http.StatusCreated, &p)
	proj := base + "/projects/" + p["projectId"].(string)
	c.do(http.MethodPatch, proj+"/structured-brief", map[string]any{"audience": "Insiders"}, http.StatusOK)
	c.do(http.MethodPost, proj+"/scenes", map[string]any{"title": "S1"}, http.StatusCreated)
	logo := c.upload("default", "?projectId="+p["projectId"].(string), "image/png", pngOf(t, color.Black), http.StatusCreated)
	c.json(http.MethodPost, proj+"/compositions", map[string]any{"title": "V1", "aspectRatio": "portrait_9_16",
		"snapshot": snapshot(logo["assetId"].(string), "")}, http.StatusCreated, &cv)
	c.do(http.MethodPost, proj+"/render-jobs", map[string]any{"outputFormat": "gif"}, http.StatusCreated)
	c.do(http.MethodPost, proj+"/render-jobs", map[string]any{"outputFormat": "gif"}, http.StatusCreated) // the second crosses the warning share
	c.do(http.MethodPost, proj+"/planning/generate", nil, http.StatusAccepted)
	// The jobs run: two rendered files, a plan (its scenes replace S1).
	apptest.Eventually(t, 90*time.Second, "the renders and the plan", func() bool {
		var renders, planning map[string]any
		c.json(http.MethodGet, proj+"/render-jobs?renderStatus=completed", nil, http.StatusOK, &renders)
		c.json(http.MethodGet, proj+"/planning", nil, http.StatusOK, &planning)
		return len(renders["renderJobs"].([]any)) == 2 && planning["status"] == "ready"
	})
	c.do(http.MethodPost, base+"/project-templates", map[string]any{"name": "T"}, http.StatusCreated)
	c.do(http.MethodPost, base+"/presets", map[string]any{"name": "P"}, http.StatusCreated)
	reviewer, _ := member(t, h, org, "member")
	c.do(http.MethodPost, proj+"/approvals", map[string]any{"reviewerUserId": reviewer}, http.StatusCreated)
	return p["projectId"].(string)
}

// counts are the sizes of an export's lists.
func exportCounts(t *testing.T, c *client) map[string]int {
	t.Helper()
	var e map[string]any
	c.json(http.MethodGet, "/api/organizations/data/export", nil, http.StatusOK, &e)
	out := map[string]int{}
	for k, v := range e {
		if l, ok := v.([]any); ok {
			out[k] = len(l)
		}
	}
	return out
}

// TestExportEraseReplay: the export holds every record and no secret; the
// erasure (confirmation ERASE) removes the organization's data and asset
// files and nothing of another organization; later commands find the
// erased objects missing; a rebuild of the read model from the log brings
// nothing erased back, while what was made after the erasure stays.
func TestExportEraseReplay(t *testing.T) {
	h := apptest.Start(t, apptest.Options{Configure: func(cfg *app.Config) {
		s := module.SectionOf[*studiomod.Config](cfg.Modules)
		s.Commands.RenderQuota, s.Commands.QuotaWarningPercent = 2, 100
	}})
	c := newClient(t, h, "")
	project := fill(t, h, c, h.OrgID)
	otherOrg, otherKey := h.NewOrganization(t, "Bystander", testenv.UniqueName("bystander"), apptest.DefaultScopes...)
	other := newClient(t, h, otherKey)
	fill(t, h, other, otherOrg)

	var export map[string]any
	c.json(http.MethodGet, "/api/organizations/data/export", nil, http.StatusOK, &export)
	raw := string(mustJSON(t, export))
	for _, secret := range []string{"object_key", h.OrgID + "/studio/", "token", "previewUrl"} {
		if strings.Contains(raw, secret) {
			t.Errorf("the export holds %q", secret)
		}
	}
	full := exportCounts(t, c)
	for _, k := range []string{"projects", "scenes", "approvals", "compositions", "renderJobs", "generations", "assets", "templates", "presets", "quotas"} {
		if full[k] == 0 {
			t.Errorf("the export has no %s: %v", k, full)
		}
	}
	if objects(t, h) != 3 || objectsOf(t, h, otherOrg) != 3 { // a logo and two renders each
		t.Fatalf("objects %d and %d before the erasure", objects(t, h), objectsOf(t, h, otherOrg))
	}
	notificationsOf(t, h, h.OrgID, "studio.quota.warning", 1)

	c.problem(http.MethodDelete, "/api/organizations/data/erase", map[string]any{"confirmation": "erase"}, http.StatusUnprocessableEntity, "invalid_input")
	c.problem(http.MethodDelete, "/api/organizations/data/erase", nil, http.StatusUnprocessableEntity, "invalid_input")
	var erased map[string]any
	c.json(http.MethodDelete, "/api/organizations/data/erase", map[string]any{"confirmation": "ERASE"}, http.StatusOK, &erased)
	if erased["assetObjects"].(float64) != 3 || erased["objects"].(float64) < 8 {
		t.Fatalf("erasure %v", erased)
	}
	empty := func(what string) {
		t.Helper()
		for k, n := range exportCounts(t, c) {
			if n != 0 {
				t.Errorf("%s: the export still has %d %s", what, n, k)
			}
		}
	}
	empty("after the erasure")
	if objects(t, h) != 0 || objectsOf(t, h, otherOrg) != 3 {
		t.Fatalf("objects %d (erased) and %d (bystander) after the erasure", objects(t, h), objectsOf(t, h, otherOrg))
	}
	c.problem(http.MethodPatch, base+"/projects/"+project, map[string]any{"title": "Back"}, http.StatusNotFound, "not_found")
	c.problem(http.MethodPost, base+"/projects/"+project+"/scenes", map[string]any{"title": "Back"}, http.StatusNotFound, "not_found")
	bystander := exportCounts(t, other)
	if bystander["projects"] != 1 || bystander["assets"] != 3 || bystander["quotas"] != 2 {
		t.Fatalf("the bystander's export %v", bystander)
	}
	// Made after the erasure: kept, through the rebuild too.
	var fresh map[string]any
	c.json(http.MethodPost, base+"/projects", map[string]any{"title": "After"}, http.StatusCreated, &fresh)

	apptest.Must(t, h.Do(t, "ops", http.MethodPost, "/api/projections/studio/replay", h.OperatorKey(t), nil), http.StatusAccepted, "replay studio")
	apptest.Eventually(t, 90*time.Second, "generation 2 of studio to become active", func() bool {
		return h.Count(t, `SELECT count(*) FROM proj_generations WHERE projection = 'studio' AND generation = 2 AND state = 'active'`) == 1
	})
	after := exportCounts(t, c)
	if after["projects"] != 1 || after["scenes"]+after["assets"]+after["compositions"]+after["renderJobs"]+after["approvals"]+after["templates"]+
		after["presets"]+after["generations"]+after["quotas"] != 0 {
		t.Fatalf("after the rebuild the export has %v, want only the project made after the erasure", after)
	}
	c.do(http.MethodGet, base+"/projects/"+fresh["projectId"].(string), nil, http.StatusOK)
	c.problem(http.MethodGet, base+"/projects/"+project, nil, http.StatusNotFound, "not_found")
	if got := exportCounts(t, other); string(mustJSON(t, got)) != string(mustJSON(t, bystander)) {
		t.Fatalf("the bystander's export after the rebuild %v, before %v", got, bystander)
	}
}

// TestPrivacyNeedsAnAdmin: the member's default bundle holds privacy:read
// and privacy:write, yet exporting or erasing the organization's studio
// data needs an admin role (runtime): a member's session and a member's
// key are refused 403 permission_denied and nothing is erased; an admin's
// session exports and erases.
func TestPrivacyNeedsAnAdmin(t *testing.T) {
	h := apptest.Start(t, apptest.Options{})
	c := newClient(t, h, h.APIKey)
	c.do(http.MethodPost, base+"/projects", map[string]any{"title": "Kept"}, http.StatusCreated)
	memberID, memberSession := member(t, h, h.OrgID, "member")
	memberKey, err := h.Identity().CreateAPIKey(context.Background(), commands.Meta{OrganizationID: h.OrgID,
		Actor: eventstore.Actor{ID: memberID, Type: "user"}}, identitycmd.CreateAPIKey{Name: "member's key", Scopes: apptest.DefaultScopes})
	if err != nil {
		t.Fatal(err)
	}
	_, adminSession := member(t, h, h.OrgID, "admin")
	for name, token := range map[string]string{"a member's session": memberSession, "a member's key": memberKey.Value.Token} {
		who := newClient(t, h, token)
		if p := who.problem(http.MethodGet, "/api/organizations/data/export", nil, http.StatusForbidden, "permission_denied"); !strings.Contains(p.Detail, "admin role") {
			t.Errorf("%s: export refused with %q", name, p.Detail)
		}
		who.problem(http.MethodDelete, "/api/organizations/data/erase", map[string]any{"confirmation": "ERASE"}, http.StatusForbidden, "permission_denied")
	}
	if n := h.Count(t, `SELECT count(*) FROM studio_objects WHERE organization_id = $1`, h.OrgID); n != 1 {
		t.Fatalf("%d registered objects after the refused erasures, want 1", n)
	}
	admin := newClient(t, h, adminSession)
	if got := exportCounts(t, admin); got["projects"] != 1 {
		t.Fatalf("the admin's export %v", got)
	}
	admin.do(http.MethodDelete, "/api/organizations/data/erase", map[string]any{"confirmation": "ERASE"}, http.StatusOK)
	if n := h.Count(t, `SELECT count(*) FROM studio_objects WHERE organization_id = $1`, h.OrgID); n != 0 {
		t.Fatalf("%d registered objects after the admin's erasure", n)
	}
}
