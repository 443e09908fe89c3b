package design

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/platform/backend/domain/brands"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/text"
)

// Bounds of a design (the HTTP schemas read the same numbers).
const (
	MaxName        = text.MaxTitle
	MaxDescription = 2000
	MinSide        = 16
	MaxSide        = 4096
	MaxPages       = 20
	MaxLayers      = 200 // every layer of a page, group children included
	MaxDepth       = 4   // groups inside groups
	MaxKeyframes   = 50  // of one layer
	MaxText        = 5000
	MaxPath        = 10000 // SVG path data of one path layer
	MaxFontSize    = 1000
	MaxCoordinate  = 100_000 // |x|, |y|, width and height of a layer, in pixels
	MaxStroke      = 500
	// MaxClipMs bounds an animated design: its pages' durations summed
	// (the "short clips": 15 s).
	MaxClipMs     = 15_000
	MinPageMs     = 100
	DefaultPageMs = 5_000
	DefaultFPS    = 30
	MaxFPS        = 60
	DefaultWeight = 400
	DefaultSize   = 48
)

// IDPattern is a page's or layer's id: the client chooses it (an editor
// keeps its selection across saves), unique in its design.
const IDPattern = `^[A-Za-z0-9_-]{1,64}$`

var idPattern = regexp.MustCompile(IDPattern)

// Layer types.
const (
	LayerRect    = "rect"
	LayerEllipse = "ellipse"
	LayerPath    = "path"
	LayerText    = "text"
	LayerImage   = "image"
	LayerGroup   = "group"
)

// LayerTypes are the layer types.
var LayerTypes = []string{LayerRect, LayerEllipse, LayerPath, LayerText, LayerImage, LayerGroup}

// Text alignments, image fits, easings.
var (
	Aligns  = []string{"left", "center", "right"}
	Fits    = []string{"contain", "cover"}
	Easings = []string{"linear", "ease-in", "ease-out", "ease-in-out"}
	Styles  = []string{brands.StyleNormal, brands.StyleItalic}
)

// Page is one page of a design: its background (a kit colour, or none:
// transparent where the format has alpha, white otherwise), how long it
// shows in an mp4, and its layers, later ones above.
type Page struct {
	PageID     string  `json:"pageId"`
	Name       *string `json:"name"`
	Background *string `json:"background"`
	DurationMs int     `json:"durationMs"`
	Layers     []Layer `json:"layers"`
}

// ImageSource names an image layer's picture: a logo of the pinned kit
// version, or an image uploaded to the design's workspace.
type ImageSource struct {
	LogoID  *string `json:"logoId"`
	AssetID *string `json:"assetId"`
}

// Keyframe sets some of a layer's animatable properties at a time of its
// page; between two keyframes setting a property it moves with the earlier
// one's easing; before the first and after the last it holds.
type Keyframe struct {
	AtMs     int      `json:"atMs"`
	X        *float64 `json:"x"`
	Y        *float64 `json:"y"`
	Opacity  *float64 `json:"opacity"`
	Rotation *float64 `json:"rotation"`
	Scale    *float64 `json:"scale"`
	Easing   string   `json:"easing"`
}

// Layer is one element of a page, in a box of Width x Height pixels whose
// top-left is (X, Y) (inside a group: relative to the group's box), turned
// by Rotation degrees clockwise about its centre. Which members count
// depends on its type (docs/design.md).
type Layer struct {
	LayerID  string   `json:"layerId"`
	Type     string   `json:"type"`
	Name     *string  `json:"name"`
	X        float64  `json:"x"`
	Y        float64  `json:"y"`
	Width    float64  `json:"width"`
	Height   float64  `json:"height"`
	Rotation float64  `json:"rotation"`
	Opacity  *float64 `json:"opacity"`
	// Fill is the shape's fill or the text's colour; Stroke the outline:
	// both a hex colour of the pinned kit version, or null for none.
	Fill         *string `json:"fill"`
	Stroke       *string `json:"stroke"`
	StrokeWidth  float64 `json:"strokeWidth"`
	CornerRadius float64 `json:"cornerRadius"`
	// Path is SVG path data in the layer's box (path layers).
	Path string `json:"path,omitempty"`
	// Text layers: the text, set in a font of the pinned kit version.
	Text       string  `json:"text,omitempty"`
	FontFamily string  `json:"fontFamily,omitempty"`
	FontWeight int     `json:"fontWeight,omitempty"`
	FontStyle  string  `json:"fontStyle,omitempty"`
	FontSize   float64 `json:"fontSize,omitempty"`
	Align      string  `json:"align,omitempty"`
	// Image layers.
	Image *ImageSource `json:"image,omitempty"`
	Fit   string       `json:"fit,omitempty"`
	// Group layers.
	Children  []Layer    `json:"children,omitempty"`
	Keyframes []Keyframe `json:"keyframes,omitempty"`
}

// Content is what an editor saves: the canvas size, the frame rate of its
// mp4 and its pages.
type Content struct {
	Width  int    `json:"width"`
	Height int    `json:"height"`
	FPS    int    `json:"fps"`
	Pages  []Page `json:"pages"`
}

// Duration is the clip's length: the pages' durations summed.
func (c Content) Duration() int {
	total := 0
	for _, p := range c.Pages {
		total += p.DurationMs
	}
	return total
}

// Page finds a page by id.
func (c Content) Page(id string) (Page, bool) {
	i := slices.IndexFunc(c.Pages, func(p Page) bool { return p.PageID == id })
	if i < 0 {
		return Page{}, false
	}
	return c.Pages[i], true
}

// Assets are the uploaded images the content names, by pointer.
func (c Content) Assets() map[string]string {
	out := map[string]string{}
	for i, p := range c.Pages {
		walk(p.Layers, fmt.Sprintf("/pages/%d/layers", i), func(at string, l *Layer) {
			if l.Image != nil && l.Image.AssetID != nil {
				out[at+"/image/assetId"] = *l.Image.AssetID
			}
		})
	}
	return out
}

// walk visits every layer (children after their group) with its pointer.
func walk(layers []Layer, at string, f func(at string, l *Layer)) {
	for i := range layers {
		p := fmt.Sprintf("%s/%d", at, i)
		f(p, &layers[i])
		walk(layers[i].Children, p+"/children", f)
	}
}

// fields collects the failing members of one input.
type fields []errs.Field

func (f *fields) add(pointer, format string, args ...any) {
	*f = append(*f, errs.Field{Pointer: pointer, Detail: fmt.Sprintf(format, args...)})
}

func (f fields) err() error {
	if len(f) == 0 {
		return nil
	}
	return errs.Invalid(f...)
}

func (f *fields) name(pointer, s string, max int) {
	if text.Trim(s) == "" {
		f.add(pointer, "must not be empty")
		return
	}
	*f = text.Line(*f, pointer, s, max)
}

func (f *fields) oneOf(pointer, s string, values []string) {
	if !slices.Contains(values, s) {
		f.add(pointer, "must be one of %s", strings.Join(values, ", "))
	}
}

func (f *fields) between(pointer string, v, lo, hi float64) {
	if v < lo || v > hi {
		f.add(pointer, "must be %g to %g", lo, hi)
	}
}

// Governed checks content against the kit version that governs it, and
// fills in its defaults: every problem is answered at its member's pointer
// (422). Governed means a colour (a background, a fill, a stroke) must be
// one of the version's colours and a text's font (family, weight, style)
// one of its fonts; an image is one of its logos or an uploaded image (the
// caller checks those exist in the workspace: Assets).
func Governed(c *Content, kit brands.Content) error {
	var f fields
	if c.Width < MinSide || c.Width > MaxSide {
		f.add("/width", "must be %d to %d pixels", MinSide, MaxSide)
	}
	if c.Height < MinSide || c.Height > MaxSide {
		f.add("/height", "must be %d to %d pixels", MinSide, MaxSide)
	}
	if c.FPS == 0 {
		c.FPS = DefaultFPS
	}
	if c.FPS < 1 || c.FPS > MaxFPS {
		f.add("/fps", "must be 1 to %d", MaxFPS)
	}
	if len(c.Pages) == 0 || len(c.Pages) > MaxPages {
		f.add("/pages", "a design has 1 to %d pages", MaxPages)
	}
	g := governor{kit: kit, f: &f, ids: map[string]bool{}}
	pages := map[string]bool{}
	for i := range c.Pages {
		p := &c.Pages[i]
		at := fmt.Sprintf("/pages/%d", i)
		if !idPattern.MatchString(p.PageID) {
			f.add(at+"/pageId", "must be 1 to 64 letters, digits, '_' or '-'")
		} else if pages[p.PageID] {
			f.add(at+"/pageId", "another page of the design has this id")
		}
		pages[p.PageID] = true
		if p.Name != nil {
			f.name(at+"/name", *p.Name, MaxName)
		}
		if p.DurationMs == 0 {
			p.DurationMs = DefaultPageMs
		}
		if p.DurationMs < MinPageMs || p.DurationMs > MaxClipMs {
			f.add(at+"/durationMs", "must be %d to %d", MinPageMs, MaxClipMs)
		}
		g.colour(at+"/background", p.Background)
		count := 0
		walk(p.Layers, at+"/layers", func(string, *Layer) { count++ })
		if count > MaxLayers {
			f.add(at+"/layers", "a page has at most %d layers, group children included", MaxLayers)
			continue
		}
		g.layers(at+"/layers", p.Layers, p.DurationMs, 1)
	}
	if c.Duration() > MaxClipMs && len(c.Pages) <= MaxPages {
		f.add("/pages", "the pages last more than 15 seconds together")
	}
	return f.err()
}

// governor checks layers against a kit version.
type governor struct {
	kit brands.Content
	f   *fields
	ids map[string]bool // layer ids of the design
}

// colour checks an optional colour: #RRGGBB of the kit (kept as the kit
// writes it, upper case).
func (g governor) colour(at string, c *string) {
	if c == nil {
		return
	}
	col, ok := g.kit.Colour(*c)
	if !ok {
		g.f.add(at, "must be a colour of the design's brand kit version")
		return
	}
	*c = col.Hex
}

func (g governor) layers(at string, layers []Layer, pageMs, depth int) {
	for i := range layers {
		g.layer(fmt.Sprintf("%s/%d", at, i), &layers[i], pageMs, depth)
	}
}

func (g governor) layer(at string, l *Layer, pageMs, depth int) {
	f := g.f
	if !idPattern.MatchString(l.LayerID) {
		f.add(at+"/layerId", "must be 1 to 64 letters, digits, '_' or '-'")
	} else if g.ids[l.LayerID] {
		f.add(at+"/layerId", "another layer of the design has this id")
	}
	g.ids[l.LayerID] = true
	f.oneOf(at+"/type", l.Type, LayerTypes)
	if l.Name != nil {
		f.name(at+"/name", *l.Name, MaxName)
	}
	f.between(at+"/x", l.X, -MaxCoordinate, MaxCoordinate)
	f.between(at+"/y", l.Y, -MaxCoordinate, MaxCoordinate)
	f.between(at+"/width", l.Width, 0, MaxCoordinate)
	f.between(at+"/height", l.Height, 0, MaxCoordinate)
	f.between(at+"/rotation", l.Rotation, -3600, 3600)
	if l.Opacity != nil {
		f.between(at+"/opacity", *l.Opacity, 0, 1)
	}
	f.between(at+"/strokeWidth", l.StrokeWidth, 0, MaxStroke)
	f.between(at+"/cornerRadius", l.CornerRadius, 0, MaxCoordinate)
	g.colour(at+"/fill", l.Fill)
	g.colour(at+"/stroke", l.Stroke)
	if l.Stroke != nil && l.StrokeWidth == 0 {
		l.StrokeWidth = 1
	}
	switch l.Type {
	case LayerRect, LayerEllipse:
	case LayerPath:
		if l.Path == "" || len(l.Path) > MaxPath || !pathData.MatchString(l.Path) {
			f.add(at+"/path", "must be SVG path data (M, L, H, V, C, S, Q, T, A, Z and numbers), at most %d characters", MaxPath)
		}
	case LayerText:
		g.text(at, l)
	case LayerImage:
		g.image(at, l)
	case LayerGroup:
		if depth >= MaxDepth {
			f.add(at+"/children", "groups nest at most %d deep", MaxDepth)
		} else if len(l.Children) == 0 {
			f.add(at+"/children", "a group has at least one layer")
		} else {
			g.layers(at+"/children", l.Children, pageMs, depth+1)
		}
	}
	if l.Type != LayerPath && l.Path != "" {
		f.add(at+"/path", "only a path layer has path data")
	}
	if l.Type != LayerText && l.Text != "" {
		f.add(at+"/text", "only a text layer has text")
	}
	if l.Type != LayerImage && l.Image != nil {
		f.add(at+"/image", "only an image layer has an image")
	}
	if l.Type != LayerGroup && len(l.Children) > 0 {
		f.add(at+"/children", "only a group has children")
	}
	g.keyframes(at+"/keyframes", l.Keyframes, pageMs)
}

// PathPattern is the alphabet of SVG path data on one line (the schemas
// say the same); the renderer parses it whole (commands check that too, at
// the same pointer).
const PathPattern = `^ *[Mm][MmLlHhVvCcSsQqTtAaZz0-9eE.,+ -]*$`

var pathData = regexp.MustCompile(PathPattern)

func (g governor) text(at string, l *Layer) {
	f := g.f
	if text.Trim(l.Text) == "" {
		f.add(at+"/text", "must not be empty")
	} else {
		*f = text.MultiLine(*f, at+"/text", l.Text, MaxText)
	}
	if l.FontWeight == 0 {
		l.FontWeight = DefaultWeight
	}
	if l.FontStyle == "" {
		l.FontStyle = brands.StyleNormal
	}
	if l.FontSize == 0 {
		l.FontSize = DefaultSize
	}
	if l.Align == "" {
		l.Align = "left"
	}
	f.between(at+"/fontSize", l.FontSize, 1, MaxFontSize)
	f.oneOf(at+"/align", l.Align, Aligns)
	f.oneOf(at+"/fontStyle", l.FontStyle, Styles)
	if l.Fill == nil {
		f.add(at+"/fill", "a text has a colour of the design's brand kit version")
	}
	switch font, ok := g.kit.Font(l.FontFamily, l.FontWeight, l.FontStyle); {
	case ok:
		l.FontFamily = font.Family
	case !g.kit.HasFamily(l.FontFamily):
		f.add(at+"/fontFamily", "must be a font family of the design's brand kit version")
	default:
		f.add(at+"/fontWeight", "the brand kit version has no font of this family in this weight and style")
	}
}

func (g governor) image(at string, l *Layer) {
	f := g.f
	if l.Fit == "" {
		l.Fit = "contain"
	}
	f.oneOf(at+"/fit", l.Fit, Fits)
	switch {
	case l.Image == nil || (l.Image.LogoID == nil) == (l.Image.AssetID == nil):
		f.add(at+"/image", "names either a logoId of the brand kit version or an assetId of the workspace")
	case l.Image.LogoID != nil:
		if _, ok := g.kit.Logo(*l.Image.LogoID); !ok {
			f.add(at+"/image/logoId", "must be a logo of the design's brand kit version")
		}
	}
}

func (g governor) keyframes(at string, ks []Keyframe, pageMs int) {
	f := g.f
	if len(ks) > MaxKeyframes {
		f.add(at, "a layer has at most %d keyframes", MaxKeyframes)
		return
	}
	last := -1
	for i := range ks {
		k := &ks[i]
		kat := fmt.Sprintf("%s/%d", at, i)
		if k.AtMs < 0 || k.AtMs > pageMs {
			f.add(kat+"/atMs", "must be within the page's duration")
		} else if k.AtMs <= last {
			f.add(kat+"/atMs", "keyframes are in time order, one per time")
		}
		last = k.AtMs
		if k.Easing == "" {
			k.Easing = "linear"
		}
		f.oneOf(kat+"/easing", k.Easing, Easings)
		if k.X != nil {
			f.between(kat+"/x", *k.X, -MaxCoordinate, MaxCoordinate)
		}
		if k.Y != nil {
			f.between(kat+"/y", *k.Y, -MaxCoordinate, MaxCoordinate)
		}
		if k.Opacity != nil {
			f.between(kat+"/opacity", *k.Opacity, 0, 1)
		}
		if k.Rotation != nil {
			f.between(kat+"/rotation", *k.Rotation, -3600, 3600)
		}
		if k.Scale != nil {
			f.between(kat+"/scale", *k.Scale, 0.01, 100)
		}
		if k.X == nil && k.Y == nil && k.Opacity == nil && k.Rotation == nil && k.Scale == nil {
			f.add(kat, "a keyframe sets x, y, opacity, rotation or scale")
		}
	}
}
