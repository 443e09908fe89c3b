package render_test

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/platform/backend/commands/design/render"
	"github.com/platform/backend/domain/brands"
	design "github.com/platform/backend/domain/design"
	"github.com/platform/backend/internal/media"
	"github.com/platform/backend/internal/media/raster"
	"github.com/platform/backend/internal/media/raster/testfonts"
)

var (
	primary = color.RGBA{R: 0x0A, G: 0x66, B: 0xC2, A: 255}
	accent  = color.RGBA{R: 0xFF, G: 0xB0, B: 0x00, A: 255}
	ink     = color.RGBA{R: 0x11, G: 0x11, B: 0x11, A: 255}
)

// files serves a kit's fonts and logos, and uploaded images, from memory.
type files map[string][]byte

func (f files) get(id string) ([]byte, error) {
	b, ok := f[id]
	if !ok {
		return nil, errors.New("no such file")
	}
	return b, nil
}
func (f files) Font(_ context.Context, _ brands.Version, font brands.Font) ([]byte, error) {
	return f.get(font.FontID)
}
func (f files) Logo(_ context.Context, _ brands.Version, l brands.Logo) ([]byte, error) {
	return f.get(l.LogoID)
}
func (f files) Asset(_ context.Context, id string) ([]byte, error) { return f.get(id) }

// logoPNG is a w x h image filled with c.
func logoPNG(t testing.TB, w, h int, c color.RGBA) []byte {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	raster.Fill(img, c)
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func kit() brands.Version {
	return brands.Version{VersionID: "v1", KitID: "k", Number: 1, Content: brands.Content{
		Colours: []brands.Colour{{Name: "Primary", Hex: "#0A66C2"}, {Name: "Accent", Hex: "#FFB000"}, {Name: "Ink", Hex: "#111111"},
			{Name: "Paper", Hex: "#FFFFFF"}},
		Fonts: []brands.Font{{FontID: "dyna", Family: "Dynalight", Weight: 400, Style: brands.StyleNormal, Format: brands.FormatOTF}},
		Logos: []brands.Logo{{LogoID: "logo", Name: "Logo", ContentType: "image/png", Width: 200, Height: 100}},
	}}
}

func ptr[T any](v T) *T { return &v }

// poster is a 1080x1080 design: a paper background, a primary rectangle
// top left, an accent ellipse, a headline in the kit's script font, the
// kit's logo bottom right; on a second page the rectangle slides right.
func poster() design.Content {
	return design.Content{Width: 1080, Height: 1080, FPS: 30, Pages: []design.Page{{PageID: "p1", Background: ptr("#FFFFFF"), DurationMs: 2000,
		Layers: []design.Layer{
			{LayerID: "box", Type: design.LayerRect, X: 40, Y: 40, Width: 300, Height: 200, Fill: ptr("#0A66C2")},
			{LayerID: "dot", Type: design.LayerEllipse, X: 700, Y: 60, Width: 200, Height: 200, Fill: ptr("#FFB000")},
			{LayerID: "title", Type: design.LayerText, X: 80, Y: 400, Width: 920, Height: 200, Text: "Spring collection",
				FontFamily: "Dynalight", FontWeight: 400, FontStyle: "normal", FontSize: 120, Align: "left", Fill: ptr("#111111")},
			{LayerID: "logo", Type: design.LayerImage, X: 820, Y: 920, Width: 200, Height: 100, Fit: "contain",
				Image: &design.ImageSource{LogoID: ptr("logo")}},
		}}, {PageID: "p2", Background: ptr("#0A66C2"), DurationMs: 1000, Layers: []design.Layer{
		{LayerID: "slide", Type: design.LayerRect, X: 0, Y: 440, Width: 200, Height: 200, Fill: ptr("#FFB000"),
			Keyframes: []design.Keyframe{{AtMs: 0, X: ptr(0.0), Easing: "linear"}, {AtMs: 1000, X: ptr(880.0)}}},
	}}}}
}

func renderer(t testing.TB) render.Renderer {
	return render.Renderer{Files: files{"dyna": testfonts.Dynalight, "logo": logoPNG(t, 200, 100, accent)}}
}

func exportTo(t *testing.T, format string, mutate func(*render.Request)) (string, render.Result) {
	t.Helper()
	req := render.Request{Content: poster(), Kit: kit(), Format: format}
	if mutate != nil {
		mutate(&req)
	}
	path := filepath.Join(t.TempDir(), "out"+design.Extensions[format])
	res, err := renderer(t).Render(context.Background(), req, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if dir := os.Getenv("DESIGN_RENDER_DUMP"); dir != "" {
		raw, _ := os.ReadFile(path)
		_ = os.WriteFile(filepath.Join(dir, t.Name()+design.Extensions[format]), raw, 0o644)
	}
	return path, res
}

func decode(t *testing.T, path string, f func(io.Reader) (image.Image, error)) image.Image {
	t.Helper()
	file, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	img, err := f(file)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

func rgba(c color.Color) color.RGBA {
	r, g, b, a := c.RGBA()
	return color.RGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(b >> 8), A: uint8(a >> 8)}
}

// inked counts the pixels of a box that are not the background.
func inked(img image.Image, r image.Rectangle, bg color.RGBA) int {
	n := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if c := rgba(img.At(x, y)); diff(c, bg) > 60 {
				n++
			}
		}
	}
	return n
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

// TestPNGHasTheKitsColoursTextAndLogoWhereTheDesignPutsThem: the PNG is
// the design's size; the rectangle's pixels are exactly the kit colour, the
// ellipse's centre the accent; the headline's box has ink (and none outside
// the page's boxes); the logo sits bottom right; a scale doubles the frame.
func TestPNGHasTheKitsColoursTextAndLogoWhereTheDesignPutsThem(t *testing.T) {
	path, res := exportTo(t, design.FormatPNG, nil)
	img := decode(t, path, png.Decode)
	if img.Bounds().Dx() != 1080 || img.Bounds().Dy() != 1080 || res.Width != 1080 || res.ContentType != "image/png" {
		t.Fatalf("png %v, result %+v", img.Bounds(), res)
	}
	for _, c := range []struct {
		x, y int
		want color.RGBA
	}{{190, 140, primary}, {45, 45, primary}, {800, 160, accent}, {920, 970, accent}, {600, 900, color.RGBA{255, 255, 255, 255}}} {
		if got := rgba(img.At(c.x, c.y)); got != c.want {
			t.Errorf("pixel (%d,%d) = %v, want %v", c.x, c.y, got, c.want)
		}
	}
	white := color.RGBA{255, 255, 255, 255}
	if n := inked(img, image.Rect(80, 400, 1000, 600), white); n < 3000 {
		t.Errorf("the headline's box has %d inked pixels", n)
	}
	if n := inked(img, image.Rect(0, 700, 700, 900), white); n != 0 {
		t.Errorf("%d inked pixels where the design puts nothing", n)
	}
	path, _ = exportTo(t, design.FormatPNG, func(r *render.Request) { r.Scale = 2 })
	if big := decode(t, path, png.Decode); big.Bounds().Dx() != 2160 || rgba(big.At(380, 280)) != primary {
		t.Errorf("scale 2: %v, pixel %v", big.Bounds(), rgba(big.At(380, 280)))
	}
}

// TestTextIsSetInTheKitsFont: the headline drawn with the kit's Dynalight
// differs from the same text in the bundled DejaVu Sans (no fallback).
func TestTextIsSetInTheKitsFont(t *testing.T) {
	r := renderer(t)
	req := render.Request{Content: poster(), Kit: kit(), Format: design.FormatPNG}
	ours, err := r.Still(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	fallback := req
	fallback.Kit.Fonts = []brands.Font{{FontID: "dejavu", Family: "Dynalight", Weight: 400, Style: brands.StyleNormal}}
	r.Files = files{"dejavu": must(os.ReadFile("../../../internal/media/raster/fonts/DejaVuSans.ttf")), "logo": logoPNG(t, 200, 100, accent)}
	theirs, err := r.Still(context.Background(), fallback)
	if err != nil {
		t.Fatal(err)
	}
	box := image.Rect(80, 400, 1000, 600)
	different := 0
	for y := box.Min.Y; y < box.Max.Y; y++ {
		for x := box.Min.X; x < box.Max.X; x++ {
			if diff(ours.RGBAAt(x, y), theirs.RGBAAt(x, y)) > 60 {
				different++
			}
		}
	}
	if different < 2000 {
		t.Fatalf("the kit's font and the fallback drew nearly the same pixels (%d differ)", different)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// TestJPEGKeepsSizeAndColour: a jpeg is the design's size and its
// rectangle close to the kit colour (lossy), at the quality asked.
func TestJPEGKeepsSizeAndColour(t *testing.T) {
	path, res := exportTo(t, design.FormatJPEG, func(r *render.Request) { r.Quality = 95 })
	img := decode(t, path, jpeg.Decode)
	if img.Bounds().Dx() != 1080 || img.Bounds().Dy() != 1080 || res.ContentType != "image/jpeg" {
		t.Fatalf("jpeg %v", img.Bounds())
	}
	if d := diff(rgba(img.At(190, 140)), primary); d > 12 {
		t.Errorf("jpeg pixel %v, want about %v", rgba(img.At(190, 140)), primary)
	}
}

// TestSVGEmbedsTheKitsFont: the SVG parses as XML, has the design's size,
// embeds the kit's font (an @font-face of its name with the file's data)
// and sets the headline in it; shapes are vector paths in the kit colours.
func TestSVGEmbedsTheKitsFont(t *testing.T) {
	path, res := exportTo(t, design.FormatSVG, nil)
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		XMLName xml.Name `xml:"svg"`
		Width   string   `xml:"width,attr"`
		Height  string   `xml:"height,attr"`
	}
	if err := xml.Unmarshal(raw, &doc); err != nil {
		t.Fatalf("the svg does not parse: %v", err)
	}
	if doc.Width != "1080px" || doc.Height != "1080px" || res.ContentType != "image/svg+xml" {
		t.Fatalf("svg %s x %s", doc.Width, doc.Height)
	}
	s := string(raw)
	face := regexp.MustCompile(`@font-face\{font-family:'(Dynalight[^']*)'[^}]*src:url\('data:type/opentype;base64,([A-Za-z0-9+/=]{1000,})'\)`)
	m := face.FindStringSubmatch(s)
	if m == nil {
		t.Fatalf("no embedded Dynalight font in %.300s...", s)
	}
	if !strings.Contains(s, "px "+m[1]) || !strings.Contains(s, "Spring collection") {
		t.Error("the headline is not set in the embedded font")
	}
	if !strings.Contains(s, "#0a66c2") && !strings.Contains(s, "#0A66C2") {
		t.Error("no shape in the kit's primary colour")
	}
	if strings.Contains(s, "DejaVu") {
		t.Error("the fallback font is in the svg")
	}
}

// TestMP4PlaysEveryPage: ffprobe reads an H.264 mp4 of the design's size
// lasting the pages' durations; the second page's square has moved right
// by its middle.
func TestMP4PlaysEveryPage(t *testing.T) {
	path, res := exportTo(t, design.FormatMP4, nil)
	info, err := media.Config{}.Probe(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	if info.Codec != "h264" || info.Width != 1080 || info.Height != 1080 || info.Frames != 90 || res.Frames != 90 ||
		info.Duration < 2900*time.Millisecond || info.Duration > 3100*time.Millisecond {
		t.Fatalf("probe %+v, result %+v", info, res)
	}
	first, err := media.Config{}.FrameAt(context.Background(), path, 500*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if d := diff(rgba(first.At(190, 140)), primary); d > 30 {
		t.Errorf("page 1's rectangle in the video: %v", rgba(first.At(190, 140)))
	}
	mid, err := media.Config{}.FrameAt(context.Background(), path, 2500*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	// At 500 ms of 1000 the square is at x = 440: its centre 540 is accent,
	// where it started is the page's primary.
	if d := diff(rgba(mid.At(540, 540)), accent); d > 40 {
		t.Errorf("the moving square's middle: %v", rgba(mid.At(540, 540)))
	}
	if d := diff(rgba(mid.At(100, 540)), primary); d > 40 {
		t.Errorf("where the square started: %v", rgba(mid.At(100, 540)))
	}
}

// TestUnrenderableIsTheDesignsFault: a logo that is not an image, path
// data that does not parse and a font file that is no font fail with
// ErrUnrenderable at the member.
func TestUnrenderableIsTheDesignsFault(t *testing.T) {
	r := render.Renderer{Files: files{"dyna": []byte("not a font"), "logo": []byte("not an image")}}
	for _, c := range []struct {
		name    string
		mutate  func(*design.Content)
		pointer string
	}{
		{"font", func(*design.Content) {}, "/pages/0/layers/2/fontFamily"},
		{"path", func(c *design.Content) {
			c.Pages[0].Layers[2] = design.Layer{LayerID: "p", Type: design.LayerPath, Width: 10, Height: 10, Path: "M 0 0 L", Fill: ptr("#111111")}
		}, "/pages/0/layers/2/path"},
	} {
		content := poster()
		c.mutate(&content)
		_, err := r.Render(context.Background(), render.Request{Content: content, Kit: kit(), Format: design.FormatPNG},
			filepath.Join(t.TempDir(), "x.png"), nil)
		var re *render.Error
		if !errors.Is(err, render.ErrUnrenderable) || !errors.As(err, &re) || re.Pointer != c.pointer {
			t.Errorf("%s: %v", c.name, err)
		}
	}
}
