package raster

import (
	"bytes"
	"fmt"
	"image"
	"image/draw"
	_ "image/jpeg" // asset decoders
	_ "image/png"

	xdraw "golang.org/x/image/draw"
)

// MaxImagePixels bounds a decoded image (40 megapixels: a 160 MB RGBA),
// checked from the header before any pixel is decoded.
const MaxImagePixels = 40_000_000

// DecodeImage reads PNG or JPEG bytes, refusing images larger than
// MaxImagePixels before decoding them (a small file can claim a huge
// size).
func DecodeImage(data []byte) (image.Image, error) {
	cfg, kind, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("not a PNG or JPEG image: %w", err)
	}
	if cfg.Width < 1 || cfg.Height < 1 || cfg.Width*cfg.Height > MaxImagePixels {
		return nil, fmt.Errorf("a %s of %dx%d pixels: at most %d pixels", kind, cfg.Width, cfg.Height, MaxImagePixels)
	}
	img, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("unreadable %s: %w", kind, err)
	}
	return img, nil
}

// Fit modes.
const (
	Cover   = "cover"   // fill the box, cropping what overflows (centred)
	Contain = "contain" // the whole image inside the box, centred, the rest left empty
)

// Fit scales src into a box of w x h pixels (Catmull-Rom) and returns the
// premultiplied result with its top-left relative to the box's.
func Fit(src image.Image, w, h int, mode string) (*image.RGBA, image.Point) {
	sb := src.Bounds()
	sw, sh := float64(sb.Dx()), float64(sb.Dy())
	if w < 1 || h < 1 || sw < 1 || sh < 1 {
		return NewFrame(1, 1), image.Point{}
	}
	scale := max(float64(w)/sw, float64(h)/sh)
	if mode == Contain {
		scale = min(float64(w)/sw, float64(h)/sh)
	}
	dw, dh := max(int(sw*scale+0.5), 1), max(int(sh*scale+0.5), 1)
	at := image.Pt((w-dw)/2, (h-dh)/2)
	out := NewFrame(min(dw, w), min(dh, h))
	if dw == sb.Dx() && dh == sb.Dy() {
		// Already the size (a background made for the frame): a copy.
		draw.Draw(out, out.Bounds(), src, sb.Min.Sub(image.Pt(min(at.X, 0), min(at.Y, 0))), draw.Src)
		return out, image.Pt(max(at.X, 0), max(at.Y, 0))
	}
	// The scaled image sits at at (negative when cropped): draw the part
	// that lands inside the box.
	full := image.Rect(0, 0, dw, dh).Add(at)
	xdraw.CatmullRom.Scale(out, full.Sub(image.Pt(max(at.X, 0), max(at.Y, 0))), src, sb, xdraw.Src, nil)
	return out, image.Pt(max(at.X, 0), max(at.Y, 0))
}

// Premultiplied converts any image to an RGBA frame.
func Premultiplied(src image.Image) *image.RGBA {
	if r, ok := src.(*image.RGBA); ok && r.Rect.Min == (image.Point{}) && r.Stride == 4*r.Rect.Dx() {
		return r
	}
	out := NewFrame(src.Bounds().Dx(), src.Bounds().Dy())
	draw.Draw(out, out.Bounds(), src, src.Bounds().Min, draw.Src)
	return out
}

// imageKinds are the formats image.DecodeConfig names, by media type.
var imageKinds = map[string]string{"image/png": "png", "image/jpeg": "jpeg"}

// CheckImage checks an uploaded image: it decodes as the media type it was
// sent as (PNG or JPEG), within MaxImagePixels. It answers its size.
func CheckImage(data []byte, contentType string) (width, height int, err error) {
	cfg, kind, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil || imageKinds[contentType] != kind {
		return 0, 0, fmt.Errorf("not a %s image", contentType)
	}
	if _, err := DecodeImage(data); err != nil {
		return 0, 0, err
	}
	return cfg.Width, cfg.Height, nil
}
