package design_test

import (
	"bytes"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/platform/backend/internal/apptest"
	"github.com/platform/backend/internal/media/raster"
	"github.com/platform/backend/internal/media/raster/testfonts"
)

// client calls the design service (On("brands"): the brand service) with
// one credential; the helpers below make a kit, a design, an export.
type client struct {
	*apptest.Client
	t     *testing.T
	h     *apptest.Harness
	token string
}

func newClient(t *testing.T, h *apptest.Harness, token string) *client {
	return &client{Client: h.NewClient(t, "design", token), t: t, h: h, token: token}
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
	c.On("brands").JSON(http.MethodPost, "/api/brand-kits", map[string]any{"name": name, "colours": []any{
		map[string]any{"name": "Primary", "hex": "#0a66c2"}, map[string]any{"name": "Accent", "hex": "#FFB000"},
		map[string]any{"name": "Ink", "hex": "#111111"}, map[string]any{"name": "Paper", "hex": "#FFFFFF"}}}, http.StatusCreated, &k)
	id := k["id"].(string)
	c.On("brands").JSON(http.MethodPost, "/api/brand-kits/"+id+"/fonts", testfonts.Dynalight, http.StatusCreated, nil, "Content-Type", "font/otf")
	c.On("brands").JSON(http.MethodPost, "/api/brand-kits/"+id+"/fonts", testfonts.DejaVuSerif, http.StatusCreated, nil, "Content-Type", "font/woff2")
	c.On("brands").JSON(http.MethodPost, "/api/brand-kits/"+id+"/logos?name=Mark", pngOf(c.t, 200, 100, accent), http.StatusCreated, &k, "Content-Type", "image/png")
	logos := k["draft"].(map[string]any)["logos"].([]any)
	logo := logos[len(logos)-1].(map[string]any)["logoId"].(string)
	c.On("brands").JSON(http.MethodPost, "/api/brand-kits/"+id+"/publish", map[string]any{"note": "first"}, http.StatusOK, &k)
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
	c.JSON(http.MethodPost, base+"/projects", map[string]any{"name": "Spring"}, http.StatusCreated, &p)
	project = p["projectId"].(string)
	c.JSON(http.MethodPost, base+"/projects/"+project+"/designs", map[string]any{"name": "Poster", "brandKitId": k.ID, "width": 1080,
		"height": 1080, "pages": poster(k.LogoID)}, http.StatusCreated, &d)
	return project, d["designId"].(string)
}

// export asks an export and waits until it is ready, answering it.
func (c *client) export(design string, body map[string]any) map[string]any {
	c.t.Helper()
	var x map[string]any
	c.JSON(http.MethodPost, base+"/designs/"+design+"/exports", body, http.StatusAccepted, &x)
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
	c.JSON(http.MethodGet, base+"/exports/"+exportID+"/download", nil, http.StatusOK, &dl)
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

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
