package bench

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"github.com/platform/backend/commands/studio/render"
	domain "github.com/platform/backend/domain/studio"
	"github.com/platform/backend/internal/media"
)

// BenchmarkStudioRender: wall time to render a 10 s 1080x1920 composition
// (four scenes, text, an image background, a logo, three fades) to MP4,
// beside ffmpeg encoding the very same frames alone: the frames drawn
// beforehand and held in memory, piped to the same ffmpeg command by the
// same encoder, alternated, twice each. ratio = raw time / render time (1 means drawing cost
// nothing on the wall clock; the first bar is 0.7); cpu-ratio is the same
// with CPU seconds (Go and ffmpeg), steadier on a shared machine.
func BenchmarkStudioRender(b *testing.B) {
	snap, assets := benchComposition(b)
	req := render.Request{Snapshot: snap, AspectRatio: domain.AspectPortrait, Format: media.MP4}
	r := render.Renderer{Assets: assets}
	dir := b.TempDir()
	for range b.N {
		var res render.Result
		x := versusRaw(b, 1080, 1920, dir, func(keep *keeper) (media.Video, error) {
			return r.Draw(context.Background(), req, keep)
		}, func(path string) (err error) {
			res, err = r.Render(context.Background(), req, path, nil)
			return err
		})
		seconds := float64(res.Frames) / float64(res.FPS)
		v, keep := x.v, x.keep
		b.Logf("%.0f s of %dx%d at %d fps (%d frames, %d distinct drawn: %d static runs + %d fade frames), libx264 %s crf %d, %d threads",
			seconds, v.Width, v.Height, v.FPS, v.Frames, keep.runs, keep.runs-keep.single, keep.single,
			media.DefaultPreset, media.DefaultCRF, media.DefaultThreads)
		x.report(b, "render", seconds)
	}
}

// versus is an export timed beside ffmpeg alone on the same frames: the
// frames, how long drawing them alone took, each run's wall time, and the
// better of each with its CPU.
type versus struct {
	v                        media.Video
	keep                     *keeper
	drawOnly                 time.Duration
	ours1, ours2, raw1, raw2 time.Duration
	ours, raw                time.Duration
	cpu, rawCPU              cpuUse
}

// versusRaw draws a width x height video's frames once and keeps them (a
// run of identical frames is one buffer: what the raw ceiling sends), then
// times export (to a path in dir) and ffmpeg alone on the kept frames
// (timeRaw), alternated, twice each, the better of each kept: the
// machine's other load moves both alike. The first export, ours.mp4, must
// hold every frame at that size. The benchmark's timer runs only in export.
func versusRaw(b *testing.B, width, height int, dir string, draw func(*keeper) (media.Video, error), export func(path string) error) versus {
	b.Helper()
	b.StopTimer()
	x := versus{keep: &keeper{size: width * height * 4}}
	drawStart := time.Now()
	var err error
	x.v, err = draw(x.keep)
	must(b, err)
	x.drawOnly = time.Since(drawStart)

	v, keep := x.v, x.keep
	var cpu1, cpu2, rawCPU1, rawCPU2 cpuUse
	x.raw1, rawCPU1 = timeRaw(b, v, keep, filepath.Join(dir, "raw1.mp4"))
	x.ours1, cpu1 = timed(b, export, filepath.Join(dir, "ours.mp4"))
	x.raw2, rawCPU2 = timeRaw(b, v, keep, filepath.Join(dir, "raw2.mp4"))
	x.ours2, cpu2 = timed(b, export, filepath.Join(dir, "ours2.mp4"))
	x.raw, x.rawCPU = x.raw1, rawCPU1
	if x.raw2 < x.raw1 {
		x.raw, x.rawCPU = x.raw2, rawCPU2
	}
	x.ours, x.cpu = x.ours1, cpu1
	if x.ours2 < x.ours1 {
		x.ours, x.cpu = x.ours2, cpu2
	}
	info, err := media.Config{}.Probe(context.Background(), filepath.Join(dir, "ours.mp4"))
	must(b, err)
	if info.Frames != v.Frames || info.Width != width || info.Height != height {
		b.Fatalf("exported %+v, want %d frames of %dx%d", info, v.Frames, width, height)
	}
	return x
}

// report writes the metrics (what+"-s", raw-encode-s, ratio, video-s/s,
// cpu-ratio) and the log lines of an export of seconds of video beside
// ffmpeg alone; what names it ("render", "export").
func (x versus) report(b *testing.B, what string, seconds float64) {
	b.Helper()
	b.ReportMetric(x.ours.Seconds(), what+"-s")
	b.ReportMetric(x.raw.Seconds(), "raw-encode-s")
	b.ReportMetric(x.raw.Seconds()/x.ours.Seconds(), "ratio")
	b.ReportMetric(seconds/x.ours.Seconds(), "video-s/s")
	// Under other load the wall clock swings; CPU seconds do not.
	cpuRatio := (x.rawCPU.self + x.rawCPU.children) / (x.cpu.self + x.cpu.children)
	b.ReportMetric(cpuRatio, "cpu-ratio")
	b.Logf("%s (draw + encode, pipelined): %.2f s and %.2f s; ffmpeg alone on the same frames: %.2f s and %.2f s (the better of each kept); ratio %.3f",
		what, x.ours1.Seconds(), x.ours2.Seconds(), x.raw1.Seconds(), x.raw2.Seconds(), x.raw.Seconds()/x.ours.Seconds())
	b.Logf("drawing alone (no encoder, frames kept): %.2f s", x.drawOnly.Seconds())
	b.Logf("CPU of the %s: Go %.2f s, ffmpeg %.2f s (raw run: Go %.2f s, ffmpeg %.2f s): cpu-ratio %.3f; machine %.0f%% busy, other processes %.2f cores",
		what, x.cpu.self, x.cpu.children, x.rawCPU.self, x.rawCPU.children, cpuRatio, 100*x.cpu.busy, x.cpu.other/x.cpu.wall.Seconds())
}

// timed runs export to path, the benchmark's timer running only there.
func timed(b *testing.B, export func(path string) error, path string) (time.Duration, cpuUse) {
	b.Helper()
	b.StartTimer()
	cpu0 := sampleCPU("")
	start := time.Now()
	err := export(path)
	took := time.Since(start)
	cpu := cpu0.to(sampleCPU(""))
	b.StopTimer()
	must(b, err)
	return took, cpu
}

// timeRaw pipes the kept frames to the same ffmpeg command.
func timeRaw(b *testing.B, v media.Video, keep *keeper, path string) (time.Duration, cpuUse) {
	b.Helper()
	cpu0 := sampleCPU("")
	start := time.Now()
	enc, err := media.Config{}.Start(context.Background(), media.MP4, v, path, nil)
	must(b, err)
	defer enc.Abort()
	for _, r := range keep.sent {
		must(b, enc.Send(r.pix, r.n))
	}
	must(b, enc.Close())
	return time.Since(start), cpu0.to(sampleCPU(""))
}

// keeper is a render.Sink that keeps every buffer sent, as sent.
type keeper struct {
	size         int
	sent         []kept
	runs, single int
}

type kept struct {
	pix []byte
	n   int
}

func (k *keeper) Buffer() ([]byte, error) { return make([]byte, k.size), nil }

func (k *keeper) Send(pix []byte, n int) error {
	k.sent = append(k.sent, kept{pix: pix, n: n})
	k.runs++
	if n == 1 {
		k.single++
	}
	return nil
}

// benchComposition is 10 s: a title card that gains a subtitle, a photo
// background with a headline and a logo, a quote card, an end card; fades
// between them and to black at the end.
func benchComposition(b *testing.B) (domain.Snapshot, benchAssets) {
	f := func(v float64) *float64 { return &v }
	fade := &domain.Transition{Type: domain.TransitionFade, DurationMs: 400}
	snap := domain.Snapshot{FPS: 30, Resolution: "1080p",
		Fonts: []domain.Font{{FontID: "body", Family: "DejaVu Sans"}, {FontID: "bold", Family: "DejaVu Sans", Weight: 700}},
		Scenes: []domain.SnapshotScene{
			{SceneID: "title", DurationMs: 3000, Background: domain.Background{Type: domain.BackgroundColor, Color: "#1B2A4A"}, Transition: fade,
				Layers: []domain.Layer{
					{Type: domain.LayerText, LayerID: "t", Text: "Spring collection", FontID: "bold", FontSize: 110, Align: "center", Y: f(0.35)},
					{Type: domain.LayerText, LayerID: "s", Text: "New arrivals every week, designed in Lisbon", FontID: "body", FontSize: 54,
						Align: "center", X: f(0.1), Y: f(0.5), Width: f(0.8), StartMs: 1000},
				}},
			{SceneID: "photo", DurationMs: 3000, Background: domain.Background{Type: domain.BackgroundAsset, AssetID: "photo"}, Transition: fade,
				Layers: []domain.Layer{
					{Type: domain.LayerText, LayerID: "h", Text: "Linen shirts from 39 EUR", FontID: "bold", FontSize: 90, Color: "#FFFFFF",
						X: f(0.08), Y: f(0.7), Width: f(0.84)},
					{Type: domain.LayerImage, LayerID: "logo", AssetID: "logo", X: f(0.75), Y: f(0.05), Width: f(0.2), Height: f(0.08), Opacity: f(0.9)},
				}},
			{SceneID: "quote", DurationMs: 2500, Background: domain.Background{Type: domain.BackgroundColor, Color: "#F4EDE4"},
				Layers: []domain.Layer{{Type: domain.LayerText, LayerID: "q", FontID: "body", FontSize: 70, Color: "#222222", Align: "center",
					X: f(0.1), Y: f(0.3), Width: f(0.8), Text: "\"The softest linen I have worn, and it lasts.\" - a customer"}}},
			{SceneID: "end", DurationMs: 1500, Background: domain.Background{Type: domain.BackgroundColor, Color: "#1B2A4A"}, Transition: fade,
				Layers: []domain.Layer{{Type: domain.LayerText, LayerID: "e", Text: "shop.example.com", FontID: "bold", FontSize: 80,
					Align: "center", Y: f(0.45)}}},
		}}
	return snap, benchAssets{"photo": photoJPEG(b, 1080, 1920), "logo": logoPNG(b, 400, 160)}
}

type benchAssets map[string][]byte

func (a benchAssets) Load(_ context.Context, id string) (render.Asset, error) {
	d, ok := a[id]
	if !ok {
		return render.Asset{}, fmt.Errorf("no asset %s", id)
	}
	return render.Asset{Data: d}, nil
}

// photoJPEG is a photo-like image: gradients with grain (texture for the
// encoder, as a real photo has).
func photoJPEG(b *testing.B, w, h int) []byte {
	rng := rand.New(rand.NewPCG(1, 2))
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			n := rng.IntN(24)
			img.SetRGBA(x, y, color.RGBA{R: uint8(60 + 120*x/w + n), G: uint8(90 + 80*y/h + n), B: uint8(140 - 60*y/h + n), A: 255})
		}
	}
	var buf bytes.Buffer
	must(b, jpeg.Encode(&buf, img, &jpeg.Options{Quality: 90}))
	return buf.Bytes()
}

func logoPNG(b *testing.B, w, h int) []byte {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			if (x-w/2)*(x-w/2)*h*h/(w*w)+(y-h/2)*(y-h/2) < h*h/4 {
				img.SetNRGBA(x, y, color.NRGBA{R: 240, G: 200, B: 40, A: 255})
			}
		}
	}
	var buf bytes.Buffer
	must(b, png.Encode(&buf, img))
	return buf.Bytes()
}
