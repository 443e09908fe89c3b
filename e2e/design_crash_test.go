package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/platform/backend/internal/app"
	"github.com/platform/backend/internal/media"
	"github.com/platform/backend/internal/media/raster/testfonts"
	"github.com/platform/backend/internal/objectstore"
)

// TestDesignExportWorkerKillNine: the design API runs without job workers;
// an mp4 export is rendered by a worker process of its own
// (PLATFORM_SERVICES=design-jobs), killed with SIGKILL while it renders
// (the export is rendering, its progress recorded, no file stored yet). A
// second worker takes over once the dead worker's lease runs out: the
// export's probe finds no file, a new attempt renders it; the export is
// ready once, with one file, and design.export.ready is delivered once.
func TestDesignExportWorkerKillNine(t *testing.T) {
	s := NewStack(t)
	shared := t.TempDir() // the object store every process shares
	env := []string{"PLATFORM_DATA_DIR=" + shared, "DESIGN_EXPORT_LEASE=3s", "TIMERS_POLL_INTERVAL=100ms"}
	api := s.StartServer(ServerOptions{Name: "api", Services: app.Services(), Env: env})
	if len(api.Workers) != 0 {
		t.Fatalf("the API process runs workers %v", api.Workers)
	}
	call := func(svc, method, path string, body any, want int, out any, headers ...string) {
		t.Helper()
		h := map[string]string{}
		for i := 0; i+1 < len(headers); i += 2 {
			h[headers[i]] = headers[i+1]
		}
		res := do(t, Req{Method: method, URL: api.URL(svc) + path, Key: s.APIKey, Body: body, Headers: h})
		if res.Status != want {
			t.Fatalf("%s %s: %s, want %d", method, path, res, want)
		}
		if out != nil {
			res.Decode(t, out)
		}
	}

	// A kit with the script font, and a 15 s clip where a square crosses
	// every page: each frame is drawn.
	var kit map[string]any
	call("brands", http.MethodPost, "/api/brand-kits", map[string]any{"name": "Acme", "colours": []any{
		map[string]any{"name": "Primary", "hex": "#0A66C2"}, map[string]any{"name": "Accent", "hex": "#FFB000"}}}, http.StatusCreated, &kit)
	id := kit["id"].(string)
	call("brands", http.MethodPost, "/api/brand-kits/"+id+"/fonts", testfonts.Dynalight, http.StatusCreated, nil, "Content-Type", "font/otf")
	call("brands", http.MethodPost, "/api/brand-kits/"+id+"/publish", nil, http.StatusOK, nil)
	var project, design map[string]any
	call("design", http.MethodPost, "/api/workspaces/default/projects", map[string]any{"name": "Clip"}, http.StatusCreated, &project)
	var pages []any
	for i := range 3 {
		pages = append(pages, map[string]any{"pageId": "p" + string(rune('1'+i)), "background": "#0A66C2", "durationMs": 5000, "layers": []any{
			map[string]any{"layerId": "t" + string(rune('1'+i)), "type": "text", "x": 60, "y": 80, "width": 960, "height": 300,
				"text": "Spring collection", "fontFamily": "Dynalight", "fontSize": 140, "fill": "#FFB000",
				"keyframes": []any{map[string]any{"atMs": 0, "rotation": 0, "opacity": 0.2}, map[string]any{"atMs": 5000, "rotation": 20, "opacity": 1}}},
			map[string]any{"layerId": "s" + string(rune('1'+i)), "type": "ellipse", "x": 0, "y": 600, "width": 300, "height": 300, "fill": "#FFB000",
				"keyframes": []any{map[string]any{"atMs": 0, "x": 0, "scale": 0.5}, map[string]any{"atMs": 5000, "x": 780, "scale": 1.5}}},
		}})
	}
	call("design", http.MethodPost, "/api/workspaces/default/projects/"+project["projectId"].(string)+"/designs", map[string]any{
		"name": "Clip", "brandKitId": id, "width": 1080, "height": 1080, "pages": pages}, http.StatusCreated, &design)

	w1 := s.StartServer(ServerOptions{Name: "worker-1", Services: []string{"design-jobs"}, Env: env})
	var x map[string]any
	call("design", http.MethodPost, "/api/workspaces/default/designs/"+design["designId"].(string)+"/exports",
		map[string]any{"format": "mp4"}, http.StatusAccepted, &x)
	exportID := x["exportId"].(string)
	get := func() map[string]any {
		var e map[string]any
		res := do(t, Req{Method: http.MethodGet, URL: api.URL("design") + "/api/workspaces/default/exports/" + exportID, Key: s.APIKey})
		if res.Status == http.StatusOK {
			_ = json.Unmarshal(res.Body, &e)
		}
		return e
	}
	store, err := objectstore.Open(context.Background(), objectstore.Config{DataDir: shared})
	if err != nil {
		t.Fatal(err)
	}
	exports := func() []objectstore.Info {
		page, err := store.List(context.Background(), s.OrgID+"/design/exports/", objectstore.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return page.Objects
	}
	eventually(t, 60*time.Second, "the export rendering with progress", func() error {
		if e := get(); e == nil || e["status"] != "rendering" || e["progress"].(float64) < 1 {
			return fmt.Errorf("export %v", e)
		}
		return nil
	})
	w1.Kill9()
	if n := len(exports()); n != 0 {
		t.Fatalf("killed after the file was stored (%d files): the test proves nothing", n)
	}
	t.Logf("killed the worker at %v%%", get()["progress"])

	s.StartServer(ServerOptions{Name: "worker-2", Services: []string{"design-jobs"}, Env: env})
	var ready map[string]any
	eventually(t, 180*time.Second, "the export ready after the second worker", func() error {
		if ready = get(); ready == nil || ready["status"] != "ready" {
			return fmt.Errorf("export %v", ready)
		}
		return nil
	})
	if ready["attempts"].(float64) != 2 {
		t.Errorf("attempts %v, want 2 (the killed one, then the one that stored the file)", ready["attempts"])
	}
	time.Sleep(2 * time.Second) // a second file or notification would show now
	files := exports()
	if len(files) != 1 {
		t.Fatalf("%d export files, want one", len(files))
	}
	n := queryInt(t, s.Pool(), `SELECT count(*) FROM notification_deliveries WHERE type = 'design.export.ready' AND idempotency_key = $1`,
		"design:export:ready:"+exportID)
	if n != 1 {
		t.Fatalf("%d deliveries of design.export.ready, want one", n)
	}
	if n := queryInt(t, s.Pool(), `SELECT count(*) FROM notification_deliveries WHERE type = 'design.export.ready' AND state = 'invalid'`); n != 0 {
		t.Fatalf("%d invalid design.export.ready", n)
	}
	// The file is the whole clip.
	obj, err := store.Get(context.Background(), files[0].Key)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "clip.mp4")
	f, _ := os.Create(path)
	_, _ = f.ReadFrom(obj.Body)
	obj.Body.Close()
	f.Close()
	info, err := media.Config{}.Probe(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	if info.Codec != "h264" || info.Frames != 450 || info.Width != 1080 {
		t.Fatalf("the stored clip %+v", info)
	}
}
