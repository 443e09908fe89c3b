package studio_test

import (
	"image/color"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/platform/backend/internal/app"
	"github.com/platform/backend/internal/apptest"
	"github.com/platform/backend/internal/module"
	studiomod "github.com/platform/backend/internal/modules/studio"
)

// TestTemplatesPresetsApprovals: templates and presets are changed by
// their owner or a workspace admin only (runtime authorization); an
// approval goes to an active member and is decided once, by that reviewer
// or an admin; the request notifies (studio.approval.requested, its
// contract, keyed once).
func TestTemplatesPresetsApprovals(t *testing.T) {
	h := apptest.Start(t, apptest.Options{})
	owner := newClient(t, h, h.Key(t, h.OrgID, []string{"settings:write", "workspace:read"}))
	other := newClient(t, h, h.Key(t, h.OrgID, []string{"settings:write", "workspace:read"}))
	admin := newClient(t, h, h.Key(t, h.OrgID, []string{"settings:write", "workspace:read", "workspace:manage", "approvals:write"}))

	var tpl map[string]any
	owner.JSON(http.MethodPost, base+"/project-templates", map[string]any{"name": "Reel", "promptDefaults": map[string]any{"tone": "fun", "n": 3},
		"platforms": []string{"network_2", "network_1"}}, http.StatusCreated, &tpl)
	path := base + "/project-templates/" + tpl["templateId"].(string)
	other.Problem(http.MethodPatch, path, map[string]any{"name": "Mine"}, http.StatusForbidden, "permission_denied")
	owner.JSON(http.MethodPatch, path, map[string]any{"description": "Short reels"}, http.StatusOK, &tpl)
	admin.JSON(http.MethodPatch, path, map[string]any{"name": "Reel v2"}, http.StatusOK, &tpl)
	if tpl["name"] != "Reel v2" || tpl["description"] != "Short reels" || strings.Join(toStrings(tpl["platforms"]), ",") != "network_1,network_2" {
		t.Fatalf("template %v", tpl)
	}
	owner.Problem(http.MethodPatch, path, map[string]any{"platforms": []string{"network_9"}}, http.StatusUnprocessableEntity, "invalid_input")
	owner.Problem(http.MethodPatch, base+"/project-templates/nope", map[string]any{"name": "X"}, http.StatusNotFound, "not_found")
	var list map[string]any
	owner.JSON(http.MethodGet, base+"/project-templates", nil, http.StatusOK, &list)
	if len(list["templates"].([]any)) != 1 {
		t.Fatalf("templates %v", list)
	}

	var preset map[string]any
	owner.JSON(http.MethodPost, base+"/presets", map[string]any{"name": "Bold", "settings": map[string]any{"contrast": 1.5}}, http.StatusCreated, &preset)
	ppath := base + "/presets/" + preset["presetId"].(string)
	other.Problem(http.MethodPatch, ppath, map[string]any{"name": "Mine"}, http.StatusForbidden, "permission_denied")
	admin.JSON(http.MethodPatch, ppath, map[string]any{"settings": map[string]any{"contrast": 2}}, http.StatusOK, &preset)
	owner.Problem(http.MethodPost, base+"/presets", map[string]any{"name": "X", "settings": map[string]any{"bad key": 1}}, http.StatusUnprocessableEntity, "invalid_input")
	owner.JSON(http.MethodGet, base+"/presets", nil, http.StatusOK, &list)
	if len(list["presets"].([]any)) != 1 {
		t.Fatalf("presets %v", list)
	}
	var res map[string]any
	owner.JSON(http.MethodGet, base+"/creative-resources", nil, http.StatusOK, &res)
	if len(res["templates"].([]any)) != 1 || len(res["presets"].([]any)) != 1 {
		t.Fatalf("creative resources %v", res)
	}

	// Approvals.
	c := newClient(t, h, "")
	var p map[string]any
	c.JSON(http.MethodPost, base+"/projects", map[string]any{"title": "Review me"}, http.StatusCreated, &p)
	proj := base + "/projects/" + p["projectId"].(string)
	reviewerOf := h.NewPerson(t, h.OrgID, "member")
	reviewer, reviewerToken := reviewerOf.UserID, reviewerOf.Session
	bystanderToken := h.NewPerson(t, h.OrgID, "member").Session
	pp := c.Problem(http.MethodPost, proj+"/approvals", map[string]any{"reviewerUserId": "00000000-0000-7000-8000-000000000000"},
		http.StatusUnprocessableEntity, "invalid_input")
	if strings.Join(pp.Pointers(), " ") != "/reviewerUserId" {
		t.Errorf("a reviewer who is no member: %v", pp.Pointers())
	}
	var a map[string]any
	c.JSON(http.MethodPost, proj+"/approvals", map[string]any{"reviewerUserId": reviewer, "note": "Please look"}, http.StatusCreated, &a)
	c.Problem(http.MethodPost, proj+"/approvals", map[string]any{"reviewerUserId": reviewer}, http.StatusConflict, "approval_pending")
	decide := proj + "/approvals/" + a["approvalRequestId"].(string)
	// The dashboard's action queue shows the request to whoever may decide
	// it (the reviewer, a workspace admin), not to another member.
	studioItems := func(token string) []map[string]any {
		res := h.Do(t, "dashboard", http.MethodGet, "/api/action-items", token, nil)
		apptest.Must(t, res, http.StatusOK, "action items")
		var q struct {
			Items []map[string]any `json:"items"`
		}
		res.JSON(t, &q)
		var out []map[string]any
		for _, it := range q.Items {
			if it["appId"] == "studio" {
				out = append(out, it)
			}
		}
		return out
	}
	apptest.Eventually(t, 15*time.Second, "the reviewer's action item", func() bool { return len(studioItems(reviewerToken)) == 1 })
	if it := studioItems(reviewerToken)[0]; it["kind"] != "studio.approval.requested" || it["objectId"] != a["approvalRequestId"] ||
		it["resolve"] != "projects.approvals.approve" || !strings.HasSuffix(it["url"].(string), "/app/projects/"+p["projectId"].(string)+"/review") ||
		!strings.Contains(it["detail"].(string), "Review me") {
		t.Fatalf("the reviewer's item %v", it)
	}
	if n := len(studioItems(bystanderToken)); n != 0 {
		t.Fatalf("another member sees %d studio items", n)
	}
	if n := len(studioItems(h.APIKey)); n != 1 { // the harness key holds workspace:manage
		t.Fatalf("a workspace admin sees %d studio items, want 1", n)
	}
	newClient(t, h, bystanderToken).Problem(http.MethodPost, decide+"/approve", nil, http.StatusForbidden, "permission_denied")
	newClient(t, h, reviewerToken).JSON(http.MethodPost, decide+"/approve", map[string]any{"note": "Ship it"}, http.StatusOK, &a)
	apptest.Eventually(t, 15*time.Second, "the item resolved", func() bool { return len(studioItems(reviewerToken)) == 0 })
	if a["status"] != "approved" || a["decidedBy"] != reviewer {
		t.Fatalf("approved %v", a)
	}
	newClient(t, h, reviewerToken).Problem(http.MethodPost, decide+"/reject", nil, http.StatusConflict, "invalid_transition")
	c.Problem(http.MethodPost, proj+"/approvals/nope/approve", nil, http.StatusNotFound, "not_found")
	var second map[string]any
	c.JSON(http.MethodPost, proj+"/approvals", map[string]any{"reviewerUserId": reviewer}, http.StatusCreated, &second)
	admin.JSON(http.MethodPost, proj+"/approvals/"+second["approvalRequestId"].(string)+"/reject", nil, http.StatusOK, &second)
	var approvals map[string]any
	c.JSON(http.MethodGet, proj+"/approvals", nil, http.StatusOK, &approvals)
	if len(approvals["approvals"].([]any)) != 2 {
		t.Fatalf("approvals %v", approvals)
	}
	got := h.Notifications(t, h.OrgID, "studio.approval.requested", 2)
	first := got["studio:approval:"+a["approvalRequestId"].(string)+":requested"]
	if first == nil || first["payload"].(map[string]any)["requested_by_user_id"] == "" || first["body"] != "Please look" {
		t.Fatalf("approval notifications %v", got)
	}
}

func toStrings(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}

// TestAssetsAndPreviews: upload (types, size bound), list, get with a
// signed preview that serves the bytes; an altered token, another asset's
// or workspace's link, a moved or passed expiry are one refusal that says
// nothing more; a deleted asset's bytes are gone.
func TestAssetsAndPreviews(t *testing.T) {
	h := apptest.Start(t, apptest.Options{Configure: func(cfg *app.Config) {
		module.SectionOf[*studiomod.Config](cfg.Modules).Commands.AssetMaxBytes = 64 << 10
	}})
	c := newClient(t, h, "")
	h.Workspace(t, h.OrgID, "brand-a")
	red := pngOf(t, color.RGBA{255, 0, 0, 255})
	a := c.upload("default", "?filename=red.png", "image/png", red, http.StatusCreated)
	b := c.upload("brand-a", "", "image/png", pngOf(t, color.RGBA{0, 255, 0, 255}), http.StatusCreated)
	if a["kind"] != "image" || a["size"].(float64) != float64(len(red)) || a["filename"] != "red.png" || a["source"] != "upload" {
		t.Fatalf("asset %v", a)
	}
	apptest.ExpectProblem(t, h.Do(t, "studio", http.MethodPost, base+"/assets", "", []byte("<html>"), "Content-Type", "text/html"),
		http.StatusUnsupportedMediaType, "unsupported_media_type")
	apptest.ExpectProblem(t, h.Do(t, "studio", http.MethodPost, base+"/assets", "", make([]byte, 65<<10), "Content-Type", "image/png"),
		http.StatusRequestEntityTooLarge, "payload_too_large")
	apptest.ExpectProblem(t, h.Do(t, "studio", http.MethodPost, base+"/assets?projectId=nope", "", red, "Content-Type", "image/png"),
		http.StatusNotFound, "not_found")

	var view map[string]any
	c.JSON(http.MethodGet, base+"/assets/"+a["assetId"].(string), nil, http.StatusOK, &view)
	link := view["previewUrl"].(string)
	res := h.Do(t, "studio", http.MethodGet, link, "-", nil)
	apptest.Must(t, res, http.StatusOK, "preview")
	if string(res.Body) != string(red) || res.Header.Get("Content-Type") != "image/png" || !strings.Contains(res.Header.Get("Content-Security-Policy"), "sandbox") {
		t.Fatalf("preview answer %q %v", res.Header.Get("Content-Type"), res.Header)
	}
	u, _ := url.Parse(link)
	q := u.Query()
	var bView map[string]any
	c.JSON(http.MethodGet, "/api/workspaces/brand-a/assets/"+b["assetId"].(string), nil, http.StatusOK, &bView)
	bq, _ := url.Parse(bView["previewUrl"].(string))
	exp, _ := strconv.ParseInt(q.Get("expiresAt"), 10, 64)
	tampered := map[string]string{
		"altered token":         base + "/assets/" + a["assetId"].(string) + "/preview?token=" + flip(q.Get("token")) + "&expiresAt=" + q.Get("expiresAt"),
		"moved expiry":          base + "/assets/" + a["assetId"].(string) + "/preview?token=" + q.Get("token") + "&expiresAt=" + strconv.FormatInt(exp+3600, 10),
		"another asset's token": base + "/assets/" + a["assetId"].(string) + "/preview?" + bq.RawQuery,
		"another workspace":     "/api/workspaces/brand-a/assets/" + a["assetId"].(string) + "/preview?" + q.Encode(),
		"an unknown asset":      base + "/assets/00000000-0000-7000-8000-000000000000/preview?" + q.Encode(),
		"expired":               base + "/assets/" + a["assetId"].(string) + "/preview?token=" + url.QueryEscape(signedAt(t, h, a["assetId"].(string), h.OrgID, time.Now().Add(-time.Minute))) + "&expiresAt=" + strconv.FormatInt(time.Now().Add(-time.Minute).Unix(), 10),
	}
	var want apptest.Problem
	for name, path := range tampered {
		p := apptest.ExpectProblem(t, h.Do(t, "studio", http.MethodGet, path, "-", nil), http.StatusForbidden, "permission_denied")
		if want.Detail == "" {
			want = p
		}
		if p.Detail != want.Detail || p.Title != want.Title || len(p.Errors) != 0 {
			t.Errorf("%s: %+v, unlike %+v", name, p, want)
		}
	}
	apptest.ExpectProblem(t, h.Do(t, "studio", http.MethodGet, base+"/assets/"+a["assetId"].(string)+"/preview?token=x", "-", nil),
		http.StatusUnprocessableEntity, "invalid_input")

	var page map[string]any
	c.JSON(http.MethodGet, base+"/assets?kind=image", nil, http.StatusOK, &page)
	if len(page["assets"].([]any)) != 1 {
		t.Fatalf("default's images %v", page)
	}
	files := h.Objects(t, h.OrgID+"/studio/")
	if files != 2 {
		t.Fatalf("%d objects stored for two assets", files)
	}
	c.Do(http.MethodDelete, base+"/assets/"+a["assetId"].(string), nil, http.StatusOK)
	c.Problem(http.MethodGet, base+"/assets/"+a["assetId"].(string), nil, http.StatusNotFound, "not_found")
	apptest.ExpectProblem(t, h.Do(t, "studio", http.MethodGet, link, "-", nil), http.StatusForbidden, "permission_denied")
	if after := h.Objects(t, h.OrgID+"/studio/"); after != files-1 {
		t.Fatalf("objects %d after deleting one of %d", after, files)
	}
	if n := h.Count(t, `SELECT count(*) FROM studio_object_deletions`); n != 0 {
		t.Fatalf("%d deletions left queued", n)
	}
}

// flip alters a token's first character.
func flip(s string) string {
	if s[0] == 'A' {
		return "B" + s[1:]
	}
	return "A" + s[1:]
}

// signedAt is a token the studio itself would sign for an expiry.
func signedAt(t *testing.T, h *apptest.Harness, asset, ws string, exp time.Time) string {
	t.Helper()
	return studioToken(h, asset, ws, exp.Unix())
}

// TestQuotaAndPlatformRoutes: the monthly render quota counts per workspace,
// warns once at its share (studio.quota.warning, its contract, one key for
// the month however many renders follow) and refuses past its limit (429
// quota_exceeded with Retry-After); who-am-I, bootstrap, the widget, the
// mobile routes (offline cache headers), model options, settings status,
// the plan's notification, /healthz and /readyz.
func TestQuotaAndPlatformRoutes(t *testing.T) {
	h := apptest.Start(t, apptest.Options{Configure: func(cfg *app.Config) {
		s := module.SectionOf[*studiomod.Config](cfg.Modules)
		s.Commands.RenderQuota, s.Commands.QuotaWarningPercent = 5, 60
	}})
	c := newClient(t, h, "")
	var p map[string]any
	c.JSON(http.MethodPost, base+"/projects", map[string]any{"title": "Quota"}, http.StatusCreated, &p)
	proj := base + "/projects/" + p["projectId"].(string)
	c.Do(http.MethodPost, proj+"/compositions", map[string]any{"title": "v1", "aspectRatio": "landscape_16_9", "snapshot": snapshot("", "")}, http.StatusCreated)
	for i := 0; i < 5; i++ { // an external renderer's: they stay queued (the platform's would render)
		c.Do(http.MethodPost, proj+"/render-jobs", map[string]any{"provider": "acme-render"}, http.StatusCreated)
	}
	res := h.Do(t, "studio", http.MethodPost, proj+"/render-jobs", "", nil)
	apptest.ExpectProblem(t, res, http.StatusTooManyRequests, "quota_exceeded")
	if ra, _ := strconv.Atoi(res.Header.Get("Retry-After")); ra < 1 || ra > 32*24*3600 {
		t.Fatalf("Retry-After %q", res.Header.Get("Retry-After"))
	}
	period := time.Now().UTC().Format("2006-01")
	warnings := h.Notifications(t, h.OrgID, "studio.quota.warning", 1)
	w := warnings["studio:quota-warning:"+h.OrgID+":projects.render_jobs.create:"+period]
	if len(warnings) != 1 || w == nil || w["payload"].(map[string]any)["period_key"] != period {
		t.Fatalf("warnings %v", warnings)
	}
	if n := h.Count(t, `SELECT count(*) FROM es_events WHERE event_type = 'studio.quota.warning_claimed' AND organization_id = $1`, h.OrgID); n != 1 {
		t.Fatalf("%d warnings claimed, want 1", n)
	}
	var quota map[string]any
	c.JSON(http.MethodGet, base+"/quota", nil, http.StatusOK, &quota)
	for _, a := range quota["actions"].([]any) {
		if a := a.(map[string]any); a["action"] == "projects.render_jobs.create" && (a["used"].(float64) != 5 || a["limit"].(float64) != 5 || a["warningId"] == nil) {
			t.Fatalf("quota %v", quota)
		}
	}

	// The plan's seam: a persisted plan is ready for review, once.
	pid := p["projectId"].(string)
	persistPlan(t, h, pid)
	persistPlan(t, h, pid)
	plans := h.Notifications(t, h.OrgID, "studio.plan.ready", 1)
	if plan := plans["studio:plan:"+pid+":ready:plan-1"]; len(plans) != 1 || plan["payload"].(map[string]any)["scene_count"].(float64) != 2 {
		t.Fatalf("plan notifications %v", plans)
	}
	var planning map[string]any
	apptest.Eventually(t, 30*time.Second, "the plan in the read model", func() bool {
		c.JSON(http.MethodGet, proj+"/planning", nil, http.StatusOK, &planning)
		return planning["status"] == "ready"
	})
	if planning["planId"] != "plan-1" || len(planning["scenes"].([]any)) != 2 {
		t.Fatalf("planning %v", planning)
	}

	var who, boot, widget, models, settings map[string]any
	c.JSON(http.MethodGet, "/api/whoami", nil, http.StatusOK, &who)
	if who["organizationId"] != h.OrgID || who["principalType"] != "api_key" || len(who["workspaces"].([]any)) != 1 {
		t.Fatalf("whoami %v", who)
	}
	c.JSON(http.MethodGet, "/api/bootstrap", nil, http.StatusOK, &boot)
	if len(boot) != 2 || boot["organization"].(map[string]any)["defaultWorkspace"] != "default" {
		t.Fatalf("bootstrap %v", boot)
	}
	c.JSON(http.MethodGet, "/api/widget", nil, http.StatusOK, &widget)
	tile := widget["widgets"].([]any)[0].(map[string]any)
	if widget["success"] != true || tile["appId"] != "studio" || tile["projects"].(float64) != 1 || tile["activeRenders"].(float64) != 5 {
		t.Fatalf("widget %v", widget)
	}
	c.JSON(http.MethodGet, base+"/generation/model-options", nil, http.StatusOK, &models)
	if len(models["providers"].([]any)) != 4 || models["canOverride"] != true {
		t.Fatalf("model options %v", models)
	}
	c.JSON(http.MethodGet, base+"/settings/status", nil, http.StatusOK, &settings)
	if settings["workspace"].(map[string]any)["slug"] != "default" || len(settings["renderFormats"].([]any)) != 4 {
		t.Fatalf("settings %v", settings)
	}
	apptest.ExpectProblem(t, h.Do(t, "studio", http.MethodGet, "/api/whoami", "-", nil), http.StatusUnauthorized, "authentication_required")

	for _, path := range []string{"/app/projects", "/app/projects/" + pid + "/brief", "/app/projects/" + pid + "/review"} {
		res := c.Do(http.MethodGet, path, nil, http.StatusOK)
		if !strings.Contains(res.Header.Get("Cache-Control"), "stale-if-error") || res.Header.Get("X-Platform-Offline-Policy") != "read-through" ||
			res.Header.Get("X-Platform-Fallback-Path") != "/app/projects" || !strings.Contains(res.Header.Get("Vary"), "Authorization") {
			t.Errorf("%s: cache headers %v", path, res.Header)
		}
	}
	var review map[string]any
	c.JSON(http.MethodGet, "/app/projects/"+pid+"/review", nil, http.StatusOK, &review)
	if review["latestComposition"] == nil || len(review["renderJobs"].([]any)) != 5 {
		t.Fatalf("review %v", review)
	}
	c.Problem(http.MethodGet, "/app/projects/00000000-0000-7000-8000-000000000000/brief", nil, http.StatusNotFound, "not_found")
	noProjects := h.Key(t, h.OrgID, []string{"workspace:read"})
	apptest.ExpectProblem(t, h.Do(t, "studio", http.MethodGet, "/app/projects", noProjects, nil), http.StatusForbidden, "permission_denied")

	for path, want := range map[string]int{"/healthz": http.StatusOK, "/readyz": http.StatusOK} {
		res := h.Do(t, "studio", http.MethodGet, path, "-", nil)
		body, _ := io.ReadAll(strings.NewReader(string(res.Body)))
		if res.Status != want {
			t.Fatalf("%s: %d %s", path, res.Status, body)
		}
	}
}
