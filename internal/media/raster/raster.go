// Package raster draws frames natively in Go: solid fills, images scaled to
// a box (cover or contain), text set with real fonts (tdewolff/canvas:
// OpenType shaping, line breaking, TTF/OTF/WOFF/WOFF2), compositing with
// opacity, and cross-fades. The studio's renderer and the design service's
// exports share it; it does no I/O and imports no package of the platform.
//
// Frames are *image.RGBA (premultiplied alpha) whose Stride is 4*width, so
// their Pix can go to internal/media as they are.
package raster

import (
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"strconv"
)

// NewFrame is a frame of w x h pixels, transparent.
func NewFrame(w, h int) *image.RGBA { return image.NewRGBA(image.Rect(0, 0, w, h)) }

// FrameOf wraps pix (w*h*4 bytes, e.g. an encoder's buffer) as a frame.
func FrameOf(pix []byte, w, h int) *image.RGBA {
	return &image.RGBA{Pix: pix[:w*h*4], Stride: w * 4, Rect: image.Rect(0, 0, w, h)}
}

// ParseHex reads #RRGGBB into an opaque colour.
func ParseHex(s string) (color.RGBA, error) {
	if len(s) != 7 || s[0] != '#' {
		return color.RGBA{}, fmt.Errorf("colour %q: want #RRGGBB", s)
	}
	v, err := strconv.ParseUint(s[1:], 16, 32)
	if err != nil {
		return color.RGBA{}, fmt.Errorf("colour %q: want #RRGGBB", s)
	}
	return color.RGBA{R: uint8(v >> 16), G: uint8(v >> 8), B: uint8(v), A: 255}, nil
}

// Fill paints the whole frame with c (one row set, then doubled copies:
// a 1080x1920 fill is a few memmoves).
func Fill(dst *image.RGBA, c color.RGBA) {
	pix := dst.Pix
	if len(pix) < 4 {
		return
	}
	pix[0], pix[1], pix[2], pix[3] = c.R, c.G, c.B, c.A
	for n := 4; n < len(pix); n *= 2 {
		copy(pix[n:], pix[:n])
	}
}

// Over draws src (premultiplied) onto dst with its top-left at at, scaled
// by opacity 0..1; what falls outside dst is clipped.
func Over(dst *image.RGBA, src *image.RGBA, at image.Point, opacity float64) {
	r := src.Bounds().Sub(src.Bounds().Min).Add(at)
	switch {
	case opacity <= 0:
		return
	case opacity >= 1:
		draw.Draw(dst, r, src, src.Bounds().Min, draw.Over)
	default:
		draw.DrawMask(dst, r, src, src.Bounds().Min, image.NewUniform(color.Alpha{A: uint8(opacity*255 + 0.5)}), image.Point{}, draw.Over)
	}
}

// Mix writes into dst the cross-fade of a and b (same sizes) at t in 0..1:
// t=0 is a, t=1 is b. Eight bytes at a time: the even and the odd bytes of
// a word are mixed in 16-bit lanes, which cannot overflow since the two
// weights sum to 256.
func Mix(dst, a, b []byte, t float64) error {
	if len(a) != len(dst) || len(b) != len(dst) {
		return errors.New("raster: mix of frames of different sizes")
	}
	w := uint64(min(max(int(t*256+0.5), 0), 256))
	iw := 256 - w
	const lanes = 0x00FF00FF00FF00FF
	i := 0
	for ; i+8 <= len(dst); i += 8 {
		x, y := binary.LittleEndian.Uint64(a[i:]), binary.LittleEndian.Uint64(b[i:])
		even := ((x&lanes)*iw + (y&lanes)*w) >> 8 & lanes
		odd := ((x>>8&lanes)*iw + (y>>8&lanes)*w) &^ lanes
		binary.LittleEndian.PutUint64(dst[i:], even|odd)
	}
	for ; i < len(dst); i++ {
		dst[i] = uint8((uint64(a[i])*iw + uint64(b[i])*w) >> 8)
	}
	return nil
}
