package render

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	domain "github.com/platform/backend/domain/studio"
	"github.com/platform/backend/internal/media"
)

// The tests render real files with the real ffmpeg (scripts/ffmpeg.sh) and
// decode them (ffprobe, ffmpeg -ss) to check what a viewer would see.

type assetMap map[string]Asset

func (m assetMap) Load(_ context.Context, id string) (Asset, error) {
	a, ok := m[id]
	if !ok {
		return Asset{}, fmt.Errorf("asset %s: %w", id, ErrUnrenderable)
	}
	return a, nil
}

func pngOf(t testing.TB, w, h int, c color.RGBA) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for i := 0; i < len(img.Pix); i += 4 {
		img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = c.R, c.G, c.B, c.A
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func f64(v float64) *float64 { return &v }
func intp(v int) *int        { return &v }

var (
	red   = color.RGBA{R: 200, G: 30, B: 40, A: 255}
	green = color.RGBA{R: 30, G: 160, B: 70, A: 255}
	blue  = color.RGBA{R: 20, G: 50, B: 190, A: 255}
	gold  = color.RGBA{R: 230, G: 180, B: 20, A: 255}
)

// threeScenes is 3 s: red with a title (1 s), an image background with a
// logo, fading out over its last 500 ms (1.5 s), blue (0.5 s).
func threeScenes() (domain.Snapshot, assetMap) {
	s := domain.Snapshot{FPS: 30, Scenes: []domain.SnapshotScene{
		{SceneID: "intro", DurationMs: 1000, Background: domain.Background{Type: domain.BackgroundColor, Color: "#C81E28"},
			Layers: []domain.Layer{{Type: domain.LayerText, LayerID: "title", Text: "Spring sale", FontSize: 120,
				Color: "#FFFFFF", X: f64(0.1), Y: f64(0.1), Width: f64(0.8), Align: "center"}}},
		{SceneID: "product", DurationMs: 1500, Background: domain.Background{Type: domain.BackgroundAsset, AssetID: "bg"},
			Layers: []domain.Layer{{Type: domain.LayerImage, LayerID: "logo", AssetID: "logo", X: f64(0.7), Y: f64(0.8),
				Width: f64(0.2), Height: f64(0.1), StartMs: 500}},
			Transition: &domain.Transition{Type: domain.TransitionFade, DurationMs: 500}},
		{SceneID: "end", DurationMs: 500, Background: domain.Background{Type: domain.BackgroundColor, Color: "#1432BE"}},
	}}
	return s, assetMap{"bg": {ContentType: "image/png", Data: nil}, "logo": {}}
}

func withImages(t testing.TB, m assetMap) assetMap {
	m["bg"] = Asset{ContentType: "image/png", Data: pngOf(t, 64, 64, green)}
	m["logo"] = Asset{Data: pngOf(t, 40, 20, gold)} // sniffed
	return m
}

func render(t *testing.T, req Request, assets Assets) (string, Result) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "out"+req.Format.Ext())
	res, err := Renderer{Assets: assets}.Render(context.Background(), req, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	return path, res
}

func probe(t *testing.T, path string) media.Info {
	t.Helper()
	info, err := media.Config{}.Probe(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	return info
}

func decodeAt(t *testing.T, path string, at time.Duration) image.Image {
	t.Helper()
	img, err := media.Config{}.FrameAt(context.Background(), path, at)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

func dist(a color.Color, b color.RGBA) int {
	r, g, bl, _ := a.RGBA()
	d := func(x uint32, y uint8) int { return max(int(x>>8)-int(y), int(y)-int(x>>8)) }
	return max(d(r, b.R), d(g, b.G), d(bl, b.B))
}

func mustNear(t *testing.T, what string, got color.Color, want color.RGBA, tol int) {
	t.Helper()
	if d := dist(got, want); d > tol {
		r, g, b, _ := got.RGBA()
		t.Errorf("%s: pixel %d,%d,%d, want %v (±%d)", what, r>>8, g>>8, b>>8, want, tol)
	}
}

// changed counts the pixels of r that are not bg (by more than tol).
func changed(img image.Image, r image.Rectangle, bg color.RGBA, tol int) int {
	n := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if dist(img.At(x, y), bg) > tol {
				n++
			}
		}
	}
	return n
}

// TestRenderMP4Portrait: a 3 s composition at full size decodes as H.264
// 1080x1920 of 3 s (90 frames); each scene's background shows its colour at
// its time, the title puts non-background pixels inside its box only, the
// logo appears at its start time, the fade is half-way at its middle.
func TestRenderMP4Portrait(t *testing.T) {
	s, assets := threeScenes()
	path, res := render(t, Request{Snapshot: s, AspectRatio: domain.AspectPortrait, Format: media.MP4}, withImages(t, assets))
	if res.Width != 1080 || res.Height != 1920 || res.Frames != 90 || res.Duration != 3*time.Second {
		t.Fatalf("result %+v", res)
	}
	info := probe(t, path)
	if info.Codec != "h264" || info.PixFmt != "yuv420p" || info.Width != 1080 || info.Height != 1920 || info.Frames != 90 {
		t.Fatalf("probe %+v", info)
	}
	if d := info.Duration - 3*time.Second; d < -34*time.Millisecond || d > 34*time.Millisecond {
		t.Errorf("duration %s, want 3s", info.Duration)
	}

	intro := decodeAt(t, path, 500*time.Millisecond)
	mustNear(t, "intro background", intro.At(540, 1500), red, 8)
	// The title's box: x 108..972, from y 192 down; 120 px type, one line.
	box := image.Rect(108, 192, 972, 192+170)
	if n := changed(intro, box, red, 60); n < 2000 {
		t.Errorf("title box: %d non-background pixels, want text", n)
	}
	if n := changed(intro, image.Rect(0, 400, 1080, 1900), red, 60); n != 0 {
		t.Errorf("%d non-background pixels below the title", n)
	}

	before := decodeAt(t, path, 1300*time.Millisecond) // product, logo not yet
	mustNear(t, "image background", before.At(540, 600), green, 8)
	mustNear(t, "logo's place before its start", before.At(864, 1632), green, 8)
	after := decodeAt(t, path, 1800*time.Millisecond) // logo from 1.5 s
	mustNear(t, "logo", after.At(864, 1632), gold, 10)

	// The fade runs 2.0-2.5 s into blue; at 2.25 s it is half-way.
	mid := decodeAt(t, path, 2250*time.Millisecond)
	avg := func(a, b uint8) uint8 { return uint8((int(a) + int(b)) / 2) }
	half := color.RGBA{R: avg(green.R, blue.R), G: avg(green.G, blue.G), B: avg(green.B, blue.B), A: 255}
	mustNear(t, "half-way through the fade", mid.At(540, 600), half, 16)
	mustNear(t, "end scene", decodeAt(t, path, 2750*time.Millisecond).At(540, 600), blue, 8)
}

// TestRenderMOVLandscapeScaled: mov, landscape, at half size for a
// preview: 960x540, same duration.
func TestRenderMOVLandscapeScaled(t *testing.T) {
	s, assets := threeScenes()
	path, _ := render(t, Request{Snapshot: s, AspectRatio: domain.AspectLandscape, Format: media.MOV, Scale: 0.5}, withImages(t, assets))
	info := probe(t, path)
	if info.Codec != "h264" || info.Width != 960 || info.Height != 540 || info.Frames != 90 || !strings.Contains(info.Container, "mov") {
		t.Fatalf("probe %+v", info)
	}
	if d := info.Duration - 3*time.Second; d < -34*time.Millisecond || d > 34*time.Millisecond {
		t.Errorf("duration %s", info.Duration)
	}
	mustNear(t, "intro", decodeAt(t, path, 200*time.Millisecond).At(480, 500), red, 8)
}

// TestRenderGIF: a GIF is capped at 15 fps and 480 px on its short side:
// 3 s are 45 frames of 480x854.
func TestRenderGIF(t *testing.T) {
	s, assets := threeScenes()
	path, res := render(t, Request{Snapshot: s, AspectRatio: domain.AspectPortrait, Format: media.GIF}, withImages(t, assets))
	info := probe(t, path)
	if info.Codec != "gif" || info.Width != 480 || info.Height != 854 || info.Frames != 45 || res.Frames != 45 {
		t.Fatalf("probe %+v, result %+v", info, res)
	}
	mustNear(t, "end scene", decodeAt(t, path, 2800*time.Millisecond).At(240, 300), blue, 24)
}

// TestRenderPNGSequence: one PNG per frame, numbered, of the frame size,
// each scene's colour in its frames.
func TestRenderPNGSequence(t *testing.T) {
	s, assets := threeScenes()
	s.FPS = 10
	path, _ := render(t, Request{Snapshot: s, AspectRatio: domain.AspectPortrait, Format: media.PNGSequence, Scale: 0.25}, withImages(t, assets))
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	if len(zr.File) != 30 {
		t.Fatalf("%d PNGs, want 30", len(zr.File))
	}
	for _, c := range []struct {
		i    int
		want color.RGBA
	}{{0, red}, {12, green}, {29, blue}} {
		f := zr.File[c.i]
		if f.Name != "frame_"+fmt.Sprintf("%05d", c.i+1)+".png" {
			t.Fatalf("entry %d: %s", c.i, f.Name)
		}
		r, _ := f.Open()
		img, err := png.Decode(r)
		r.Close()
		if err != nil {
			t.Fatal(err)
		}
		if img.Bounds().Size() != image.Pt(270, 480) {
			t.Fatalf("%s: %v", f.Name, img.Bounds())
		}
		mustNear(t, f.Name, img.At(135, 400), c.want, 0)
	}
}

// TestRenderBrandFont: a text layer set with a font asset (a brand font)
// draws ink; an asset that is no font fails the render as unrenderable,
// naming the font's pointer.
func TestRenderBrandFont(t *testing.T) {
	ttf, err := os.ReadFile("../../../internal/media/raster/fonts/DejaVuSans-Bold.ttf")
	if err != nil {
		t.Fatal(err)
	}
	brand := "brand-font"
	s := domain.Snapshot{FPS: 10, Fonts: []domain.Font{{FontID: "brand", Family: "Acme Sans", AssetID: &brand}},
		Scenes: []domain.SnapshotScene{{SceneID: "a", DurationMs: 500, Background: domain.Background{Type: domain.BackgroundColor, Color: "#000000"},
			Layers: []domain.Layer{{Type: domain.LayerText, LayerID: "t", Text: "ACME", FontID: "brand", FontSize: 200, Y: f64(0.4)}}}}}
	req := Request{Snapshot: s, AspectRatio: domain.AspectLandscape, Format: media.PNGSequence, Scale: 0.5}
	path, _ := render(t, req, assetMap{brand: {ContentType: "font/ttf", Data: ttf}})
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	r, _ := zr.File[0].Open()
	img, _ := png.Decode(r)
	r.Close()
	if n := changed(img, image.Rect(0, 216, 960, 540), color.RGBA{A: 255}, 60); n < 2000 {
		t.Errorf("brand-font text: %d inked pixels", n)
	}
	_, err = Renderer{Assets: assetMap{brand: {ContentType: "font/ttf", Data: []byte("not a font")}}}.Render(context.Background(), req, filepath.Join(t.TempDir(), "x.zip"), nil)
	var re *Error
	if !errors.Is(err, ErrUnrenderable) || !errors.As(err, &re) || re.Pointer != "/snapshot/fonts/0/assetId" {
		t.Fatalf("bad font: %v", err)
	}
}

// TestRenderRefusesWhatItCannotDraw: a video that does not decode, assets
// of the wrong kind, a missing asset: errors naming the pointer,
// ErrUnrenderable.
func TestRenderRefusesWhatItCannotDraw(t *testing.T) {
	base := func(l domain.Layer) domain.Snapshot {
		return domain.Snapshot{Scenes: []domain.SnapshotScene{{SceneID: "a", DurationMs: 1000,
			Background: domain.Background{Type: domain.BackgroundColor, Color: "#000000"}, Layers: []domain.Layer{l}}}}
	}
	cases := []struct {
		name    string
		s       domain.Snapshot
		assets  assetMap
		pointer string
		says    string
	}{
		{"corrupt video", base(domain.Layer{Type: domain.LayerVideo, LayerID: "v", AssetID: "clip"}), assetMap{"clip": {ContentType: "video/mp4", Data: []byte("not a video")}},
			"/snapshot/scenes/0/layers/0/assetId", "video asset clip"},
		{"image as video", base(domain.Layer{Type: domain.LayerVideo, LayerID: "v", AssetID: "img"}), assetMap{"img": {ContentType: "image/png", Data: pngOf(t, 4, 4, red)}},
			"/snapshot/scenes/0/layers/0/assetId", "not a video"},
		{"video as image", base(domain.Layer{Type: domain.LayerImage, LayerID: "i", AssetID: "clip"}), assetMap{"clip": {ContentType: "video/mp4"}},
			"/snapshot/scenes/0/layers/0/assetId", "video"},
		{"text file as image", base(domain.Layer{Type: domain.LayerImage, LayerID: "i", AssetID: "doc"}), assetMap{"doc": {Data: []byte("hello")}},
			"/snapshot/scenes/0/layers/0/assetId", "neither an image nor a video"},
		{"corrupt png", base(domain.Layer{Type: domain.LayerImage, LayerID: "i", AssetID: "bad"}), assetMap{"bad": {ContentType: "image/png", Data: []byte("\x89PNG\r\n\x1a\nxx")}},
			"/snapshot/scenes/0/layers/0/assetId", "PNG"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Renderer{Assets: c.assets}.Render(context.Background(), Request{Snapshot: c.s, AspectRatio: domain.AspectPortrait, Format: media.MP4},
				filepath.Join(t.TempDir(), "x.mp4"), nil)
			var re *Error
			if !errors.Is(err, ErrUnrenderable) || !errors.As(err, &re) || re.Pointer != c.pointer || !strings.Contains(re.Reason, c.says) {
				t.Fatalf("got %v, want %s at %s", err, c.says, c.pointer)
			}
		})
	}
	_, err := Renderer{Assets: assetMap{}}.Render(context.Background(), Request{Snapshot: base(domain.Layer{Type: domain.LayerImage, LayerID: "i", AssetID: "gone"}),
		AspectRatio: domain.AspectPortrait, Format: media.MP4}, filepath.Join(t.TempDir(), "x.mp4"), nil)
	if !errors.Is(err, ErrUnrenderable) || !strings.Contains(err.Error(), "/snapshot/scenes/0/layers/0/assetId") {
		t.Fatalf("missing asset: %v", err)
	}
}

// ffmpegChildren lists this process's ffmpeg children.
func ffmpegChildren(t *testing.T) []string {
	t.Helper()
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	var out []string
	for _, d := range dirs {
		stat, err := os.ReadFile(d + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...
		s := string(stat)
		end := strings.LastIndexByte(s, ')')
		if end < 0 || !strings.Contains(s[:end], "(ffmpeg") {
			continue
		}
		fields := strings.Fields(s[end+1:])
		if len(fields) > 1 && fields[1] == strconv.Itoa(os.Getpid()) {
			out = append(out, d)
		}
	}
	return out
}

// TestRenderCancelKillsFFmpeg: cancelling a render mid-way returns the
// context's error, leaves no ffmpeg child and no output file.
func TestRenderCancelKillsFFmpeg(t *testing.T) {
	s := domain.Snapshot{FPS: 30}
	for i := range 6 { // 60 s of fades: every frame is drawn
		s.Scenes = append(s.Scenes, domain.SnapshotScene{SceneID: fmt.Sprintf("s%d", i), DurationMs: 10000,
			Background: domain.Background{Type: domain.BackgroundColor, Color: "#336699"},
			Transition: &domain.Transition{Type: domain.TransitionFade, DurationMs: 5000}})
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	path := filepath.Join(t.TempDir(), "out.mp4")
	running := make(chan struct{})
	var once bool
	done := make(chan error, 1)
	go func() {
		_, err := Renderer{}.Render(ctx, Request{Snapshot: s, AspectRatio: domain.AspectPortrait, Format: media.MP4, Scale: 0.5}, path,
			func(p int) {
				if p >= 1 && !once {
					once = true
					close(running)
				}
			})
		done <- err
	}()
	select {
	case <-running:
	case err := <-done:
		t.Fatalf("render ended before it was cancelled: %v", err)
	case <-time.After(60 * time.Second):
		t.Fatal("no progress in 60 s")
	}
	if len(ffmpegChildren(t)) == 0 {
		t.Fatal("no ffmpeg running mid-render (the check below would prove nothing)")
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("render: %v, want context.Canceled", err)
	}
	if kids := ffmpegChildren(t); len(kids) != 0 {
		t.Errorf("ffmpeg left running: %v", kids)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("output left: %v", err)
	}
}

// clipMP4 is a 2 s video: red for a second, then blue.
func clipMP4(t *testing.T) []byte {
	t.Helper()
	path := filepath.Join(t.TempDir(), "clip.mp4")
	e, err := media.Config{}.Start(context.Background(), media.MP4, media.Video{Width: 320, Height: 180, FPS: 30, Frames: 60}, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Abort()
	for _, c := range []color.RGBA{red, blue} {
		buf, err := e.Buffer()
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < len(buf); i += 4 {
			buf[i], buf[i+1], buf[i+2], buf[i+3] = c.R, c.G, c.B, c.A
		}
		if err := e.Send(buf, 30); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestRenderVideo: a video layer plays in its box from its trim point, in
// step with the timeline, and holds its last frame once the clip ends; a
// video background plays from its scene's start; a fade mixes a playing
// video into the next scene's first frame; no decoder is left running.
func TestRenderVideo(t *testing.T) {
	s := domain.Snapshot{FPS: 10, Scenes: []domain.SnapshotScene{
		{SceneID: "a", DurationMs: 2000, Background: domain.Background{Type: domain.BackgroundColor, Color: "#1EA046"},
			Layers: []domain.Layer{{Type: domain.LayerVideo, LayerID: "v", AssetID: "clip", X: f64(0.25), Y: f64(0.25),
				Width: f64(0.5), Height: f64(0.5), Fit: "cover", TrimStartMs: 500}},
			Transition: &domain.Transition{Type: domain.TransitionFade, DurationMs: 500}},
		{SceneID: "b", DurationMs: 1500, Background: domain.Background{Type: domain.BackgroundAsset, AssetID: "clip"}},
	}}
	path, res := render(t, Request{Snapshot: s, AspectRatio: domain.AspectLandscape, Format: media.PNGSequence, Scale: 0.25},
		assetMap{"clip": {ContentType: "video/mp4", Data: clipMP4(t)}})
	if res.Frames != 35 || res.Width != 480 || res.Height != 270 {
		t.Fatalf("result %+v", res)
	}
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	frame := func(k int) image.Image {
		r, err := zr.File[k].Open()
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		img, err := png.Decode(r)
		if err != nil {
			t.Fatal(err)
		}
		return img
	}
	mix := func(a, b color.RGBA, t float64) color.RGBA {
		m := func(x, y uint8) uint8 { return uint8(float64(x)*(1-t) + float64(y)*t + 0.5) }
		return color.RGBA{m(a.R, b.R), m(a.G, b.G), m(a.B, b.B), 255}
	}
	centre, corner := image.Pt(240, 135), image.Pt(10, 10)
	for _, c := range []struct {
		k            int
		centre, edge color.RGBA
	}{
		{2, red, green},   // 0.2 s: the clip at 0.7 s
		{8, blue, green},  // 0.8 s: the clip at 1.3 s
		{14, blue, green}, // 1.4 s: the clip ended at 1.5 s of its time: held
		{17, mix(blue, red, 0.4), mix(green, red, 0.4)}, // 1.7 s: 40% into the fade to b's first frame (the clip at 0)
		{25, red, red},   // 2.5 s: b's background at 0.5 s
		{33, blue, blue}, // 3.3 s: at 1.3 s
	} {
		img := frame(c.k)
		mustNear(t, fmt.Sprintf("frame %d centre", c.k), img.At(centre.X, centre.Y), c.centre, 12)
		mustNear(t, fmt.Sprintf("frame %d corner", c.k), img.At(corner.X, corner.Y), c.edge, 12)
	}
	if kids := ffmpegChildren(t); len(kids) != 0 {
		t.Errorf("ffmpeg left running: %v", kids)
	}
}
