package studio_test

import (
	"image/color"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/platform/backend/internal/apptest"
)

const base = "/api/workspaces/default"

// TestProjectsRoutes walks a project through the studio: create, list, get,
// update, brief, scenes, planning, composition versions (snapshot checked at
// its pointers), render jobs along their machine, approvals, duplicate, and
// every refusal's status and code.
func TestProjectsRoutes(t *testing.T) {
	h := apptest.Start(t, apptest.Options{})
	c := newClient(t, h, "")

	var p map[string]any
	c.JSON(http.MethodPost, base+"/projects", map[string]any{"title": " Spring launch ", "objective": "Sell more"}, http.StatusCreated, &p)
	pid := p["projectId"].(string)
	if p["title"] != "Spring launch" || p["workspaceId"] != h.OrgID || p["sceneCount"].(float64) != 0 {
		t.Fatalf("created %v", p)
	}
	proj := base + "/projects/" + pid

	t.Run("create refusals", func(t *testing.T) {
		pp := c.Problem(http.MethodPost, base+"/projects", map[string]any{"title": ""}, http.StatusUnprocessableEntity, "invalid_input")
		if !strings.Contains(strings.Join(pp.Pointers(), " "), "/title") {
			t.Errorf("pointers %v", pp.Pointers())
		}
		c.Problem(http.MethodPost, base+"/projects", map[string]any{"title": strings.Repeat("x", 256)}, http.StatusUnprocessableEntity, "invalid_input")
		pp = c.Problem(http.MethodPost, base+"/projects", map[string]any{"title": "T", "templateId": "nope"}, http.StatusUnprocessableEntity, "invalid_input")
		if strings.Join(pp.Pointers(), " ") != "/templateId" {
			t.Errorf("an unknown template: %v", pp.Pointers())
		}
		c.Problem(http.MethodPost, "/api/workspaces/nowhere/projects", map[string]any{"title": "T"}, http.StatusNotFound, "not_found")
		apptest.ExpectProblem(t, h.Do(t, "studio", http.MethodPost, base+"/projects", "-", map[string]any{"title": "T"}),
			http.StatusUnauthorized, "authentication_required")
		readOnly := h.Key(t, h.OrgID, []string{"workspace:read"})
		apptest.ExpectProblem(t, h.Do(t, "studio", http.MethodPost, base+"/projects", readOnly, map[string]any{"title": "T"}),
			http.StatusForbidden, "permission_denied")
	})

	t.Run("list, get, update", func(t *testing.T) {
		var page map[string]any
		c.JSON(http.MethodGet, base+"/projects?limit=1", nil, http.StatusOK, &page)
		if len(page["projects"].([]any)) != 1 {
			t.Fatalf("page %v", page)
		}
		// A brand kit must be one the caller sees (TestProjectsBrandKitIsChecked); "" clears it.
		c.JSON(http.MethodPatch, proj, map[string]any{"objective": "", "brandKitId": ""}, http.StatusOK, &p)
		if p["objective"] != nil || p["brandKitId"] != nil {
			t.Fatalf("after update %v", p)
		}
		c.Problem(http.MethodPatch, proj, map[string]any{}, http.StatusUnprocessableEntity, "invalid_input")
		c.Problem(http.MethodGet, base+"/projects/00000000-0000-7000-8000-000000000000", nil, http.StatusNotFound, "not_found")
	})

	t.Run("brief", func(t *testing.T) {
		c.JSON(http.MethodPatch, proj+"/structured-brief", map[string]any{"audience": "Runners", "styleNotes": "Bold"}, http.StatusOK, &p)
		var b map[string]any
		c.JSON(http.MethodGet, proj+"/structured-brief", nil, http.StatusOK, &b)
		if b["brief"].(map[string]any)["audience"] != "Runners" {
			t.Fatalf("brief %v", b)
		}
	})

	var scenes map[string]any
	t.Run("scenes", func(t *testing.T) {
		c.JSON(http.MethodPost, proj+"/scenes", map[string]any{"title": "Hook", "durationMs": 2000}, http.StatusCreated, &scenes)
		c.JSON(http.MethodPost, proj+"/scenes", map[string]any{"title": "CTA"}, http.StatusCreated, &scenes)
		c.JSON(http.MethodPost, proj+"/scenes", map[string]any{"title": "Intro", "position": 1}, http.StatusCreated, &scenes)
		list := scenes["scenes"].([]any)
		if len(list) != 3 || list[0].(map[string]any)["title"] != "Intro" {
			t.Fatalf("scenes %v", scenes)
		}
		last := list[2].(map[string]any)["sceneId"].(string)
		c.JSON(http.MethodDelete, proj+"/scenes/"+last, nil, http.StatusOK, &scenes)
		c.Problem(http.MethodPatch, proj+"/scenes/"+last, map[string]any{"title": "X"}, http.StatusNotFound, "not_found")
		c.Problem(http.MethodPost, proj+"/scenes", map[string]any{"title": "X", "durationMs": 99}, http.StatusUnprocessableEntity, "invalid_input")
		c.JSON(http.MethodGet, proj+"/scenes", nil, http.StatusOK, &scenes)
		if len(scenes["scenes"].([]any)) != 2 {
			t.Fatalf("scenes %v", scenes)
		}
		c.JSON(http.MethodGet, proj, nil, http.StatusOK, &p)
		if p["sceneCount"].(float64) != 2 {
			t.Fatalf("project scene count %v", p)
		}
	})

	t.Run("planning and regenerate queue generation requests", func(t *testing.T) {
		var g map[string]any
		scene := scenes["scenes"].([]any)[0].(map[string]any)["sceneId"].(string)
		c.JSON(http.MethodPost, proj+"/scenes/"+scene+"/generation/regenerate", map[string]any{"candidateCount": 2, "outputKind": "video",
			"videoDurationSeconds": 1}, http.StatusAccepted, &g)
		if g["kind"] != "scenes" || g["status"] != "queued" || g["sceneIds"].([]any)[0] != scene || g["candidateCount"].(float64) != 2 {
			t.Fatalf("regenerate %v", g)
		}
		// Its job makes two clips; sync shows the request as it goes.
		apptest.Eventually(t, 90*time.Second, "the regeneration", func() bool {
			var s map[string]any
			c.JSON(http.MethodGet, proj+"/sync", nil, http.StatusOK, &s)
			gens := s["generations"].([]any)
			done := len(gens) == 1 && gens[0].(map[string]any)["status"] == "completed"
			if done && len(gens[0].(map[string]any)["assetIds"].([]any)) != 2 {
				t.Fatalf("the regeneration %v", gens[0])
			}
			return done
		})
		pp := c.Problem(http.MethodPost, proj+"/scenes/"+scene+"/generation/regenerate", map[string]any{"candidateCount": 5,
			"videoDurationSeconds": 16, "sceneIds": []string{}, "gatewayModelOverride": strings.Repeat("m", 201)}, http.StatusUnprocessableEntity, "invalid_input")
		if len(pp.Errors) < 4 {
			t.Errorf("pointers %v", pp.Pointers())
		}
		pp = c.Problem(http.MethodPost, proj+"/scenes/"+scene+"/generation/regenerate", map[string]any{"sceneIds": []string{"nope"}},
			http.StatusUnprocessableEntity, "invalid_input")
		if strings.Join(pp.Pointers(), " ") != "/sceneIds/0" {
			t.Errorf("an unknown scene id: %v", pp.Pointers())
		}
		c.Problem(http.MethodPost, proj+"/scenes/nope/generation/regenerate", nil, http.StatusNotFound, "not_found")
		// Gateway overrides are a workspace admin's: a key without
		// workspace:manage is refused.
		limited := h.Key(t, h.OrgID, []string{"generation:write", "workspace:read"})
		apptest.ExpectProblem(t, h.Do(t, "studio", http.MethodPost, proj+"/scenes/"+scene+"/generation/regenerate", limited,
			map[string]any{"gatewayProviderOverride": "ai_provider_3"}), http.StatusForbidden, "permission_denied")

		// The plan replaces the project's scenes once its job persists it.
		c.JSON(http.MethodPost, proj+"/planning/generate", map[string]any{"sceneCount": 4}, http.StatusAccepted, &g)
		if g["status"] != "queued" || g["kind"] != "planning" || g["sceneCount"].(float64) != 4 {
			t.Fatalf("planning request %v", g)
		}
		var pl map[string]any
		c.JSON(http.MethodGet, proj+"/planning", nil, http.StatusOK, &pl)
		if (pl["status"] != "generating" && pl["status"] != "ready") || pl["latestGeneration"].(map[string]any)["generationId"] != g["generationId"] {
			t.Fatalf("planning %v", pl)
		}
		apptest.Eventually(t, 60*time.Second, "the plan", func() bool {
			c.JSON(http.MethodGet, proj+"/planning", nil, http.StatusOK, &pl)
			return pl["status"] == "ready"
		})
		if len(pl["scenes"].([]any)) != 4 || pl["latestGeneration"].(map[string]any)["planId"] != pl["planId"] {
			t.Fatalf("the plan %v", pl)
		}
		c.JSON(http.MethodGet, proj+"/scenes", nil, http.StatusOK, &scenes)
	})

	var cv map[string]any
	t.Run("compositions", func(t *testing.T) {
		logo := c.upload("default", "?projectId="+pid+"&filename=logo.png", "image/png", pngOf(t, color.RGBA{0, 0, 255, 255}), http.StatusCreated)
		c.JSON(http.MethodPost, proj+"/compositions", map[string]any{"title": "Cut 1", "aspectRatio": "portrait_9_16",
			"snapshot": snapshot("", logo["assetId"].(string)), "notes": []string{"first cut"}, "sourceKind": "ai_generated"}, http.StatusCreated, &cv)
		if cv["sourceKind"] != "ai_generated" || cv["generationStatus"] != "pending" || cv["revision"].(float64) != 1 {
			t.Fatalf("composition %v", cv)
		}
		bad := snapshot("", "missing-asset")
		bad["scenes"].([]any)[1].(map[string]any)["sceneId"] = "s1"
		pp := c.Problem(http.MethodPost, proj+"/compositions", map[string]any{"title": "X", "aspectRatio": "portrait_9_16", "snapshot": bad},
			http.StatusUnprocessableEntity, "invalid_input")
		if strings.Join(pp.Pointers(), " ") != "/snapshot/scenes/1/sceneId" {
			t.Errorf("a duplicate scene: %v", pp.Pointers())
		}
		bad["scenes"].([]any)[1].(map[string]any)["sceneId"] = "s2"
		pp = c.Problem(http.MethodPost, proj+"/compositions", map[string]any{"title": "X", "aspectRatio": "portrait_9_16", "snapshot": bad},
			http.StatusUnprocessableEntity, "invalid_input")
		if strings.Join(pp.Pointers(), " ") != "/snapshot/scenes/0/layers/1/assetId" {
			t.Errorf("an unknown asset: %v", pp.Pointers())
		}
		schemaBad := snapshot("", "")
		schemaBad["scenes"].([]any)[0].(map[string]any)["durationMs"] = 50
		pp = c.Problem(http.MethodPost, proj+"/compositions", map[string]any{"title": "X", "aspectRatio": "square", "snapshot": schemaBad},
			http.StatusUnprocessableEntity, "invalid_input")
		got := strings.Join(pp.Pointers(), " ")
		if !strings.Contains(got, "/aspectRatio") || !strings.Contains(got, "/snapshot/scenes/0/durationMs") {
			t.Errorf("schema pointers %v", got)
		}
		path := proj + "/compositions/" + cv["compositionVersionId"].(string)
		c.JSON(http.MethodPatch, path, map[string]any{"generationStatus": "running"}, http.StatusOK, &cv)
		c.Problem(http.MethodPatch, path, map[string]any{"generationStatus": "pending"}, http.StatusConflict, "invalid_transition")
		var list map[string]any
		c.JSON(http.MethodGet, proj+"/compositions", nil, http.StatusOK, &list)
		if len(list["compositions"].([]any)) != 1 {
			t.Fatalf("compositions %v", list)
		}
		c.JSON(http.MethodGet, path, nil, http.StatusOK, &cv)
		if cv["generationStatus"] != "running" || cv["revision"].(float64) != 2 {
			t.Fatalf("composition %v", cv)
		}
	})

	t.Run("render jobs", func(t *testing.T) {
		var j map[string]any
		// An external renderer's job (a provider other than the platform):
		// its reports move it along the machine.
		c.JSON(http.MethodPost, proj+"/render-jobs", map[string]any{"priority": 7, "outputFormat": "gif", "provider": "acme-render"},
			http.StatusCreated, &j)
		if j["renderStatus"] != "queued" || j["compositionVersionId"] != cv["compositionVersionId"] || j["priority"].(float64) != 7 {
			t.Fatalf("job %v", j)
		}
		job := proj + "/render-jobs/" + j["renderJobId"].(string)
		c.Problem(http.MethodPost, proj+"/render-jobs", map[string]any{"priority": 11}, http.StatusUnprocessableEntity, "invalid_input")
		c.Problem(http.MethodPost, proj+"/render-jobs", map[string]any{"compositionVersionId": "nope"}, http.StatusUnprocessableEntity, "invalid_input")
		c.JSON(http.MethodPatch, job, map[string]any{"renderStatus": "rendering"}, http.StatusOK, &j)
		c.JSON(http.MethodPatch, job, map[string]any{"progress": 60}, http.StatusOK, &j)
		if j["attempts"].(float64) != 1 || j["progress"].(float64) != 60 || j["startedAt"] == nil {
			t.Fatalf("rendering %v", j)
		}
		c.Problem(http.MethodPatch, job, map[string]any{"progress": 101}, http.StatusUnprocessableEntity, "invalid_input")
		c.Problem(http.MethodPatch, job, map[string]any{"renderStatus": "completed", "outputAssetId": "nope"}, http.StatusUnprocessableEntity, "invalid_input")
		out := c.upload("default", "?projectId="+pid, "image/gif", []byte("GIF89a\x01\x00\x01\x00\x00\x00\x00;"), http.StatusCreated)
		c.JSON(http.MethodPatch, job, map[string]any{"renderStatus": "completed", "outputAssetId": out["assetId"]}, http.StatusOK, &j)
		if j["progress"].(float64) != 100 || j["completedAt"] == nil {
			t.Fatalf("completed %v", j)
		}
		c.Problem(http.MethodPatch, job, map[string]any{"renderStatus": "rendering"}, http.StatusConflict, "invalid_transition")
		c.Problem(http.MethodPost, job+"/cancel", nil, http.StatusConflict, "invalid_transition")
		// The job to cancel is an external renderer's too: a platform job
		// may finish before the cancel reaches it (409, a race of the test).
		var second map[string]any
		c.JSON(http.MethodPost, proj+"/render-jobs", map[string]any{"priority": 9, "provider": "acme-render"}, http.StatusCreated, &second)
		c.JSON(http.MethodPost, proj+"/render-jobs/"+second["renderJobId"].(string)+"/cancel", nil, http.StatusOK, &second)
		if second["renderStatus"] != "cancelled" {
			t.Fatalf("cancelled %v", second)
		}
		var list map[string]any
		c.JSON(http.MethodGet, proj+"/render-jobs", nil, http.StatusOK, &list)
		jobs := list["renderJobs"].([]any)
		if len(jobs) != 2 || jobs[0].(map[string]any)["priority"].(float64) != 9 {
			t.Fatalf("queue order %v", list)
		}
		c.JSON(http.MethodGet, proj+"/render-jobs?renderStatus=completed", nil, http.StatusOK, &list)
		if len(list["renderJobs"].([]any)) != 1 {
			t.Fatalf("completed jobs %v", list)
		}
		c.JSON(http.MethodGet, job, nil, http.StatusOK, &j)
	})

	t.Run("sync and duplicate", func(t *testing.T) {
		var s map[string]any
		c.JSON(http.MethodGet, proj+"/sync", nil, http.StatusOK, &s)
		counts := s["counts"].(map[string]any)
		if s["latestComposition"] == nil || counts["compositions"].(float64) != 1 || counts["renderJobs"].(map[string]any)["completed"].(float64) != 1 {
			t.Fatalf("sync %v", s)
		}
		var originals map[string]any
		c.JSON(http.MethodGet, base+"/assets?projectId="+pid, nil, http.StatusOK, &originals)
		want := len(originals["assets"].([]any)) // the logo, the reported output, two generated clips
		var dup map[string]any
		c.JSON(http.MethodPost, proj+"/duplicate", map[string]any{"includeAssets": true}, http.StatusCreated, &dup)
		if dup["title"] != "Copy of Spring launch" || dup["duplicatedFrom"] != pid || dup["sceneCount"].(float64) != 4 {
			t.Fatalf("duplicate %v", dup)
		}
		// The answer's position is the new project's; its copied assets and
		// versions are streams of their own, shown as the read model applies them.
		var assets, comps map[string]any
		apptest.Eventually(t, 30*time.Second, "the copies in the read model", func() bool {
			c.JSON(http.MethodGet, base+"/assets?projectId="+dup["projectId"].(string), nil, http.StatusOK, &assets)
			c.JSON(http.MethodGet, base+"/projects/"+dup["projectId"].(string)+"/compositions", nil, http.StatusOK, &comps)
			return len(assets["assets"].([]any)) == want && len(comps["compositions"].([]any)) == 1
		})
		copied := comps["compositions"].([]any)
		logo := copied[0].(map[string]any)["snapshot"].(map[string]any)["scenes"].([]any)[0].(map[string]any)["layers"].([]any)[1].(map[string]any)["assetId"]
		mine := map[any]bool{}
		for _, a := range assets["assets"].([]any) {
			mine[a.(map[string]any)["assetId"]] = true
		}
		if !mine[logo] {
			t.Fatalf("the copy's snapshot names %v, not one of its copies %v", logo, mine)
		}
		var plain map[string]any
		c.JSON(http.MethodPost, proj+"/duplicate", map[string]any{"title": "Bare"}, http.StatusCreated, &plain)
		c.JSON(http.MethodGet, base+"/assets?projectId="+plain["projectId"].(string), nil, http.StatusOK, &assets)
		if plain["title"] != "Bare" || len(assets["assets"].([]any)) != 0 {
			t.Fatalf("without assets %v %v", plain, assets)
		}
	})

	t.Run("delete", func(t *testing.T) {
		var gone map[string]any
		c.JSON(http.MethodDelete, proj, nil, http.StatusOK, &gone)
		if gone["deleted"] != true {
			t.Fatalf("deleted %v", gone)
		}
		c.Problem(http.MethodGet, proj, nil, http.StatusNotFound, "not_found")
		c.Problem(http.MethodPatch, proj, map[string]any{"title": "X"}, http.StatusNotFound, "not_found")
		c.Problem(http.MethodPost, proj+"/render-jobs", nil, http.StatusNotFound, "not_found")
	})
}
