package render

import (
	"image"
	"image/draw"
	"math"

	"github.com/tdewolff/canvas"
	"github.com/tdewolff/canvas/renderers/rasterizer"
	xdraw "golang.org/x/image/draw"
)

// rasterTo is canvas's rasterizer onto a frame (one canvas unit a pixel,
// linear colour: a kit colour's pixel is its hex exactly), with images
// drawn straight onto the frame: a picture placed pixel for pixel (an
// export's fitted images, unturned, unscaled) is copied over, and any other
// transform resamples onto the *image.RGBA itself. canvas's own RenderImage
// resamples every image through its generic draw.Image, a third of a PNG
// export's time.
type rasterTo struct {
	*rasterizer.Rasterizer
	dst *image.RGBA
}

func newRaster(dst *image.RGBA) rasterTo {
	return rasterTo{Rasterizer: rasterizer.FromImage(dst, canvas.DPMM(1), canvas.LinearColorSpace{}), dst: dst}
}

// RenderImage is rasterizer.RenderImage's geometry (one pixel a unit) with
// the fast paths above.
func (r rasterTo) RenderImage(img image.Image, m canvas.Matrix) {
	h := float64(r.dst.Bounds().Dy())
	if m[0][1] == 0 && m[1][0] == 0 && m[0][0] == 1 && m[1][1] == 1 {
		origin := m.Dot(canvas.Point{X: 0, Y: float64(img.Bounds().Dy())})
		x, y := origin.X, h-origin.Y
		if math.Abs(x-math.Round(x)) < 1e-6 && math.Abs(y-math.Round(y)) < 1e-6 {
			at := image.Pt(int(math.Round(x)), int(math.Round(y)))
			draw.Draw(r.dst, img.Bounds().Sub(img.Bounds().Min).Add(at), img, img.Bounds().Min, draw.Over)
			return
		}
	}
	margin := 0
	if (m[0][1] != 0 || m[1][0] != 0) && (m[0][0] != 0 || m[1][1] == 0) {
		// A transparent margin keeps a turned picture's borders smooth.
		margin = 4
		size := img.Bounds().Size()
		padded := image.NewRGBA(image.Rect(0, 0, size.X+2*margin, size.Y+2*margin))
		draw.Draw(padded, image.Rect(margin, margin, size.X+margin, size.Y+margin), img, img.Bounds().Min, draw.Over)
		img = padded
	}
	origin := m.Dot(canvas.Point{X: -float64(margin), Y: float64(img.Bounds().Dy() - margin)})
	aff := [6]float64{m[0][0], -m[0][1], origin.X, -m[1][0], m[1][1], h - origin.Y}
	xdraw.CatmullRom.Transform(r.dst, aff, img, img.Bounds(), xdraw.Over, nil)
}
