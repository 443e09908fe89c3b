package studio_test

import (
	"image/color"
	"net/http"
	"strings"
	"testing"
	"time"

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
	c.JSON(http.MethodPost, base+"/projects", map[string]any{"title": "Private launch", "objective": "Secret plans"}, http.StatusCreated, &p)
	proj := base + "/projects/" + p["projectId"].(string)
	c.Do(http.MethodPatch, proj+"/structured-brief", map[string]any{"audience": "Insiders"}, http.StatusOK)
	c.Do(http.MethodPost, proj+"/scenes", map[string]any{"title": "S1"}, http.StatusCreated)
	logo := c.upload("default", "?projectId="+p["projectId"].(string), "image/png", pngOf(t, color.Black), http.StatusCreated)
	c.JSON(http.MethodPost, proj+"/compositions", map[string]any{"title": "V1", "aspectRatio": "portrait_9_16",
		"snapshot": snapshot(logo["assetId"].(string), "")}, http.StatusCreated, &cv)
	c.Do(http.MethodPost, proj+"/render-jobs", map[string]any{"outputFormat": "gif"}, http.StatusCreated)
	c.Do(http.MethodPost, proj+"/render-jobs", map[string]any{"outputFormat": "gif"}, http.StatusCreated) // the second crosses the warning share
	c.Do(http.MethodPost, proj+"/planning/generate", nil, http.StatusAccepted)
	// The jobs run: two rendered files, a plan (its scenes replace S1).
	apptest.Eventually(t, 90*time.Second, "the renders and the plan", func() bool {
		var renders, planning map[string]any
		c.JSON(http.MethodGet, proj+"/render-jobs?renderStatus=completed", nil, http.StatusOK, &renders)
		c.JSON(http.MethodGet, proj+"/planning", nil, http.StatusOK, &planning)
		return len(renders["renderJobs"].([]any)) == 2 && planning["status"] == "ready"
	})
	c.Do(http.MethodPost, base+"/project-templates", map[string]any{"name": "T"}, http.StatusCreated)
	c.Do(http.MethodPost, base+"/presets", map[string]any{"name": "P"}, http.StatusCreated)
	reviewer := h.NewPerson(t, org, "member").UserID
	c.Do(http.MethodPost, proj+"/approvals", map[string]any{"reviewerUserId": reviewer}, http.StatusCreated)
	return p["projectId"].(string)
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
	files := func(org string) int { return h.Objects(t, org+"/studio/") }
	fill(t, h, other, otherOrg)

	var export map[string]any
	c.JSON(http.MethodGet, "/api/organizations/data/export", nil, http.StatusOK, &export)
	raw := string(mustJSON(t, export))
	for _, secret := range []string{"object_key", h.OrgID + "/studio/", "token", "previewUrl"} {
		if strings.Contains(raw, secret) {
			t.Errorf("the export holds %q", secret)
		}
	}
	full := c.ExportCounts()
	for _, k := range []string{"projects", "scenes", "approvals", "compositions", "renderJobs", "generations", "assets", "templates", "presets", "quotas"} {
		if full[k] == 0 {
			t.Errorf("the export has no %s: %v", k, full)
		}
	}
	if files(h.OrgID) != 3 || files(otherOrg) != 3 { // a logo and two renders each
		t.Fatalf("objects %d and %d before the erasure", files(h.OrgID), files(otherOrg))
	}
	h.Notifications(t, h.OrgID, "studio.quota.warning", 1)

	c.Problem(http.MethodDelete, "/api/organizations/data/erase", map[string]any{"confirmation": "erase"}, http.StatusUnprocessableEntity, "invalid_input")
	c.Problem(http.MethodDelete, "/api/organizations/data/erase", nil, http.StatusUnprocessableEntity, "invalid_input")
	var erased map[string]any
	c.JSON(http.MethodDelete, "/api/organizations/data/erase", map[string]any{"confirmation": "ERASE"}, http.StatusOK, &erased)
	if erased["assetObjects"].(float64) != 3 || erased["objects"].(float64) < 8 {
		t.Fatalf("erasure %v", erased)
	}
	c.ExpectErased("after the erasure")
	if files(h.OrgID) != 0 || files(otherOrg) != 3 {
		t.Fatalf("objects %d (erased) and %d (bystander) after the erasure", files(h.OrgID), files(otherOrg))
	}
	c.Problem(http.MethodPatch, base+"/projects/"+project, map[string]any{"title": "Back"}, http.StatusNotFound, "not_found")
	c.Problem(http.MethodPost, base+"/projects/"+project+"/scenes", map[string]any{"title": "Back"}, http.StatusNotFound, "not_found")
	bystander := other.ExportCounts()
	if bystander["projects"] != 1 || bystander["assets"] != 3 || bystander["quotas"] != 2 {
		t.Fatalf("the bystander's export %v", bystander)
	}
	// Made after the erasure: kept, through the rebuild too.
	var fresh map[string]any
	c.JSON(http.MethodPost, base+"/projects", map[string]any{"title": "After"}, http.StatusCreated, &fresh)

	h.Rebuild(t, "studio")
	after := c.ExportCounts()
	if after["projects"] != 1 || after["scenes"]+after["assets"]+after["compositions"]+after["renderJobs"]+after["approvals"]+after["templates"]+
		after["presets"]+after["generations"]+after["quotas"] != 0 {
		t.Fatalf("after the rebuild the export has %v, want only the project made after the erasure", after)
	}
	c.Do(http.MethodGet, base+"/projects/"+fresh["projectId"].(string), nil, http.StatusOK)
	c.Problem(http.MethodGet, base+"/projects/"+project, nil, http.StatusNotFound, "not_found")
	if got := other.ExportCounts(); string(mustJSON(t, got)) != string(mustJSON(t, bystander)) {
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
	c.Do(http.MethodPost, base+"/projects", map[string]any{"title": "Kept"}, http.StatusCreated)
	member := h.NewPerson(t, h.OrgID, "member")
	adminSession := h.NewPerson(t, h.OrgID, "admin").Session
	for name, token := range map[string]string{"a member's session": member.Session, "a member's key": member.Key} {
		who := newClient(t, h, token)
		if p := who.Problem(http.MethodGet, "/api/organizations/data/export", nil, http.StatusForbidden, "permission_denied"); !strings.Contains(p.Detail, "admin role") {
			t.Errorf("%s: export refused with %q", name, p.Detail)
		}
		who.Problem(http.MethodDelete, "/api/organizations/data/erase", map[string]any{"confirmation": "ERASE"}, http.StatusForbidden, "permission_denied")
	}
	if n := h.Count(t, `SELECT count(*) FROM studio_objects WHERE organization_id = $1`, h.OrgID); n != 1 {
		t.Fatalf("%d registered objects after the refused erasures, want 1", n)
	}
	admin := newClient(t, h, adminSession)
	if got := admin.ExportCounts(); got["projects"] != 1 {
		t.Fatalf("the admin's export %v", got)
	}
	admin.Do(http.MethodDelete, "/api/organizations/data/erase", map[string]any{"confirmation": "ERASE"}, http.StatusOK)
	if n := h.Count(t, `SELECT count(*) FROM studio_objects WHERE organization_id = $1`, h.OrgID); n != 0 {
		t.Fatalf("%d registered objects after the admin's erasure", n)
	}
}
