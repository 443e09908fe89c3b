package raster

import (
	"image"
	"image/color"
	"image/png"
	"os"
	"testing"
)

var (
	white = color.RGBA{255, 255, 255, 255}
	navy  = color.RGBA{10, 20, 80, 255}
)

// dump writes img when RASTER_DUMP names a directory (to look at).
func dump(t *testing.T, name string, img image.Image) {
	if dir := os.Getenv("RASTER_DUMP"); dir != "" {
		f, err := os.Create(dir + "/" + name + ".png")
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		_ = png.Encode(f, img)
	}
}

// inked counts the pixels of img that are not transparent.
func inked(img *image.RGBA, r image.Rectangle) int {
	n := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if img.RGBAAt(x, y).A != 0 {
				n++
			}
		}
	}
	return n
}

// TestTextSetsGlyphsInItsBox: a text sprite has ink, as wide as its box at
// most, wrapped onto more lines when the box is narrower; centred text has
// ink on both sides of the middle and none at the far left.
func TestTextSetsGlyphsInItsBox(t *testing.T) {
	st := TextStyle{Size: 48, Color: white, Width: 900, Align: AlignCenter}
	one, err := defaultFont(t, 400).Text("Hello studio", st)
	if err != nil {
		t.Fatal(err)
	}
	dump(t, "text-one", one)
	if one.Bounds().Dx() != 900 || one.Bounds().Dy() < 48 || one.Bounds().Dy() > 48*2 {
		t.Fatalf("one line: sprite %v", one.Bounds())
	}
	if inked(one, one.Bounds()) < 500 {
		t.Fatalf("one line: %d inked pixels", inked(one, one.Bounds()))
	}
	if inked(one, image.Rect(0, 0, 200, one.Bounds().Dy())) != 0 {
		t.Errorf("centred text has ink at the far left")
	}
	st.Width = 200
	wrapped, err := defaultFont(t, 700).Text("Hello studio, a longer line", st)
	if err != nil {
		t.Fatal(err)
	}
	dump(t, "text-wrapped", wrapped)
	if wrapped.Bounds().Dy() < 3*48 {
		t.Errorf("wrapped text %v: want three lines or more", wrapped.Bounds())
	}
}

// TestLoadFontRefusesGarbage: a file that is no font is an error, not a panic.
func TestLoadFontRefusesGarbage(t *testing.T) {
	for _, b := range [][]byte{nil, []byte("not a font"), append([]byte("wOF2"), make([]byte, 64)...), dejaVuSans[:1000]} {
		if _, err := LoadFont(b); err == nil {
			t.Errorf("%q... loaded", b[:min(len(b), 8)])
		}
	}
}

// TestDefaultFonts: the bundled files load (parsed on first use), regular
// below weight 600 and bold from it.
func TestDefaultFonts(t *testing.T) {
	for _, tt := range []struct {
		weight int
		want   string
	}{{400, "DejaVuSans"}, {599, "DejaVuSans"}, {600, "DejaVuSans-Bold"}, {700, "DejaVuSans-Bold"}} {
		if got := defaultFont(t, tt.weight).Name(); got != tt.want {
			t.Errorf("DefaultFont(%d) = %q, want %q", tt.weight, got, tt.want)
		}
	}
}

func defaultFont(t *testing.T, weight int) *Font {
	t.Helper()
	f, err := DefaultFont(weight)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestFit: cover fills the box and crops, contain fits inside and centres.
func TestFit(t *testing.T) {
	src := NewFrame(400, 200) // 2:1
	Fill(src, navy)
	cover, at := Fit(src, 100, 100, Cover)
	if cover.Bounds().Size() != image.Pt(100, 100) || at != (image.Point{}) || !cover.Opaque() {
		t.Errorf("cover: %v at %v", cover.Bounds(), at)
	}
	contain, at := Fit(src, 100, 100, Contain)
	if contain.Bounds().Size() != image.Pt(100, 50) || at != image.Pt(0, 25) {
		t.Errorf("contain: %v at %v", contain.Bounds(), at)
	}
	if c := contain.RGBAAt(50, 25); c != navy {
		t.Errorf("contain: %v", c)
	}
}

// TestMixAndOver: a cross-fade's middle is the average; opacity scales.
func TestMixAndOver(t *testing.T) {
	a, b, dst := NewFrame(2, 2), NewFrame(2, 2), NewFrame(2, 2)
	Fill(a, color.RGBA{0, 0, 0, 255})
	Fill(b, color.RGBA{200, 100, 50, 255})
	if err := Mix(dst.Pix, a.Pix, b.Pix, 0.5); err != nil {
		t.Fatal(err)
	}
	if c := dst.RGBAAt(1, 1); c != (color.RGBA{100, 50, 25, 255}) {
		t.Errorf("mix: %v", c)
	}
	Over(a, b, image.Pt(1, 1), 0.5)
	if c := a.RGBAAt(1, 1); c.R < 98 || c.R > 102 || a.RGBAAt(0, 0).R != 0 {
		t.Errorf("over: %v / %v", c, a.RGBAAt(0, 0))
	}
	if _, err := ParseHex("#12345G"); err == nil {
		t.Error("bad hex accepted")
	}
	if c, _ := ParseHex("#0A141E"); c != (color.RGBA{10, 20, 30, 255}) {
		t.Errorf("hex: %v", c)
	}
}

// TestMixMatchesPerByte: the word-at-a-time mix gives what the per-byte
// formula gives, for every weight, on odd lengths too.
func TestMixMatchesPerByte(t *testing.T) {
	a, b, dst := make([]byte, 1003), make([]byte, 1003), make([]byte, 1003)
	for i := range a {
		a[i], b[i] = byte(i*7+3), byte(255-i*13)
	}
	for step := 0; step <= 256; step++ {
		tt := float64(step) / 256
		if err := Mix(dst, a, b, tt); err != nil {
			t.Fatal(err)
		}
		for i := range dst {
			if want := byte((int(a[i])*(256-step) + int(b[i])*step) >> 8); dst[i] != want {
				t.Fatalf("t=%g byte %d: %d, want %d", tt, i, dst[i], want)
			}
		}
	}
}

// TestFitSameSizeIsACopy: an image of the box's size comes back as it is.
func TestFitSameSizeIsACopy(t *testing.T) {
	src := NewFrame(30, 20)
	for i := range src.Pix {
		src.Pix[i] = byte(i)
	}
	got, at := Fit(src, 30, 20, Cover)
	if at != (image.Point{}) || string(got.Pix) != string(src.Pix) {
		t.Fatal("a same-size fit changed the pixels")
	}
}
