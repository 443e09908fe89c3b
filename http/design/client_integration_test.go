package design_test

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"io"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/platform/backend/internal/apptest"
	"github.com/platform/backend/internal/media/raster"
	"github.com/platform/backend/internal/media/raster/testfonts"
	"github.com/platform/backend/internal/objectstore"
)

// client calls the design and brand services with one credential.
type client struct {
	t     *testing.T
	h     *apptest.Harness
	token string
}

func newClient(t *testing.T, h *apptest.Harness, token string) *client {
	return &client{t: t, h: h, token: token}
}

var (
	pendingMu sync.Mutex
	pending   = map[*apptest.Harness]map[string][]string{}
)

// settle waits until the read models applied every command sent so far.
func settle(t *testing.T, h *apptest.Harness) {
	t.Helper()
	pendingMu.Lock()
	list := pending[h]
	delete(pending, h)
	pendingMu.Unlock()
	for svc, positions := range list {
		for _, pos := range positions {
			apptest.Eventually(t, 30*time.Second, svc+"'s read model at "+pos, func() bool {
				return h.Do(t, svc, http.MethodGet, "/api/widget", h.APIKey, nil, "X-Platform-Min-Position", pos).Status == http.StatusOK
			})
		}
	}
}

// call sends a request to a service (body nil for none) and checks the
// status; a read waits for the commands before it.
func (c *client) call(svc, method, path string, body any, want int, headers ...string) apptest.Response {
	c.t.Helper()
	if method == http.MethodGet {
		settle(c.t, c.h)
	}
	res := c.h.Do(c.t, svc, method, path, c.token, body, headers...)
	apptest.Must(c.t, res, want, method+" "+path)
	if pos := res.Header.Get("X-Platform-Position"); pos != "" && method != http.MethodGet {
		pendingMu.Lock()
		if pending[c.h] == nil {
			pending[c.h] = map[string][]string{}
		}
		pending[c.h][svc] = append(pending[c.h][svc], pos)
		pendingMu.Unlock()
	}
	return res
}

func (c *client) do(method, path string, body any, want int, headers ...string) apptest.Response {
	c.t.Helper()
	return c.call("design", method, path, body, want, headers...)
}

func (c *client) json(method, path string, body any, want int, v any) {
	c.t.Helper()
	c.do(method, path, body, want).JSON(c.t, v)
}

func (c *client) brands(method, path string, body any, want int, v any, headers ...string) {
	c.t.Helper()
	res := c.call("brands", method, path, body, want, headers...)
	if v != nil {
		res.JSON(c.t, v)
	}
}

// problem sends a request to the design service and checks the problem.
func (c *client) problem(method, path string, body any, status int, code string) apptest.Problem {
	c.t.Helper()
	return c.problemOf("design", method, path, body, status, code)
}

func (c *client) problemOf(svc, method, path string, body any, status int, code string, headers ...string) apptest.Problem {
	c.t.Helper()
	if method == http.MethodGet {
		settle(c.t, c.h)
	}
	return apptest.ExpectProblem(c.t, c.h.Do(c.t, svc, method, path, c.token, body, headers...), status, code)
}

// pointers are the members a 422 names.
func pointers(p apptest.Problem) []string {
	var out []string
	for _, e := range p.Errors {
		out = append(out, e.Pointer)
	}
	return out
}

const base = "/api/workspaces/default"

// kit is a published brand kit of the test: Primary #0A66C2, Accent #FFB000,
// Ink #111111, Paper #FFFFFF; the Dynalight font (OTF) and DejaVu Serif
// (WOFF2); a 200x100 accent logo.
type kit struct {
	ID, VersionID, LogoID string
}

func pngOf(t *testing.T, w, h int, c color.RGBA) []byte {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	raster.Fill(img, c)
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

var (
	primary = color.RGBA{R: 0x0A, G: 0x66, B: 0xC2, A: 255}
	accent  = color.RGBA{R: 0xFF, G: 0xB0, B: 0x00, A: 255}
	paper   = color.RGBA{R: 255, G: 255, B: 255, A: 255}
)

// newKit makes and publishes a kit of the caller's organization.
func (c *client) newKit(name string) kit {
	c.t.Helper()
	var k map[string]any
	c.brands(http.MethodPost, "/api/brand-kits", map[string]any{"name": name, "colours": []any{
		map[string]any{"name": "Primary", "hex": "#0a66c2"}, map[string]any{"name": "Accent", "hex": "#FFB000"},
		map[string]any{"name": "Ink", "hex": "#111111"}, map[string]any{"name": "Paper", "hex": "#FFFFFF"}}}, http.StatusCreated, &k)
	id := k["id"].(string)
	c.brands(http.MethodPost, "/api/brand-kits/"+id+"/fonts", testfonts.Dynalight, http.StatusCreated, nil, "Content-Type", "font/otf")
	c.brands(http.MethodPost, "/api/brand-kits/"+id+"/fonts", testfonts.DejaVuSerif, http.StatusCreated, nil, "Content-Type", "font/woff2")
	c.brands(http.MethodPost, "/api/brand-kits/"+id+"/logos?name=Mark", pngOf(c.t, 200, 100, accent), http.StatusCreated, &k, "Content-Type", "image/png")
	logos := k["draft"].(map[string]any)["logos"].([]any)
	logo := logos[len(logos)-1].(map[string]any)["logoId"].(string)
	c.brands(http.MethodPost, "/api/brand-kits/"+id+"/publish", map[string]any{"note": "first"}, http.StatusOK, &k)
	return kit{ID: id, VersionID: k["currentVersionId"].(string), LogoID: logo}
}

// poster is a 1080x1080 page: a primary rectangle top left, a headline in
// Dynalight, the kit's logo bottom right, on paper.
func poster(logo string) []any {
	return []any{map[string]any{"pageId": "p1", "background": "#FFFFFF", "durationMs": 2000, "layers": []any{
		map[string]any{"layerId": "box", "type": "rect", "x": 40, "y": 40, "width": 300, "height": 200, "fill": "#0A66C2"},
		map[string]any{"layerId": "title", "type": "text", "x": 80, "y": 400, "width": 920, "height": 200, "text": "Spring collection",
			"fontFamily": "Dynalight", "fontSize": 120, "fill": "#111111"},
		map[string]any{"layerId": "logo", "type": "image", "x": 820, "y": 920, "width": 200, "height": 100, "image": map[string]any{"logoId": logo}},
	}}, map[string]any{"pageId": "p2", "background": "#0A66C2", "durationMs": 1000, "layers": []any{
		map[string]any{"layerId": "slide", "type": "rect", "x": 0, "y": 440, "width": 200, "height": 200, "fill": "#FFB000",
			"keyframes": []any{map[string]any{"atMs": 0, "x": 0}, map[string]any{"atMs": 1000, "x": 880}}},
	}}}
}

// newDesign makes a project and a design of it pinned to the kit.
func (c *client) newDesign(k kit) (project, design string) {
	c.t.Helper()
	var p, d map[string]any
	c.json(http.MethodPost, base+"/projects", map[string]any{"name": "Spring"}, http.StatusCreated, &p)
	project = p["projectId"].(string)
	c.json(http.MethodPost, base+"/projects/"+project+"/designs", map[string]any{"name": "Poster", "brandKitId": k.ID, "width": 1080,
		"height": 1080, "pages": poster(k.LogoID)}, http.StatusCreated, &d)
	return project, d["designId"].(string)
}

// export asks an export and waits until it is ready, answering it.
func (c *client) export(design string, body map[string]any) map[string]any {
	c.t.Helper()
	var x map[string]any
	c.json(http.MethodPost, base+"/designs/"+design+"/exports", body, http.StatusAccepted, &x)
	id := x["exportId"].(string)
	apptest.Eventually(c.t, 120*time.Second, "export "+id+" ready", func() bool {
		res := c.h.Do(c.t, "design", http.MethodGet, base+"/exports/"+id, c.token, nil)
		if res.Status != http.StatusOK {
			return false
		}
		res.JSON(c.t, &x)
		if x["status"] == "failed" || x["status"] == "cancelled" {
			c.t.Fatalf("export %s: %v", id, x)
		}
		return x["status"] == "ready"
	})
	return x
}

// download fetches a ready export through its signed link.
func (c *client) download(exportID string) ([]byte, map[string]any) {
	c.t.Helper()
	var dl map[string]any
	c.json(http.MethodGet, base+"/exports/"+exportID+"/download", nil, http.StatusOK, &dl)
	res, err := c.h.Client.Get(dl["url"].(string))
	if err != nil {
		c.t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK {
		c.t.Fatalf("signed download: %d %s", res.StatusCode, body)
	}
	return body, dl
}

// notificationsOf waits for n deliveries of a type to an organization,
// failing on one its contract refused.
func notificationsOf(t *testing.T, h *apptest.Harness, org, typ string, n int) map[string]map[string]any {
	t.Helper()
	out := map[string]map[string]any{}
	apptest.Eventually(t, 60*time.Second, "notifications "+typ, func() bool {
		rows, err := h.App.Pool.Query(context.Background(), `SELECT idempotency_key, state, envelope FROM notification_deliveries
			WHERE organization_id = $1 AND type = $2`, org, typ)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		for rows.Next() {
			var k, state string
			var env []byte
			if err := rows.Scan(&k, &state, &env); err != nil {
				t.Fatal(err)
			}
			if state == "invalid" {
				t.Fatalf("notification %s is invalid: %s", k, env)
			}
			var e struct {
				Payload map[string]any `json:"payload"`
			}
			_ = json.Unmarshal(env, &e)
			out[k] = e.Payload
		}
		return len(out) >= n
	})
	return out
}

// objectsOf counts an organization's design files in the object store.
func objectsOf(t *testing.T, h *apptest.Harness, org string) int {
	t.Helper()
	n, token := 0, ""
	for {
		page, err := h.App.Platform.Objects.List(context.Background(), org+"/design/", objectstore.ListOptions{PageToken: token, Limit: 1000})
		if err != nil {
			t.Fatal(err)
		}
		n += len(page.Objects)
		if token = page.NextPageToken; token == "" {
			return n
		}
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
