package studio_test

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"image/color"
	"image/png"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/platform/backend/internal/apptest"
	"github.com/platform/backend/internal/media"
	gatewaymod "github.com/platform/backend/internal/modules/gateway"
	"github.com/platform/backend/internal/testenv"
	"github.com/platform/backend/providers/ai"
	"github.com/platform/backend/providers/ai/aifake"
	"github.com/platform/backend/providers/fakekit"
)

// Render and generation jobs run on the job kernel in the harness's own
// worker (studio-jobs): these tests go route -> job -> asset -> download,
// and decode what they get.

// waitJob polls a render job until it has status (any other terminal
// status fails the test).
func waitJob(t *testing.T, c *client, path, status string, timeout time.Duration) map[string]any {
	t.Helper()
	var j map[string]any
	apptest.Eventually(t, timeout, "render job "+status, func() bool {
		c.JSON(http.MethodGet, path, nil, http.StatusOK, &j)
		s := j["renderStatus"].(string)
		if s != status && (s == "completed" || s == "failed" || s == "cancelled") {
			t.Fatalf("render job %s, want %s: %v", s, status, j)
		}
		return s == status
	})
	return j
}

// download fetches an asset through its signed preview link (the route
// clients download with) into a file named for its type.
func download(t *testing.T, c *client, assetID, ext string) (string, map[string]any) {
	t.Helper()
	var view map[string]any
	// The job's read model and the assets' are two projections: the asset
	// a completed job names shows once its own projection has caught up.
	apptest.Eventually(t, 20*time.Second, "the output asset "+assetID, func() bool {
		return c.h.Do(t, "studio", http.MethodGet, base+"/assets/"+assetID, c.token, nil).Status == http.StatusOK
	})
	c.JSON(http.MethodGet, base+"/assets/"+assetID, nil, http.StatusOK, &view)
	res := c.h.Do(t, "studio", http.MethodGet, view["previewUrl"].(string), "-", nil)
	apptest.Must(t, res, http.StatusOK, "download "+assetID)
	if got := res.Header.Get("Content-Type"); got != view["contentType"] {
		t.Fatalf("downloaded as %q, the asset is %v", got, view["contentType"])
	}
	path := filepath.Join(t.TempDir(), "asset"+ext)
	if err := os.WriteFile(path, res.Body, 0o600); err != nil {
		t.Fatal(err)
	}
	if int64(len(res.Body)) != int64(view["size"].(float64)) {
		t.Fatalf("downloaded %d bytes, the asset says %v", len(res.Body), view["size"])
	}
	return path, view
}

// near reports whether a pixel is within tol of a colour on each channel
// (H.264's 4:2:0 and the BT.709 round trip move colours a little).
func near(px color.Color, want color.RGBA, tol int) bool {
	r, g, b, _ := px.RGBA()
	d := func(a uint32, w uint8) bool { return math.Abs(float64(int(a>>8)-int(w))) <= float64(tol) }
	return d(r, want.R) && d(g, want.G) && d(b, want.B)
}

var (
	navy = color.RGBA{0x10, 0x20, 0x30, 255}
	red  = color.RGBA{255, 0, 0, 255}
)

// shortCut is a 3.5 s 720p composition: a navy scene with a title (2 s,
// fading into the next) and a red one (1.5 s).
func shortCut() map[string]any { return snapshot("", "") }

// longCut is a minute of 1080p: a render that runs long enough to be
// caught rendering.
func longCut() map[string]any {
	return map[string]any{"fps": 30, "resolution": "1080p", "scenes": []any{
		map[string]any{"sceneId": "long", "durationMs": 60000, "background": map[string]any{"type": "color", "color": "#203040"},
			"layers": []any{map[string]any{"type": "text", "layerId": "t", "text": "Long take", "fontSize": 96}}}}}
}

// TestRenderJobsRenderFiles: a render job of each output format is queued
// by the route, rendered by the platform's worker on the job kernel and
// completed with its output asset; the file downloaded through the asset's
// preview route decodes: MP4 and MOV are H.264 720x1280 of 3.5 s with the
// scenes' colours at their times, the GIF 480x854 at 15 fps (53 frames),
// the PNG sequence 105 frames of 720x1280.
func TestRenderJobsRenderFiles(t *testing.T) {
	h := apptest.Start(t, apptest.Options{})
	c := newClient(t, h, "")
	var p, cv map[string]any
	c.JSON(http.MethodPost, base+"/projects", map[string]any{"title": "Renders"}, http.StatusCreated, &p)
	proj := base + "/projects/" + p["projectId"].(string)
	c.JSON(http.MethodPost, proj+"/compositions", map[string]any{"title": "Cut", "aspectRatio": "portrait_9_16", "snapshot": shortCut()},
		http.StatusCreated, &cv)
	jobs := map[string]string{}
	for _, f := range []string{"mp4", "mov", "gif", "png_sequence"} {
		var j map[string]any
		c.JSON(http.MethodPost, proj+"/render-jobs", map[string]any{"outputFormat": f, "priority": 3}, http.StatusCreated, &j)
		if j["renderStatus"] != "queued" || j["provider"] != "platform" || j["attempts"].(float64) != 0 {
			t.Fatalf("%s: created %v", f, j)
		}
		jobs[f] = proj + "/render-jobs/" + j["renderJobId"].(string)
	}
	ctx := context.Background()
	for _, f := range []string{"mp4", "mov", "gif", "png_sequence"} {
		j := waitJob(t, c, jobs[f], "completed", 120*time.Second)
		if j["progress"].(float64) != 100 || j["attempts"].(float64) != 1 || j["outputAssetId"] == nil || j["startedAt"] == nil ||
			j["completedAt"] == nil || j["failureReason"] != nil {
			t.Fatalf("%s: completed %v", f, j)
		}
		ext := map[string]string{"mp4": ".mp4", "mov": ".mov", "gif": ".gif", "png_sequence": ".zip"}[f]
		path, asset := download(t, c, j["outputAssetId"].(string), ext)
		if asset["source"] != "render" || asset["jobId"] != j["renderJobId"] || asset["projectId"] != p["projectId"] {
			t.Fatalf("%s: output asset %v", f, asset)
		}
		switch f {
		case "mp4", "mov":
			info, err := media.Config{}.Probe(ctx, path)
			if err != nil {
				t.Fatal(err)
			}
			if info.Codec != "h264" || info.Width != 720 || info.Height != 1280 || info.Frames != 105 ||
				info.Duration < 3450*time.Millisecond || info.Duration > 3550*time.Millisecond || !strings.Contains(info.Container, f) {
				t.Fatalf("%s: %+v", f, info)
			}
			for _, at := range []struct {
				t    time.Duration
				want color.RGBA
			}{{500 * time.Millisecond, navy}, {3 * time.Second, red}} {
				img, err := media.Config{}.FrameAt(ctx, path, at.t)
				if err != nil {
					t.Fatal(err)
				}
				if px := img.At(20, 1260); !near(px, at.want, 12) {
					t.Fatalf("%s at %s: pixel %v, want %v", f, at.t, px, at.want)
				}
			}
		case "gif":
			info, err := media.Config{}.Probe(ctx, path)
			if err != nil {
				t.Fatal(err)
			}
			if info.Codec != "gif" || info.Width != 480 || info.Height != 854 || info.Frames != 53 {
				t.Fatalf("gif: %+v", info)
			}
		case "png_sequence":
			zr, err := zip.OpenReader(path)
			if err != nil {
				t.Fatal(err)
			}
			names := []string{}
			var last *zip.File
			for _, zf := range zr.File {
				names = append(names, zf.Name)
				if zf.Name == "frame_00090.png" { // 89/30 s: the red scene
					last = zf
				}
			}
			if len(names) != 105 || names[0] != "frame_00001.png" || last == nil {
				t.Fatalf("png sequence of %d frames: %v...", len(names), names[:min(3, len(names))])
			}
			rc, _ := last.Open()
			img, err := png.Decode(rc)
			rc.Close()
			zr.Close()
			if err != nil || img.Bounds().Dx() != 720 || img.Bounds().Dy() != 1280 || !near(img.At(20, 1260), red, 0) {
				t.Fatalf("frame 90: %v %v", err, img.Bounds())
			}
		}
	}
	// One output asset per job, in the object store once each.
	var assets map[string]any
	c.JSON(http.MethodGet, base+"/assets?projectId="+p["projectId"].(string), nil, http.StatusOK, &assets)
	if n := len(assets["assets"].([]any)); n != 4 || h.Objects(t, h.OrgID+"/studio/") != 4 {
		t.Fatalf("%d assets, %d objects, want 4 each", n, h.Objects(t, h.OrgID+"/studio/"))
	}
}

// TestRenderJobsFollowTheKernel: queued renders run by priority (higher
// first); reports on a platform render go to its kernel job under the render
// machine (rendering, queued and progress are the workers' own: 409; a
// queued job has no attempt to fail: 409; a running one's failure is
// recorded and stays); a cancelled job, queued or rendering, never
// completes and leaves no output.
func TestRenderJobsFollowTheKernel(t *testing.T) {
	h := apptest.Start(t, apptest.Options{})
	c := newClient(t, h, "")
	var p, long, short map[string]any
	c.JSON(http.MethodPost, base+"/projects", map[string]any{"title": "Queue"}, http.StatusCreated, &p)
	proj := base + "/projects/" + p["projectId"].(string)
	c.JSON(http.MethodPost, proj+"/compositions", map[string]any{"title": "Long", "aspectRatio": "portrait_9_16", "snapshot": longCut()},
		http.StatusCreated, &long)
	c.JSON(http.MethodPost, proj+"/compositions", map[string]any{"title": "Short", "aspectRatio": "portrait_9_16", "snapshot": shortCut()},
		http.StatusCreated, &short)
	render := func(cv map[string]any, priority int) string {
		var j map[string]any
		c.JSON(http.MethodPost, proj+"/render-jobs", map[string]any{"compositionVersionId": cv["compositionVersionId"], "priority": priority},
			http.StatusCreated, &j)
		return proj + "/render-jobs/" + j["renderJobId"].(string)
	}
	// The worker renders one at a time: A holds it.
	a := render(long, 0)
	var j map[string]any
	apptest.Eventually(t, 60*time.Second, "A rendering with progress", func() bool {
		c.JSON(http.MethodGet, a, nil, http.StatusOK, &j)
		return j["renderStatus"] == "rendering" && j["progress"].(float64) > 0
	})
	if j["attempts"].(float64) != 1 || j["startedAt"] == nil {
		t.Fatalf("A rendering %v", j)
	}
	c.Problem(http.MethodPatch, a, map[string]any{"renderStatus": "rendering"}, http.StatusConflict, "invalid_transition")
	c.Problem(http.MethodPatch, a, map[string]any{"progress": 50}, http.StatusConflict, "invalid_transition")
	c.Problem(http.MethodPatch, a, map[string]any{"renderStatus": "completed"}, http.StatusUnprocessableEntity, "invalid_input")
	c.Problem(http.MethodPatch, a, map[string]any{"renderStatus": "completed", "outputAssetId": "nope"}, http.StatusUnprocessableEntity, "invalid_input")

	q, low, high := render(short, 0), render(short, 1), render(long, 9)
	c.JSON(http.MethodPost, q+"/cancel", nil, http.StatusOK, &j)
	if j["renderStatus"] != "cancelled" || j["attempts"].(float64) != 0 {
		t.Fatalf("Q cancelled while queued %v", j)
	}
	c.Problem(http.MethodPatch, low, map[string]any{"renderStatus": "failed"}, http.StatusConflict, "invalid_transition")

	// A renderer reports A failed: recorded on its kernel job, and A stays
	// failed (the worker's attempt is stopped; nothing it does counts).
	c.JSON(http.MethodPatch, a, map[string]any{"renderStatus": "failed", "failureReason": "GPU lost"}, http.StatusOK, &j)
	if j["renderStatus"] != "failed" || j["failureReason"] != "GPU lost" || j["failureCode"] != "render_failed" || j["completedAt"] == nil {
		t.Fatalf("A failed %v", j)
	}
	c.Problem(http.MethodPost, a+"/cancel", nil, http.StatusConflict, "invalid_transition")

	// The worker takes the higher priority first: H (9), then L (1).
	hj := map[string]any{}
	apptest.Eventually(t, 60*time.Second, "H rendering", func() bool {
		c.JSON(http.MethodGet, high, nil, http.StatusOK, &hj)
		return hj["renderStatus"] == "rendering"
	})
	c.JSON(http.MethodGet, low, nil, http.StatusOK, &j)
	if j["renderStatus"] != "queued" {
		t.Fatalf("L is %v while H renders", j["renderStatus"])
	}
	c.JSON(http.MethodPost, high+"/cancel", nil, http.StatusOK, &hj)
	if hj["renderStatus"] != "cancelled" {
		t.Fatalf("H cancelled %v", hj)
	}
	lj := waitJob(t, c, low, "completed", 120*time.Second)
	hStarted, _ := time.Parse(time.RFC3339Nano, hj["startedAt"].(string))
	lStarted, _ := time.Parse(time.RFC3339Nano, lj["startedAt"].(string))
	if !hStarted.Before(lStarted) {
		t.Fatalf("H (priority 9) started %s, L (priority 1) %s", hStarted, lStarted)
	}
	// Cancelled and failed stay so; only L left an output.
	time.Sleep(2 * time.Second) // an attempt that went on would have recorded by now
	for path, want := range map[string]string{a: "failed", q: "cancelled", high: "cancelled"} {
		c.JSON(http.MethodGet, path, nil, http.StatusOK, &j)
		if j["renderStatus"] != want || j["outputAssetId"] != nil {
			t.Fatalf("%s: %v, want %s", path, j, want)
		}
	}
	var assets map[string]any
	c.JSON(http.MethodGet, base+"/assets?projectId="+p["projectId"].(string), nil, http.StatusOK, &assets)
	if list := assets["assets"].([]any); len(list) != 1 || list[0].(map[string]any)["assetId"] != lj["outputAssetId"] || h.Objects(t, h.OrgID+"/studio/") != 1 {
		t.Fatalf("assets %v, %d objects: only L's output", list, h.Objects(t, h.OrgID+"/studio/"))
	}
	c.Problem(http.MethodPatch, low, map[string]any{"renderStatus": "cancelled"}, http.StatusConflict, "invalid_transition")
}

// payloadOf is a notification's payload member (nil when there is none).
func payloadOf(n map[string]any) map[string]any {
	p, _ := n["payload"].(map[string]any)
	return p
}

// usage counts the gateway's charged calls of an organization's studio.
func usage(t *testing.T, h *apptest.Harness, org string) int64 {
	t.Helper()
	return h.Count(t, `SELECT count(*) FROM es_events WHERE event_type = 'gateway.usage.recorded' AND organization_id = $1
		AND payload->>'app_id' = 'studio' AND (payload->>'provider_cost_microcents')::bigint > 0`, org)
}

// waitGeneration polls the project's sync until its newest scene
// generation has status.
func waitGeneration(t *testing.T, c *client, proj, id, status string) map[string]any {
	t.Helper()
	var got map[string]any
	apptest.Eventually(t, 120*time.Second, "generation "+status, func() bool {
		var s map[string]any
		c.JSON(http.MethodGet, proj+"/sync", nil, http.StatusOK, &s)
		for _, g := range s["generations"].([]any) {
			if g := g.(map[string]any); g["generationId"] == id {
				got = g
				st := g["status"].(string)
				if st != status && (st == "completed" || st == "failed" || st == "cancelled") {
					t.Fatalf("generation %s, want %s: %v", st, status, g)
				}
				return st == status
			}
		}
		return false
	})
	return got
}

// newScenes makes a project with a brief and two scenes.
func newScenes(t *testing.T, c *client) (string, []string) {
	t.Helper()
	var p, s map[string]any
	c.JSON(http.MethodPost, base+"/projects", map[string]any{"title": "Launch", "objective": "Sell shoes"}, http.StatusCreated, &p)
	proj := base + "/projects/" + p["projectId"].(string)
	c.Do(http.MethodPatch, proj+"/structured-brief", map[string]any{"styleNotes": "Neon", "audience": "Runners"}, http.StatusOK)
	c.JSON(http.MethodPost, proj+"/scenes", map[string]any{"title": "Hook", "prompt": "a red rocket"}, http.StatusCreated, &s)
	c.JSON(http.MethodPost, proj+"/scenes", map[string]any{"title": "Call to action", "description": "Buy now"}, http.StatusCreated, &s)
	var ids []string
	for _, sc := range s["scenes"].([]any) {
		ids = append(ids, sc.(map[string]any)["sceneId"].(string))
	}
	return p["projectId"].(string), ids
}

// TestGenerationJobs: a scene regeneration is a job through the gateway:
// candidateCount images per scene, each a metered call of the studio and a
// PNG asset of the project (studio.asset.ready each), the job completed
// with its assets (studio.generation.completed, asset_count), every
// notification valid and keyed once, unchanged by a rebuild of the read
// model; a video candidate is a clip rendered from the generated image
// (H.264, 720x1280, its duration, the image's colour); a planning request
// persists a plan of sceneCount scenes (studio.plan.ready).
func TestGenerationJobs(t *testing.T) {
	h := apptest.Start(t, apptest.Options{})
	c := newClient(t, h, "")
	kit := apptest.Provided[*gatewaymod.Sandbox](h).Kit(ai.Provider1)
	pid, scenes := newScenes(t, c)
	proj := base + "/projects/" + pid

	var g map[string]any
	c.JSON(http.MethodPost, proj+"/scenes/"+scenes[0]+"/generation/regenerate", map[string]any{"sceneIds": scenes, "candidateCount": 2},
		http.StatusAccepted, &g)
	id := g["generationId"].(string)
	done := waitGeneration(t, c, proj, id, "completed")
	assets := done["assetIds"].([]any)
	if len(assets) != 4 || done["attempts"].(float64) != 1 || done["providerUsed"] != "ai_provider_1" || done["completedAt"] == nil {
		t.Fatalf("completed %v", done)
	}
	for i, a := range assets {
		path, view := download(t, c, a.(string), ".png")
		if view["source"] != "generation" || view["kind"] != "image" || view["jobId"] != id || view["sceneId"] != scenes[i/2] {
			t.Fatalf("asset %d: %v", i, view)
		}
		raw, _ := os.ReadFile(path)
		img, err := png.Decode(bytes.NewReader(raw))
		if err != nil || img.Bounds().Dx() != aifake.PNGSize {
			t.Fatalf("asset %d does not decode as the fake's PNG: %v", i, err)
		}
	}
	if n := usage(t, h, h.OrgID); n != 4 {
		t.Fatalf("%d charged calls, want 4", n)
	}
	var prompts []string
	for _, r := range kit.Requests() {
		var body struct {
			Prompt string `json:"prompt"`
		}
		_ = json.Unmarshal(r.Body, &body)
		prompts = append(prompts, body.Prompt)
	}
	if len(prompts) != 4 || !strings.HasPrefix(prompts[0], "a red rocket") || !strings.Contains(prompts[0], "Style: Neon") ||
		!strings.Contains(prompts[1], "Variation 2 of 2") || !strings.HasPrefix(prompts[2], "Call to action. Buy now") {
		t.Fatalf("prompts %q", prompts)
	}
	ready := h.Notifications(t, h.OrgID, "studio.asset.ready", 4)
	completed := h.Notifications(t, h.OrgID, "studio.generation.completed", 1)
	for _, a := range assets {
		if p := payloadOf(ready["studio:asset:"+a.(string)+":ready"]); p == nil || p["job_id"] != id {
			t.Fatalf("asset.ready of %v: %v", a, ready)
		}
	}
	if p := payloadOf(completed["studio:generation:"+id+":completed"]); p == nil || p["asset_count"].(float64) != 4 || p["scene_id"] != scenes[0] {
		t.Fatalf("generation.completed %v", completed)
	}

	// A rebuild of the read model re-runs nothing and notifies nothing again.
	before := h.Count(t, `SELECT count(*) FROM notification_deliveries WHERE organization_id = $1`, h.OrgID)
	h.Rebuild(t, "studio")
	again := waitGeneration(t, c, proj, id, "completed")
	if !slices.Equal(toStrings(again["assetIds"]), toStrings(done["assetIds"])) {
		t.Fatalf("after the rebuild %v", again)
	}
	if after := h.Count(t, `SELECT count(*) FROM notification_deliveries WHERE organization_id = $1`, h.OrgID); after != before || usage(t, h, h.OrgID) != 4 {
		t.Fatalf("after the rebuild: %d deliveries (were %d), %d charged calls", after, before, usage(t, h, h.OrgID))
	}

	// A video candidate: a clip of the generated image.
	c.JSON(http.MethodPost, proj+"/scenes/"+scenes[0]+"/generation/regenerate", map[string]any{"outputKind": "video", "videoDurationSeconds": 2},
		http.StatusAccepted, &g)
	clip := waitGeneration(t, c, proj, g["generationId"].(string), "completed")
	path, view := download(t, c, clip["assetIds"].([]any)[0].(string), ".mp4")
	if view["kind"] != "video" || view["contentType"] != "video/mp4" {
		t.Fatalf("clip asset %v", view)
	}
	info, err := media.Config{}.Probe(context.Background(), path)
	if err != nil || info.Codec != "h264" || info.Width != 720 || info.Height != 1280 || info.Duration < 1950*time.Millisecond ||
		info.Duration > 2050*time.Millisecond {
		t.Fatalf("clip %+v %v", info, err)
	}
	var body struct {
		Prompt string `json:"prompt"`
	}
	_ = json.Unmarshal(kit.Last().Body, &body)
	frame, err := media.Config{}.FrameAt(context.Background(), path, 500*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if want := aifake.PNGColor(body.Prompt, 0); !near(frame.At(60, 1100), want, 14) {
		t.Fatalf("the clip's pixel %v, the generated image's colour %v", frame.At(60, 1100), want)
	}

	// Planning: a plan of three scenes, ready for review.
	c.JSON(http.MethodPost, proj+"/planning/generate", map[string]any{"sceneCount": 3}, http.StatusAccepted, &g)
	var pl map[string]any
	apptest.Eventually(t, 60*time.Second, "the plan", func() bool {
		c.JSON(http.MethodGet, proj+"/planning", nil, http.StatusOK, &pl)
		return pl["status"] == "ready"
	})
	plan := pl["planId"].(string)
	if len(pl["scenes"].([]any)) != 3 || pl["latestGeneration"].(map[string]any)["planId"] != plan {
		t.Fatalf("planning %v", pl)
	}
	ready = h.Notifications(t, h.OrgID, "studio.plan.ready", 1)
	if p := payloadOf(ready["studio:plan:"+pid+":ready:"+plan]); p == nil || p["scene_count"].(float64) != 3 {
		t.Fatalf("plan.ready %v", ready)
	}
}

// TestGenerationFallbackAndSpendCap: when the request's provider fails, its
// fallback answers (the first's failure is not charged, the fallback's
// call is); when both fail past the policy's attempts the job fails with
// the last provider and code (studio.generation.failed); a hard spend cap
// refuses the reservation: the job fails at once with spend_cap_exceeded,
// no provider (not even the fallback) is called.
func TestGenerationFallbackAndSpendCap(t *testing.T) {
	h := apptest.Start(t, apptest.Options{})
	c := newClient(t, h, "")
	sandbox := apptest.Provided[*gatewaymod.Sandbox](h)
	openai, gemini := sandbox.Kit(ai.Provider1), sandbox.Kit(ai.Provider3)
	pid, scenes := newScenes(t, c)
	proj := base + "/projects/" + pid
	regenerate := func(c *client, proj string, body map[string]any) string {
		var g map[string]any
		c.JSON(http.MethodPost, proj+"/scenes/"+scenes[0]+"/generation/regenerate", body, http.StatusAccepted, &g)
		return g["generationId"].(string)
	}

	openai.Always(fakekit.Fault{Kind: fakekit.ServerError})
	id := regenerate(c, proj, map[string]any{"provider": "media-provider-1", "fallbackProvider": "media-provider-2"})
	g := waitGeneration(t, c, proj, id, "completed")
	if g["providerUsed"] != "ai_provider_3" || len(g["assetIds"].([]any)) != 1 || g["attempts"].(float64) != 1 {
		t.Fatalf("fallback %v", g)
	}
	if len(openai.Requests()) == 0 || len(gemini.Requests()) != 1 || usage(t, h, h.OrgID) != 1 {
		t.Fatalf("openai %d requests, gemini %d, %d charged", len(openai.Requests()), len(gemini.Requests()), usage(t, h, h.OrgID))
	}

	// Both fail on every attempt: failed for good, naming the fallback.
	gemini.Always(fakekit.Fault{Kind: fakekit.ServerError})
	id = regenerate(c, proj, map[string]any{"provider": "media-provider-1", "fallbackProvider": "media-provider-2"})
	g = waitGeneration(t, c, proj, id, "failed")
	if g["attempts"].(float64) != 3 || g["failedProvider"] != "media-provider-2" || g["failureCode"] != "provider_error" {
		t.Fatalf("failed %v", g)
	}
	failed := h.Notifications(t, h.OrgID, "studio.generation.failed", 1)
	if p := payloadOf(failed["studio:generation:"+id+":failed"]); p == nil || p["provider"] != "media-provider-2" || p["error_code"] != "provider_error" ||
		p["scene_id"] != scenes[0] {
		t.Fatalf("generation.failed %v", failed)
	}
	openai.Reset() // the faults; the requests stay logged
	gemini.Reset()
	called := len(openai.Requests()) + len(gemini.Requests())

	// A hard cap in another organization.
	org, token := h.NewOrganization(t, "Capped", testenv.UniqueName("capped"), apptest.DefaultScopes...)
	capped := newClient(t, h, token)
	apptest.Must(t, h.Do(t, "gateway", http.MethodPost, "/api/billing/spend-caps", token, map[string]any{"scopeType": "organization",
		"monthlyCapCents": 1, "capMode": "hard"}), http.StatusOK, "hard cap")
	cpid, _ := newScenes(t, capped)
	var s map[string]any
	capped.JSON(http.MethodGet, base+"/projects/"+cpid+"/scenes", nil, http.StatusOK, &s)
	scenes = []string{s["scenes"].([]any)[0].(map[string]any)["sceneId"].(string)}
	cproj := base + "/projects/" + cpid
	id = regenerate(capped, cproj, map[string]any{"provider": "media-provider-1", "fallbackProvider": "media-provider-2"})
	g = waitGeneration(t, capped, cproj, id, "failed")
	if g["failureCode"] != "spend_cap_exceeded" || g["attempts"].(float64) != 1 || g["failedProvider"] != "media-provider-1" {
		t.Fatalf("capped %v", g)
	}
	if n := len(openai.Requests()) + len(gemini.Requests()) - called; n != 0 || usage(t, h, org) != 0 {
		t.Fatalf("a provider was called past the cap: %d requests, %d charged", n, usage(t, h, org))
	}
	failed = h.Notifications(t, org, "studio.generation.failed", 1)
	if p := payloadOf(failed["studio:generation:"+id+":failed"]); p == nil || p["error_code"] != "spend_cap_exceeded" || p["provider"] != "media-provider-1" {
		t.Fatalf("capped generation.failed %v", failed)
	}
}
