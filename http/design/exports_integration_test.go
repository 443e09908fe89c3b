package design_test

import (
	"bytes"
	"context"
	"encoding/xml"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/platform/backend/internal/apptest"
	"github.com/platform/backend/internal/media"
	"github.com/platform/backend/notifications/contracts"
)

func rgba(c color.Color) color.RGBA {
	r, g, b, a := c.RGBA()
	return color.RGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(b >> 8), A: uint8(a >> 8)}
}

func diff(a, b color.RGBA) int {
	d := func(x, y uint8) int {
		if x > y {
			return int(x - y)
		}
		return int(y - x)
	}
	return d(a.R, b.R) + d(a.G, b.G) + d(a.B, b.B)
}

// inked counts the pixels of a box that are not the background.
func inked(img image.Image, r image.Rectangle, bg color.RGBA) int {
	n := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if diff(rgba(img.At(x, y)), bg) > 60 {
				n++
			}
		}
	}
	return n
}

// TestExportsOfEveryFormat: a governed design exported as png, jpeg, svg
// and mp4 by the export jobs: each is persisted (queued), then ready once
// its file is stored; the files, fetched through signed expiring links,
// decode as the design (the kit colour's pixel where the rectangle is,
// ink in the headline's box, the kit's font embedded in the svg, an H.264
// mp4 of the pages' length); each ready export emits design.export.ready
// once, valid against its contract, with the seed's members and a link to
// the design.
func TestExportsOfEveryFormat(t *testing.T) {
	h := apptest.Start(t, apptest.Options{})
	c := newClient(t, h, "")
	k := c.newKit("Acme")
	project, design := c.newDesign(k)

	png1 := c.export(design, map[string]any{"format": "png"})
	file := png1["file"].(map[string]any)
	if file["width"].(float64) != 1080 || file["contentType"] != "image/png" || png1["projectId"] != project {
		t.Fatalf("png export %v", png1)
	}
	raw, dl := c.download(png1["exportId"].(string))
	if !strings.HasSuffix(dl["filename"].(string), ".png") {
		t.Errorf("download %v", dl)
	}
	img, err := png.Decode(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	if img.Bounds().Dx() != 1080 || img.Bounds().Dy() != 1080 {
		t.Fatalf("png %v", img.Bounds())
	}
	if got := rgba(img.At(190, 140)); got != primary {
		t.Errorf("the rectangle's pixel %v, want the kit's primary %v", got, primary)
	}
	if got := rgba(img.At(920, 970)); got != accent {
		t.Errorf("the logo's pixel %v, want %v", got, accent)
	}
	if n := inked(img, image.Rect(80, 400, 1000, 600), paper); n < 3000 {
		t.Errorf("%d inked pixels in the headline's box", n)
	}

	jpg := c.export(design, map[string]any{"format": "jpeg", "quality": 92, "scale": 0.5})
	raw, _ = c.download(jpg["exportId"].(string))
	jimg, err := jpeg.Decode(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	if jimg.Bounds().Dx() != 540 || diff(rgba(jimg.At(95, 70)), primary) > 15 {
		t.Errorf("jpeg %v, pixel %v", jimg.Bounds(), rgba(jimg.At(95, 70)))
	}

	svg := c.export(design, map[string]any{"format": "svg"})
	raw, _ = c.download(svg["exportId"].(string))
	if err := xml.Unmarshal(raw, new(struct {
		XMLName xml.Name `xml:"svg"`
	})); err != nil {
		t.Fatalf("the svg does not parse: %v", err)
	}
	if !regexp.MustCompile(`@font-face\{font-family:'Dynalight[^']*'[^}]*base64,[A-Za-z0-9+/=]{1000,}`).Match(raw) ||
		!bytes.Contains(raw, []byte("Spring collection")) {
		t.Errorf("the svg does not embed the kit's font: %.400s", raw)
	}

	mp4 := c.export(design, map[string]any{"format": "mp4"})
	raw, _ = c.download(mp4["exportId"].(string))
	path := filepath.Join(t.TempDir(), "x.mp4")
	if err := os.WriteFile(path, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	info, err := media.Config{}.Probe(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	if info.Codec != "h264" || info.Width != 1080 || info.Height != 1080 || info.Duration < 2900*time.Millisecond || info.Duration > 3100*time.Millisecond {
		t.Errorf("mp4 %+v", info)
	}
	if f := mp4["file"].(map[string]any); f["durationMs"].(float64) != 3000 || f["frames"].(float64) != 90 {
		t.Errorf("mp4 file %v", f)
	}

	// One notification per export, valid, with the seed's members only.
	sent := h.Notifications(t, h.OrgID, "design.export.ready", 4)
	if len(sent) != 4 {
		t.Fatalf("%d notifications for 4 exports", len(sent))
	}
	reg, err := contracts.Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range []map[string]any{png1, jpg, svg, mp4} {
		key := "design:export:ready:" + x["exportId"].(string)
		p, ok := sent[key]
		if !ok {
			t.Fatalf("no notification %s among %v", key, sent)
		}
		if p["export_id"] != x["exportId"] || p["project_id"] != project || p["format"] != x["format"] || p["object_id"] != x["exportId"] ||
			!strings.Contains(p["cta_url"].(string), "/app/designs/"+design) {
			t.Errorf("notification %s: %v", key, p)
		}
		raw := mustJSON(t, p)
		if err := reg.Validate("design.export.ready", key, raw); err != nil {
			t.Errorf("notification %s against its contract: %v", key, err)
		}
	}
	time.Sleep(time.Second) // a second delivery would show now
	if n := h.Count(t, `SELECT count(*) FROM notification_deliveries WHERE organization_id = $1 AND type = 'design.export.ready'`, h.OrgID); n != 4 {
		t.Fatalf("%d deliveries of design.export.ready, want 4", n)
	}
	if n := h.Objects(t, h.OrgID+"/design/"); n != 4 {
		t.Fatalf("%d files stored, want the 4 exports'", n)
	}
}
