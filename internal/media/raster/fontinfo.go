package raster

import (
	"bytes"

	"github.com/tdewolff/canvas"
	"github.com/tdewolff/font"
)

// FontInfo is what a font file's own tables say of it: its family (the
// typographic family when the file names one, else the legacy family), full
// name, weight class (100..900) and whether it is italic.
type FontInfo struct {
	Family    string
	Subfamily string
	FullName  string
	Weight    int
	Italic    bool
}

// Info reads the font's name and OS/2 tables.
func (f *Font) Info() FontInfo {
	s := f.f.SFNT
	info := FontInfo{Family: nameOf(s, 16, 1), Subfamily: nameOf(s, 17, 2), FullName: nameOf(s, 4, 6), Weight: 400}
	if s.OS2 != nil {
		if w := int(s.OS2.UsWeightClass); w >= 1 && w <= 1000 {
			// Weight classes are multiples of 100 in practice; round the
			// odd ones (a 350 "book") to the nearest CSS weight.
			info.Weight = min(max((w+50)/100*100, 100), 900)
		}
		info.Italic = s.OS2.FsSelection&1 != 0
	}
	if s.Head != nil && len(s.Head.MacStyle) > 1 && s.Head.MacStyle[1] {
		info.Italic = true
	}
	return info
}

// nameOf is the first non-empty record of the first name id that has one.
func nameOf(s *font.SFNT, ids ...font.NameID) string {
	if s.Name == nil {
		return ""
	}
	for _, id := range ids {
		for _, r := range s.Name.Get(id) {
			if v := r.String(); v != "" {
				return v
			}
		}
	}
	return ""
}

// Font file formats FontFormat tells apart.
const (
	FormatTTF   = "ttf"
	FormatOTF   = "otf"
	FormatWOFF  = "woff"
	FormatWOFF2 = "woff2"
)

// FontFormat names a font file's format from its first bytes ("" when it is
// none of TTF, OTF, WOFF, WOFF2; a collection is none).
func FontFormat(data []byte) string {
	switch {
	case len(data) < 4:
		return ""
	case bytes.Equal(data[:4], []byte{0, 1, 0, 0}) || string(data[:4]) == "true":
		return FormatTTF
	case string(data[:4]) == "OTTO":
		return FormatOTF
	case string(data[:4]) == "wOFF":
		return FormatWOFF
	case string(data[:4]) == "wOF2":
		return FormatWOFF2
	}
	return ""
}

// Canvas is the font for drawing with tdewolff/canvas (vector output: SVG
// with the font embedded, or a rasterizer).
func (f *Font) Canvas() *canvas.Font { return f.f }
