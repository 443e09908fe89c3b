package studio_test

import (
	"image/color"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/platform/backend/internal/apptest"
	"github.com/platform/backend/internal/testenv"
)

// ids are one of each object an organization holds.
type ids struct{ project, scene, composition, job, approval, asset, template, preset string }

// probes are every studio route that names an id, in workspace slug.
func probes(slug string, i ids, preview url.Values) []struct {
	method, path string
	body         any
} {
	w := "/api/workspaces/" + slug
	p := w + "/projects/" + i.project
	title := map[string]any{"title": "Mallory"}
	return []struct {
		method, path string
		body         any
	}{
		{http.MethodGet, p, nil}, {http.MethodPatch, p, title}, {http.MethodPost, p + "/duplicate", nil},
		{http.MethodGet, p + "/structured-brief", nil}, {http.MethodPatch, p + "/structured-brief", title},
		{http.MethodGet, p + "/scenes", nil}, {http.MethodPost, p + "/scenes", title},
		{http.MethodPatch, p + "/scenes/" + i.scene, title}, {http.MethodPost, p + "/scenes/" + i.scene + "/generation/regenerate", nil},
		{http.MethodGet, p + "/planning", nil}, {http.MethodPost, p + "/planning/generate", nil}, {http.MethodGet, p + "/sync", nil},
		{http.MethodGet, p + "/compositions", nil},
		{http.MethodPost, p + "/compositions", map[string]any{"title": "X", "aspectRatio": "portrait_9_16", "snapshot": snapshot("", "")}},
		{http.MethodGet, p + "/compositions/" + i.composition, nil}, {http.MethodPatch, p + "/compositions/" + i.composition, title},
		{http.MethodGet, p + "/render-jobs", nil}, {http.MethodPost, p + "/render-jobs", nil},
		{http.MethodGet, p + "/render-jobs/" + i.job, nil}, {http.MethodPatch, p + "/render-jobs/" + i.job, map[string]any{"progress": 1}},
		{http.MethodPost, p + "/render-jobs/" + i.job + "/cancel", nil},
		{http.MethodGet, p + "/approvals", nil},
		{http.MethodPost, p + "/approvals", map[string]any{"reviewerUserId": "00000000-0000-7000-8000-000000000001"}},
		{http.MethodPost, p + "/approvals/" + i.approval + "/approve", nil}, {http.MethodPost, p + "/approvals/" + i.approval + "/reject", nil},
		{http.MethodGet, w + "/assets/" + i.asset, nil}, {http.MethodGet, w + "/assets?projectId=" + i.project, nil},
		{http.MethodPatch, w + "/project-templates/" + i.template, map[string]any{"name": "X"}},
		{http.MethodPatch, w + "/presets/" + i.preset, map[string]any{"name": "X"}},
		{http.MethodGet, "/app/projects/" + i.project + "/brief", nil}, {http.MethodGet, "/app/projects/" + i.project + "/review", nil},
		{http.MethodDelete, p + "/scenes/" + i.scene, nil}, {http.MethodDelete, w + "/assets/" + i.asset, nil}, {http.MethodDelete, p, nil},
	}
}

// TestAnotherTenantsAndWorkspacesIDsAreMissingOnes: every route naming an
// id, called by another organization with the first one's ids, or by the
// same organization through another workspace's path, answers exactly as
// for ids that exist nowhere; nothing of the first organization changes.
// The asset list filtered by another's project is empty, not an error.
func TestAnotherTenantsAndWorkspacesIDsAreMissingOnes(t *testing.T) {
	h := apptest.Start(t, apptest.Options{})
	owner := newClient(t, h, "")
	var i ids
	var p, scenes, cv, job, approval, tpl, preset map[string]any
	owner.JSON(http.MethodPost, base+"/projects", map[string]any{"title": "Secret"}, http.StatusCreated, &p)
	i.project = p["projectId"].(string)
	proj := base + "/projects/" + i.project
	owner.JSON(http.MethodPost, proj+"/scenes", map[string]any{"title": "S"}, http.StatusCreated, &scenes)
	i.scene = scenes["scenes"].([]any)[0].(map[string]any)["sceneId"].(string)
	owner.JSON(http.MethodPost, proj+"/compositions", map[string]any{"title": "V", "aspectRatio": "portrait_9_16", "snapshot": snapshot("", "")},
		http.StatusCreated, &cv)
	i.composition = cv["compositionVersionId"].(string)
	owner.JSON(http.MethodPost, proj+"/render-jobs", nil, http.StatusCreated, &job)
	i.job = job["renderJobId"].(string)
	reviewer := h.NewPerson(t, h.OrgID, "member").UserID
	owner.JSON(http.MethodPost, proj+"/approvals", map[string]any{"reviewerUserId": reviewer}, http.StatusCreated, &approval)
	i.approval = approval["approvalRequestId"].(string)
	i.asset = owner.upload("default", "?projectId="+i.project, "image/png", pngOf(t, color.White), http.StatusCreated)["assetId"].(string)
	owner.JSON(http.MethodPost, base+"/project-templates", map[string]any{"name": "T"}, http.StatusCreated, &tpl)
	i.template = tpl["templateId"].(string)
	owner.JSON(http.MethodPost, base+"/presets", map[string]any{"name": "P"}, http.StatusCreated, &preset)
	i.preset = preset["presetId"].(string)
	var asset map[string]any
	owner.JSON(http.MethodGet, base+"/assets/"+i.asset, nil, http.StatusOK, &asset)
	link, _ := url.Parse(asset["previewUrl"].(string))
	// The render runs on its own: the first organization's state is taken
	// once it finished, so only another caller's doing could change it. Its
	// output asset is recorded by a command of its own before the job's
	// completion, on another stream, so the read model may show the job
	// completed before the asset (seen once: assets 1, then 2): both are
	// waited for.
	var before map[string]any
	apptest.Eventually(t, 90*time.Second, "the render and its output asset", func() bool {
		var renders map[string]any
		owner.JSON(http.MethodGet, proj+"/render-jobs?renderStatus=completed", nil, http.StatusOK, &renders)
		if len(renders["renderJobs"].([]any)) != 1 {
			return false
		}
		owner.JSON(http.MethodGet, proj+"/sync", nil, http.StatusOK, &before)
		counts, _ := before["counts"].(map[string]any)
		return counts["assets"] == float64(2) // the upload and the render's output
	})

	const missing = "00000000-0000-7000-8000-00000000dead"
	nowhere := ids{missing, missing, missing, missing, missing, missing, missing, missing}
	_, otherKey := h.NewOrganization(t, "Other", testenv.UniqueName("other"), apptest.DefaultScopes...)
	h.Workspace(t, h.OrgID, "brand-a")
	for _, caller := range []struct {
		name, token, slug string
	}{
		{"another organization", otherKey, "default"},
		{"another workspace", "", "brand-a"},
	} {
		theirs, none := probes(caller.slug, i, link.Query()), probes(caller.slug, nowhere, link.Query())
		for n, pr := range theirs {
			if caller.name == "another workspace" && (pr.path == "/app/projects/"+i.project+"/brief" || pr.path == "/app/projects/"+i.project+"/review") {
				continue // the mobile routes name no workspace: the organization's own project is found
			}
			got := h.Do(t, "studio", pr.method, pr.path, caller.token, pr.body)
			want := h.Do(t, "studio", none[n].method, none[n].path, caller.token, none[n].body)
			if pr.method == http.MethodGet && pr.path == "/api/workspaces/"+caller.slug+"/assets?projectId="+i.project {
				if got.Status != http.StatusOK || len(decode(t, got.Body)["assets"].([]any)) != 0 {
					t.Errorf("%s: %s lists %s", caller.name, pr.path, got.Body)
				}
				continue
			}
			gp := apptest.ExpectProblem(t, got, http.StatusNotFound, "not_found")
			wp := apptest.ExpectProblem(t, want, http.StatusNotFound, "not_found")
			if gp.Detail != wp.Detail {
				t.Errorf("%s: %s %s: %q; a missing id: %q", caller.name, pr.method, pr.path, gp.Detail, wp.Detail)
			}
		}
	}
	// The asset's own link under another workspace's path: the one refusal.
	// (The public route has no organization: the link itself, whoever holds
	// it, is the credential.)
	apptest.ExpectProblem(t, h.Do(t, "studio", http.MethodGet, "/api/workspaces/brand-a/assets/"+i.asset+"/preview?"+link.RawQuery, "-", nil),
		http.StatusForbidden, "permission_denied")
	var after map[string]any
	owner.JSON(http.MethodGet, proj+"/sync", nil, http.StatusOK, &after)
	before["syncedAt"], after["syncedAt"] = nil, nil
	if string(mustJSON(t, before)) != string(mustJSON(t, after)) {
		t.Fatalf("the first organization's project changed:\n%v\n%v", before, after)
	}
	apptest.Must(t, h.Do(t, "studio", http.MethodGet, link.String(), "-", nil), http.StatusOK, "the owner's preview still works")
}
