package render

import (
	"context"
	"fmt"
	"image"
	"image/color"

	domain "github.com/platform/backend/domain/studio"
	"github.com/platform/backend/internal/media/raster"
)

// Layout defaults (documented in docs/decisions.md, "Studio: rendering").
var (
	defaultTextColor  = color.RGBA{R: 255, G: 255, B: 255, A: 255}
	defaultBackground = color.RGBA{A: 255} // black under a contained background image
)

// sprite is a layer drawn once, placed on every frame it shows.
type sprite struct {
	img     *image.RGBA
	at      image.Point
	opacity float64
}

// scene is a scene's background and layers, drawn once.
type scene struct {
	plan    scenePlan
	color   color.RGBA
	bg      *sprite // a background image, over color
	sprites []sprite
}

// compose draws the scene with the given layers (indices into plan.layers)
// into dst.
func (s *scene) compose(dst *image.RGBA, visible []int) {
	if s.bg == nil || s.bg.at != (image.Point{}) || s.bg.img.Bounds().Size() != dst.Bounds().Size() || !s.bg.img.Opaque() {
		raster.Fill(dst, s.color)
	}
	if s.bg != nil {
		raster.Over(dst, s.bg.img, s.bg.at, 1)
	}
	for _, i := range visible {
		sp := s.sprites[i]
		raster.Over(dst, sp.img, sp.at, sp.opacity)
	}
}

// images keeps what a render decoded and scaled, within a pixel budget: a
// logo on every scene is decoded and scaled once.
type images struct {
	decoded map[string]image.Image
	fitted  map[fitKey]fitted
	pixels  int
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

func (im *images) fit(ctx context.Context, assets Assets, at, id string, w, h int, mode string) (fitted, error) {
	key := fitKey{asset: id, mode: mode, w: w, h: h}
	if f, ok := im.fitted[key]; ok {
		return f, nil
	}
	src, ok := im.decoded[id]
	if !ok {
		a, err := load(ctx, assets, at, id)
		if err != nil {
			return fitted{}, err
		}
		switch a.kind() {
		case "image":
		case "video":
			return fitted{}, unrenderable(at, "asset %s is a video: video backgrounds and layers are not rendered yet", id)
		default:
			return fitted{}, unrenderable(at, "asset %s (%s) is not an image", id, a.kind())
		}
		if src, err = raster.DecodeImage(a.Data); err != nil {
			return fitted{}, unrenderable(at, "asset %s: %v", id, err)
		}
		if n := src.Bounds().Dx() * src.Bounds().Dy(); im.pixels+n <= imageBudget {
			im.decoded[id], im.pixels = src, im.pixels+n
		}
	}
	img, off := raster.Fit(src, w, h, mode)
	f := fitted{img: img, at: off}
	if n := img.Bounds().Dx() * img.Bounds().Dy(); im.pixels+n <= imageBudget {
		im.fitted[key], im.pixels = f, im.pixels+n
	}
	return f, nil
}

// prepare draws scene i's background and layers for plan p.
func (r *job) prepare(ctx context.Context, i int) (*scene, error) {
	sc, sp := r.snapshot.Scenes[i], r.plan.scenes[i]
	at := fmt.Sprintf("/snapshot/scenes/%d", i)
	out := &scene{plan: sp, color: defaultBackground, sprites: make([]sprite, len(sp.layers))}
	switch sc.Background.Type {
	case domain.BackgroundColor:
		c, err := raster.ParseHex(sc.Background.Color)
		if err != nil {
			return nil, unrenderable(at+"/background/color", "%v", err)
		}
		out.color = c
	case domain.BackgroundAsset:
		f, err := r.images.fit(ctx, r.assets, at+"/background/assetId", sc.Background.AssetID, r.plan.w, r.plan.h, fitMode(sc.Background.Fit, raster.Cover))
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
		box := r.box(l)
		switch l.Type {
		case domain.LayerText:
			s, err := r.text(l, box, lat)
			if err != nil {
				return nil, err
			}
			out.sprites[n] = s
		case domain.LayerImage:
			f, err := r.images.fit(ctx, r.assets, lat+"/assetId", l.AssetID, box.Dx(), box.Dy(), fitMode(l.Fit, raster.Contain))
			if err != nil {
				return nil, err
			}
			out.sprites[n] = sprite{img: f.img, at: box.Min.Add(f.at), opacity: fraction(l.Opacity, 1)}
		case domain.LayerVideo:
			return nil, unrenderable(lat, "video layers are not rendered yet")
		default:
			return nil, unrenderable(lat+"/type", "unknown layer type %q", l.Type)
		}
	}
	return out, nil
}

// box is a layer's rectangle in output pixels: x and y default to 0, width
// and height to the rest of the frame.
func (r *job) box(l domain.Layer) image.Rectangle {
	W, H := float64(r.plan.w), float64(r.plan.h)
	x, y := fraction(l.X, 0), fraction(l.Y, 0)
	w, h := fraction(l.Width, 1-x), fraction(l.Height, 1-y)
	min := image.Pt(int(x*W+0.5), int(y*H+0.5))
	return image.Rectangle{Min: min, Max: image.Pt(max(int((x+w)*W+0.5), min.X+1), max(int((y+h)*H+0.5), min.Y+1))}
}

func (r *job) text(l domain.Layer, box image.Rectangle, at string) (sprite, error) {
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
	img, err := r.fonts.get(l.FontID).Text(l.Text, raster.TextStyle{Size: float64(size) * r.plan.px, Color: c,
		Width: box.Dx(), Align: l.Align, MaxHeight: r.plan.h - box.Min.Y})
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
