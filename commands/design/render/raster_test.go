package render

import (
	"image/color"
	"testing"

	"github.com/tdewolff/canvas"
	"github.com/tdewolff/canvas/renderers/rasterizer"

	"github.com/platform/backend/internal/media/raster"
)

// TestRasterDrawsImagesAsCanvasDoes: the fast image paths (a copy for a
// picture placed pixel for pixel, a resample onto the frame otherwise)
// draw what canvas's own rasterizer draws, placed, scaled and turned.
func TestRasterDrawsImagesAsCanvasDoes(t *testing.T) {
	pic := raster.NewFrame(60, 40)
	for y := range 40 {
		for x := range 60 {
			pic.SetRGBA(x, y, color.RGBA{R: uint8(x * 4), G: uint8(y * 6), B: 200, A: 255})
		}
	}
	for _, c := range []struct {
		name string
		draw func(ctx *canvas.Context)
	}{
		{"placed", func(ctx *canvas.Context) { ctx.DrawImage(30, 20, pic, canvas.DPMM(1)) }},
		{"moved by a fraction", func(ctx *canvas.Context) { ctx.DrawImage(30.5, 20.25, pic, canvas.DPMM(1)) }},
		{"scaled", func(ctx *canvas.Context) { ctx.DrawImage(10, 10, pic, canvas.DPMM(0.5)) }},
		{"turned", func(ctx *canvas.Context) {
			ctx.Translate(100, 80)
			ctx.Rotate(30)
			ctx.DrawImage(-30, -20, pic, canvas.DPMM(1))
		}},
	} {
		record := func() *canvas.Canvas {
			cv := canvas.New(200, 160)
			ctx := canvas.NewContext(cv)
			ctx.SetCoordSystem(canvas.CartesianIV)
			c.draw(ctx)
			return cv
		}
		ours, theirs := raster.NewFrame(200, 160), raster.NewFrame(200, 160)
		record().RenderTo(newRaster(ours))
		ras := rasterizer.FromImage(theirs, canvas.DPMM(1), canvas.LinearColorSpace{})
		record().RenderTo(ras)
		ras.Close()
		inked, off := 0, 0
		for y := range 160 {
			for x := range 200 {
				a, b := ours.RGBAAt(x, y), theirs.RGBAAt(x, y)
				if b.A > 0 {
					inked++
				}
				if d := diff(a, b); d > 24 {
					off++
				}
			}
		}
		if inked < 500 || off > inked/50 {
			t.Errorf("%s: %d of %d pixels differ from canvas's", c.name, off, inked)
		}
	}
}

func diff(a, b color.RGBA) int {
	d := func(x, y uint8) int {
		if x > y {
			return int(x - y)
		}
		return int(y - x)
	}
	return d(a.R, b.R) + d(a.G, b.G) + d(a.B, b.B) + d(a.A, b.A)
}
