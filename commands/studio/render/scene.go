package render

import (
	"context"
	"fmt"
	"image"
	"image/color"
	"os"
	"path/filepath"
	"time"

	domain "github.com/platform/backend/domain/studio"
	"github.com/platform/backend/internal/media"
	"github.com/platform/backend/internal/media/raster"
)

// Layout defaults (documented in docs/decisions.md, "Studio: rendering").
var (
	defaultTextColor  = color.RGBA{R: 255, G: 255, B: 255, A: 255}
	defaultBackground = color.RGBA{A: 255} // black under a contained background
)

// MaxVideosPerScene bounds the videos (layers and background) one scene
// plays: each is an ffmpeg decoding beside the encoder.
const MaxVideosPerScene = 4

// sprite is a layer drawn once, placed on every frame it shows.
type sprite struct {
	img     *image.RGBA
	at      image.Point
	opacity float64
}

// clip is a video placed in a box: decoded from its start when first
// shown, one frame per output frame while it shows, its last frame held
// once it ends.
type clip struct {
	pointer string
	asset   string
	path    string
	box     image.Rectangle
	fit     string
	trim    time.Duration
	dec     *media.Decoder
}

// scene is a scene's background and layers, drawn once (videos: opened once).
type scene struct {
	plan    scenePlan
	color   color.RGBA
	bg      *sprite // a background image, over color
	bgClip  *clip   // or a background video
	sprites []sprite
	clips   map[int]*clip // by index into plan.layers
}

// moving reports whether frames of a segment showing these layers differ
// from one another (a video plays).
func (s *scene) moving(visible []int) bool {
	if s.bgClip != nil {
		return true
	}
	for _, i := range visible {
		if s.clips[i] != nil {
			return true
		}
	}
	return false
}

// compose draws the scene with the given layers (indices into plan.layers)
// into dst, videos at their current frames.
func (s *scene) compose(ctx context.Context, j *job, dst *image.RGBA, visible []int) error {
	if s.bg == nil || s.bg.at != (image.Point{}) || s.bg.img.Bounds().Size() != dst.Bounds().Size() || !s.bg.img.Opaque() {
		raster.Fill(dst, s.color)
	}
	if s.bg != nil {
		raster.Over(dst, s.bg.img, s.bg.at, 1)
	}
	if s.bgClip != nil {
		if err := s.bgClip.draw(ctx, j, dst); err != nil {
			return err
		}
	}
	for _, i := range visible {
		if c := s.clips[i]; c != nil {
			if err := c.draw(ctx, j, dst); err != nil {
				return err
			}
			continue
		}
		sp := s.sprites[i]
		raster.Over(dst, sp.img, sp.at, sp.opacity)
	}
	return nil
}

// advance moves the videos shown by a frame to their next frame.
func (s *scene) advance(visible []int) {
	if s.bgClip != nil && s.bgClip.dec != nil {
		s.bgClip.dec.Advance()
	}
	for _, i := range visible {
		if c := s.clips[i]; c != nil && c.dec != nil {
			c.dec.Advance()
		}
	}
}

func (s *scene) close() {
	if s.bgClip != nil && s.bgClip.dec != nil {
		s.bgClip.dec.Close()
	}
	for _, c := range s.clips {
		if c.dec != nil {
			c.dec.Close()
		}
	}
}

func (c *clip) draw(ctx context.Context, j *job, dst *image.RGBA) error {
	w, h := c.box.Dx(), c.box.Dy()
	if c.dec == nil {
		d, err := j.media.DecodeVideo(ctx, c.path, w, h, j.plan.fps, c.trim, c.fit)
		if err != nil {
			return err
		}
		c.dec = d
	}
	pix, err := c.dec.Frame()
	if err != nil {
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		return unrenderable(c.pointer, "video asset %s: %v", c.asset, err)
	}
	raster.Over(dst, raster.FrameOf(pix, w, h), c.box.Min, 1)
	return nil
}

// assets keeps what a render loaded: images decoded and scaled (within a
// pixel budget: a logo on every scene is decoded and scaled once), videos
// written once to a file of the render's own (ffmpeg seeks in it).
type assets struct {
	decoded map[string]image.Image
	fitted  map[fitKey]fitted
	videos  map[string]string
	pixels  int
	dir     string
}

type fitKey struct {
	asset, mode string
	w, h        int
}

type fitted struct {
	img *image.RGBA
	at  image.Point
}

// imageBudget is how many pixels the caches above may hold (about 256 MB).
const imageBudget = 64_000_000

func (a *assets) remove() {
	if a.dir != "" {
		_ = os.RemoveAll(a.dir)
	}
}

// open loads an asset the render has not seen yet and files it by kind:
// "image" (decoded, and kept within the budget) or "video" (written to a
// file).
func (j *job) open(ctx context.Context, at, id string) (string, image.Image, error) {
	if img, ok := j.assets.decoded[id]; ok {
		return "image", img, nil
	}
	if _, ok := j.assets.videos[id]; ok {
		return "video", nil, nil
	}
	a, err := load(ctx, j.loader, at, id)
	if err != nil {
		return "", nil, err
	}
	switch kind := a.kind(); kind {
	case "image":
		img, err := raster.DecodeImage(a.Data)
		if err != nil {
			return "", nil, unrenderable(at, "asset %s: %v", id, err)
		}
		if n := img.Bounds().Dx() * img.Bounds().Dy(); j.assets.pixels+n <= imageBudget {
			j.assets.decoded[id], j.assets.pixels = img, j.assets.pixels+n
		}
		return kind, img, nil
	case "video":
		if j.assets.dir == "" {
			if j.assets.dir, err = os.MkdirTemp("", "studio-render-*"); err != nil {
				return "", nil, err
			}
		}
		path := filepath.Join(j.assets.dir, fmt.Sprintf("video-%d", len(j.assets.videos)))
		if err := os.WriteFile(path, a.Data, 0o600); err != nil {
			return "", nil, err
		}
		j.assets.videos[id] = path
		return kind, nil, nil
	default:
		return "", nil, unrenderable(at, "asset %s (%s) is neither an image nor a video", id, kind)
	}
}

func (j *job) fit(ctx context.Context, at, id string, w, h int, mode string) (fitted, error) {
	key := fitKey{asset: id, mode: mode, w: w, h: h}
	if f, ok := j.assets.fitted[key]; ok {
		return f, nil
	}
	kind, src, err := j.open(ctx, at, id)
	if err != nil {
		return fitted{}, err
	}
	if kind != "image" {
		return fitted{}, unrenderable(at, "asset %s is a %s, not an image", id, kind)
	}
	img, off := raster.Fit(src, w, h, mode)
	f := fitted{img: img, at: off}
	if n := img.Bounds().Dx() * img.Bounds().Dy(); j.assets.pixels+n <= imageBudget {
		j.assets.fitted[key], j.assets.pixels = f, j.assets.pixels+n
	}
	return f, nil
}

// prepare draws scene i's background and layers (videos are opened, not
// yet decoded).
func (j *job) prepare(ctx context.Context, i int) (*scene, error) {
	sc, sp := j.snapshot.Scenes[i], j.plan.scenes[i]
	at := fmt.Sprintf("/snapshot/scenes/%d", i)
	out := &scene{plan: sp, color: defaultBackground, sprites: make([]sprite, len(sp.layers)), clips: map[int]*clip{}}
	full := image.Rect(0, 0, j.plan.w, j.plan.h)
	switch sc.Background.Type {
	case domain.BackgroundColor:
		c, err := raster.ParseHex(sc.Background.Color)
		if err != nil {
			return nil, unrenderable(at+"/background/color", "%v", err)
		}
		out.color = c
	case domain.BackgroundAsset:
		bat, id, mode := at+"/background/assetId", sc.Background.AssetID, fitMode(sc.Background.Fit, raster.Cover)
		kind, _, err := j.open(ctx, bat, id)
		if err != nil {
			return nil, err
		}
		if kind == "video" {
			out.bgClip = &clip{pointer: bat, asset: id, path: j.assets.videos[id], box: full, fit: mode}
			break
		}
		f, err := j.fit(ctx, bat, id, j.plan.w, j.plan.h, mode)
		if err != nil {
			return nil, err
		}
		out.bg = &sprite{img: f.img, at: f.at, opacity: 1}
	default:
		return nil, unrenderable(at+"/background/type", "unknown background %q", sc.Background.Type)
	}
	for n, lp := range sp.layers {
		l := sc.Layers[lp.index]
		lat := fmt.Sprintf("%s/layers/%d", at, lp.index)
		box := j.box(l)
		switch l.Type {
		case domain.LayerText:
			s, err := j.text(l, box, lat)
			if err != nil {
				return nil, err
			}
			out.sprites[n] = s
		case domain.LayerImage:
			f, err := j.fit(ctx, lat+"/assetId", l.AssetID, box.Dx(), box.Dy(), fitMode(l.Fit, raster.Contain))
			if err != nil {
				return nil, err
			}
			out.sprites[n] = sprite{img: f.img, at: box.Min.Add(f.at), opacity: fraction(l.Opacity, 1)}
		case domain.LayerVideo:
			kind, _, err := j.open(ctx, lat+"/assetId", l.AssetID)
			if err != nil {
				return nil, err
			}
			if kind != "video" {
				return nil, unrenderable(lat+"/assetId", "asset %s is an image, not a video", l.AssetID)
			}
			out.clips[n] = &clip{pointer: lat + "/assetId", asset: l.AssetID, path: j.assets.videos[l.AssetID], box: box,
				fit: fitMode(l.Fit, raster.Contain), trim: time.Duration(l.TrimStartMs) * time.Millisecond}
		default:
			return nil, unrenderable(lat+"/type", "unknown layer type %q", l.Type)
		}
	}
	videos := len(out.clips)
	if out.bgClip != nil {
		videos++
	}
	if videos > MaxVideosPerScene {
		out.close()
		return nil, unrenderable(at, "%d videos in one scene: at most %d", videos, MaxVideosPerScene)
	}
	return out, nil
}

// box is a layer's rectangle in output pixels: x and y default to 0, width
// and height to the rest of the frame.
func (j *job) box(l domain.Layer) image.Rectangle {
	W, H := float64(j.plan.w), float64(j.plan.h)
	x, y := fraction(l.X, 0), fraction(l.Y, 0)
	w, h := fraction(l.Width, 1-x), fraction(l.Height, 1-y)
	min := image.Pt(int(x*W+0.5), int(y*H+0.5))
	return image.Rectangle{Min: min, Max: image.Pt(max(int((x+w)*W+0.5), min.X+1), max(int((y+h)*H+0.5), min.Y+1))}
}

func (j *job) text(l domain.Layer, box image.Rectangle, at string) (sprite, error) {
	c := defaultTextColor
	if l.Color != "" {
		var err error
		if c, err = raster.ParseHex(l.Color); err != nil {
			return sprite{}, unrenderable(at+"/color", "%v", err)
		}
	}
	size := l.FontSize
	if size == 0 {
		size = domain.DefaultFontSize
	}
	img, err := j.fonts.get(l.FontID).Text(l.Text, raster.TextStyle{Size: float64(size) * j.plan.px, Color: c,
		Width: box.Dx(), Align: l.Align, MaxHeight: j.plan.h - box.Min.Y})
	if err != nil {
		return sprite{}, unrenderable(at, "%v", err)
	}
	return sprite{img: img, at: box.Min, opacity: 1}, nil
}

func fraction(v *float64, def float64) float64 {
	if v == nil {
		return def
	}
	return *v
}

func fitMode(m, def string) string {
	if m == "" {
		return def
	}
	return m
}
