package raster

import (
	_ "embed"
	"errors"
	"fmt"
	"image"
	"image/color"
	"math"
	"sync"

	"github.com/tdewolff/canvas"
	"github.com/tdewolff/canvas/renderers/rasterizer"
)

// The platform's fonts (fonts/README.md): used when no font file is named.
var (
	//go:embed fonts/DejaVuSans.ttf
	dejaVuSans []byte
	//go:embed fonts/DejaVuSans-Bold.ttf
	dejaVuSansBold []byte
)

// DefaultFamily is the family of the bundled fonts.
const DefaultFamily = "DejaVu Sans"

// bundled are the bundled fonts, regular and bold, parsed on first use
// rather than when the package starts: ~8 MB of glyph tables that every
// process held live whether or not it ever set text, and that the collector
// marked on every cycle (a tenth of the gateway benchmark's live heap).
var bundled = sync.OnceValues(func() ([2]*Font, error) {
	regular, err := LoadFont(dejaVuSans)
	if err != nil {
		return [2]*Font{}, err
	}
	bold, err := LoadFont(dejaVuSansBold)
	return [2]*Font{regular, bold}, err
})

// DefaultFont is DejaVu Sans, bold from weight 600. An error is the
// repository's own files not loading (TestDefaultFonts).
func DefaultFont(weight int) (*Font, error) {
	fs, err := bundled()
	if err != nil {
		return nil, fmt.Errorf("the bundled fonts: %w", err)
	}
	if weight >= 600 {
		return fs[1], nil
	}
	return fs[0], nil
}

// Font is one loaded font file. It is safe for concurrent use.
type Font struct{ f *canvas.Font }

// MaxFontBytes bounds a font file.
const MaxFontBytes = 20 << 20

// LoadFont parses a TTF, OTF, WOFF or WOFF2 file. Font files are uploaded
// by users: a parser panic on a hostile file becomes an error.
func LoadFont(data []byte) (f *Font, err error) {
	if len(data) > MaxFontBytes {
		return nil, fmt.Errorf("a font file of %d bytes: at most %d", len(data), MaxFontBytes)
	}
	defer func() {
		if r := recover(); r != nil {
			f, err = nil, fmt.Errorf("unreadable font file: %v", r)
		}
	}()
	cf, err := canvas.LoadFont(data, 0, canvas.FontRegular)
	if err != nil {
		return nil, fmt.Errorf("unreadable font file: %w", err)
	}
	return &Font{f: cf}, nil
}

// Name is the font's full name from its name table.
func (f *Font) Name() string { return f.f.Name() }

// Text alignments.
const (
	AlignLeft   = "left"
	AlignCenter = "center"
	AlignRight  = "right"
)

var aligns = map[string]canvas.TextAlign{AlignLeft: canvas.Left, AlignCenter: canvas.Center, AlignRight: canvas.Right, "": canvas.Left}

// TextStyle sets a text block: Size is the font size in pixels, Width the
// box width in pixels (lines break to fit it), Align within the box.
type TextStyle struct {
	Size  float64
	Color color.RGBA
	Width int
	Align string
	// MaxHeight clips the block (0: no limit).
	MaxHeight int
}

// ptPerPx: canvas sizes fonts in points and lays out in millimetres; the
// rasterizer below maps 1 mm to 1 pixel, so a size of S pixels is S mm.
const ptPerPx = 72 / 25.4

// Text sets s in a box of st.Width pixels and returns it drawn on a
// transparent sprite whose top-left is the box's. Lines break at spaces
// (and within words that do not fit); "\n" starts a new line.
func (f *Font) Text(s string, st TextStyle) (img *image.RGBA, err error) {
	if st.Width < 1 || st.Size <= 0 || st.Size > 2000 {
		return nil, errors.New("raster: a text box needs a width and a font size")
	}
	align, ok := aligns[st.Align]
	if !ok {
		return nil, fmt.Errorf("raster: alignment %q", st.Align)
	}
	defer func() {
		if r := recover(); r != nil {
			img, err = nil, fmt.Errorf("the font could not set this text: %v", r)
		}
	}()
	face := f.f.Face(st.Size*ptPerPx, st.Color)
	text := canvas.NewTextBox(face, s, float64(st.Width), 0, align, canvas.Top, &canvas.TextOptions{Linebreaker: canvas.GreedyLinebreaker{}})
	// Glyphs may reach below the last line's descent (and accents above the
	// first line): leave a margin of a fifth of the size under the block.
	h := int(math.Ceil(text.Height + st.Size*0.2))
	if st.MaxHeight > 0 {
		h = min(h, st.MaxHeight)
	}
	if h < 1 {
		return NewFrame(st.Width, 1), nil
	}
	img = NewFrame(st.Width, h)
	ras := rasterizer.FromImage(img, canvas.DPMM(1), canvas.LinearColorSpace{})
	ctx := canvas.NewContext(ras)
	ctx.SetCoordSystem(canvas.CartesianIV)
	ctx.DrawText(0, 0, text)
	ras.Close()
	return img, nil
}
