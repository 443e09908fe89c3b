package render

import (
	"context"
	"fmt"
	"image"
	"image/color"
	"strings"

	"github.com/tdewolff/canvas"

	design "github.com/platform/backend/domain/design"
	"github.com/platform/backend/internal/media/raster"
)

// scene is a design ready to draw: its fonts loaded, its images decoded
// and fitted, each layer's paths and text built once.
type scene struct {
	req   Request
	w, h  int     // the export's frame
	scale float64 // export pixels per design pixel
	fonts map[string]*raster.Font
	pages []*pageScene
}

type pageScene struct {
	page       design.Page
	background *color.RGBA
	nodes      []*node
}

// node is one layer, built.
type node struct {
	l      design.Layer
	at     string // its pointer, for errors
	path   *canvas.Path
	fill   *color.RGBA
	stroke *color.RGBA
	// text: the layer's text, shaped, by the alpha of its colour.
	font  *raster.Font
	texts map[uint8]*canvas.Text
	// image: fitted to the box at the export's scale, its offset in the
	// box (design pixels), by alpha.
	img      *image.RGBA
	imgAt    canvas.Point
	imgRes   float64 // the fitted picture's pixels per design pixel
	imgAlpha map[uint8]*image.RGBA
	children []*node
}

// ptPerPx: canvas sizes fonts in points and lays out in millimetres; one
// design pixel is one canvas unit (millimetre).
const ptPerPx = 72 / 25.4

// MaxImageBytes bounds a logo or an uploaded image read for a render.
const MaxImageBytes = 50 << 20

func (r Renderer) prepare(ctx context.Context, req Request) (*scene, error) {
	if req.Scale == 0 {
		req.Scale = 1
	}
	w, h := design.Size(req.Content, req.Scale, req.Format)
	if w < 1 || h < 1 || len(req.Content.Pages) == 0 {
		return nil, unrenderable("/pages", "nothing to draw")
	}
	s := &scene{req: req, w: w, h: h, scale: float64(w) / float64(req.Content.Width), fonts: map[string]*raster.Font{}}
	images := map[string]image.Image{}
	for i, p := range req.Content.Pages {
		if req.Format != design.FormatMP4 && req.PageID != "" && p.PageID != req.PageID {
			s.pages = append(s.pages, nil) // a still draws one page
			continue
		}
		ps := &pageScene{page: p}
		at := fmt.Sprintf("/pages/%d", i)
		if p.Background != nil {
			c, err := raster.ParseHex(*p.Background)
			if err != nil {
				return nil, unrenderable(at+"/background", "%v", err)
			}
			ps.background = &c
		}
		nodes, err := r.nodes(ctx, s, images, p.Layers, at+"/layers")
		if err != nil {
			return nil, err
		}
		ps.nodes = nodes
		s.pages = append(s.pages, ps)
	}
	return s, nil
}

func (s *scene) page(id string) (*pageScene, error) {
	for _, p := range s.pages {
		if p != nil && (id == "" || p.page.PageID == id) {
			return p, nil
		}
	}
	return nil, unrenderable("/pageId", "no such page")
}

func (r Renderer) nodes(ctx context.Context, s *scene, images map[string]image.Image, layers []design.Layer, at string) ([]*node, error) {
	out := make([]*node, 0, len(layers))
	for i, l := range layers {
		n := &node{l: l, at: fmt.Sprintf("%s/%d", at, i)}
		var err error
		if n.fill, err = colourOf(n.at+"/fill", l.Fill); err != nil {
			return nil, err
		}
		if n.stroke, err = colourOf(n.at+"/stroke", l.Stroke); err != nil {
			return nil, err
		}
		switch l.Type {
		case design.LayerRect:
			n.path = canvas.Rectangle(l.Width, l.Height)
			if l.CornerRadius > 0 {
				n.path = canvas.RoundedRectangle(l.Width, l.Height, min(l.CornerRadius, l.Width/2, l.Height/2))
			}
		case design.LayerEllipse:
			n.path = canvas.Ellipse(l.Width/2, l.Height/2).Translate(l.Width/2, l.Height/2)
		case design.LayerPath:
			p, err := parsePath(l.Path)
			if err != nil {
				return nil, unrenderable(n.at+"/path", "the path data does not parse")
			}
			n.path = p
		case design.LayerText:
			if n.font, err = r.font(ctx, s, n.at, l); err != nil {
				return nil, err
			}
			n.texts = map[uint8]*canvas.Text{}
		case design.LayerImage:
			if err := r.image(ctx, s, images, n); err != nil {
				return nil, err
			}
		case design.LayerGroup:
			if n.children, err = r.nodes(ctx, s, images, l.Children, n.at+"/children"); err != nil {
				return nil, err
			}
		}
		out = append(out, n)
	}
	return out, nil
}

// parsePath reads SVG path data; canvas's parser may panic on hostile
// input, which is an error here.
func parsePath(d string) (p *canvas.Path, err error) {
	defer func() {
		if r := recover(); r != nil {
			p, err = nil, fmt.Errorf("path data: %v", r)
		}
	}()
	return canvas.ParseSVGPath(d)
}

// CheckPath reports whether SVG path data parses (the commands refuse what
// would not draw).
func CheckPath(d string) bool {
	_, err := parsePath(d)
	return err == nil
}

func colourOf(at string, hex *string) (*color.RGBA, error) {
	if hex == nil {
		return nil, nil
	}
	c, err := raster.ParseHex(strings.ToUpper(*hex))
	if err != nil {
		return nil, unrenderable(at, "%v", err)
	}
	return &c, nil
}

// font is the kit font a text layer names, loaded once per render.
func (r Renderer) font(ctx context.Context, s *scene, at string, l design.Layer) (*raster.Font, error) {
	f, ok := s.req.Kit.Font(l.FontFamily, l.FontWeight, l.FontStyle)
	if !ok {
		return nil, unrenderable(at+"/fontFamily", "the brand kit version has no such font")
	}
	if loaded, ok := s.fonts[f.FontID]; ok {
		return loaded, nil
	}
	if r.Files == nil {
		return nil, unrenderable(at+"/fontFamily", "no file store to read the font from")
	}
	data, err := r.Files.Font(ctx, s.req.Kit, f)
	if err != nil {
		return nil, fmt.Errorf("%s: font %s: %w", at, f.FontID, err)
	}
	font, err := raster.LoadFont(data)
	if err != nil {
		return nil, unrenderable(at+"/fontFamily", "the kit's font file does not parse")
	}
	s.fonts[f.FontID] = font
	return font, nil
}

// image loads, decodes and fits an image layer's picture to its box at
// the export's scale (a picture shown twice is decoded once).
func (r Renderer) image(ctx context.Context, s *scene, images map[string]image.Image, n *node) error {
	l, at := n.l, n.at+"/image"
	if l.Image == nil || r.Files == nil {
		return unrenderable(at, "no image to draw")
	}
	var key string
	var load func() ([]byte, error)
	switch {
	case l.Image.LogoID != nil:
		logo, ok := s.req.Kit.Logo(*l.Image.LogoID)
		if !ok {
			return unrenderable(at+"/logoId", "the brand kit version has no such logo")
		}
		key, at = "logo:"+logo.LogoID, at+"/logoId"
		load = func() ([]byte, error) { return r.Files.Logo(ctx, s.req.Kit, logo) }
	case l.Image.AssetID != nil:
		id := *l.Image.AssetID
		key, at = "asset:"+id, at+"/assetId"
		load = func() ([]byte, error) { return r.Files.Asset(ctx, id) }
	default:
		return unrenderable(at, "no image to draw")
	}
	src, ok := images[key]
	if !ok {
		data, err := load()
		if err != nil {
			return fmt.Errorf("%s: %w", at, err)
		}
		if src, err = raster.DecodeImage(data); err != nil {
			return unrenderable(at, "the image does not decode")
		}
		images[key] = src
	}
	wpx, hpx := int(l.Width*s.scale+0.5), int(l.Height*s.scale+0.5)
	if wpx < 1 || hpx < 1 {
		return nil // an empty box draws nothing
	}
	fit, off := raster.Fit(src, wpx, hpx, l.Fit)
	n.img, n.imgAt, n.imgRes = fit, canvas.Point{X: float64(off.X) / s.scale, Y: float64(off.Y) / s.scale}, s.scale
	n.imgAlpha = map[uint8]*image.RGBA{}
	return nil
}

// text is the layer's text shaped in its colour at an alpha (cached: a
// fade shapes each step once).
func (n *node) text(alpha uint8) *canvas.Text {
	if t, ok := n.texts[alpha]; ok {
		return t
	}
	c := color.RGBA{A: 255}
	if n.fill != nil {
		c = *n.fill
	}
	face := n.font.Canvas().Face(n.l.FontSize*ptPerPx, color.NRGBA{R: c.R, G: c.G, B: c.B, A: alpha})
	t := canvas.NewTextBox(face, n.l.Text, n.l.Width, 0, aligns[n.l.Align], canvas.Top, &canvas.TextOptions{Linebreaker: canvas.GreedyLinebreaker{}})
	n.texts[alpha] = t
	return t
}

var aligns = map[string]canvas.TextAlign{"left": canvas.Left, "center": canvas.Center, "right": canvas.Right, "": canvas.Left}

// imageAt is the fitted picture at an alpha (premultiplied, cached).
func (n *node) imageAt(alpha uint8) *image.RGBA {
	if alpha == 255 {
		return n.img
	}
	if img, ok := n.imgAlpha[alpha]; ok {
		return img
	}
	out := raster.NewFrame(n.img.Bounds().Dx(), n.img.Bounds().Dy())
	for i, v := range n.img.Pix {
		out.Pix[i] = uint8(uint32(v) * uint32(alpha) / 255)
	}
	n.imgAlpha[alpha] = out
	return out
}

// canvas records a page at ms as canvas drawing operations, in export
// pixels (y down).
func (s *scene) canvas(page *pageScene, ms int) *canvas.Canvas {
	c := canvas.New(float64(s.w), float64(s.h))
	ctx := canvas.NewContext(c)
	s.draw(ctx, page, page.nodes, ms, true)
	return c
}

// draw draws nodes (with the page's background first when asked) into a
// context at the export's scale.
func (s *scene) draw(ctx *canvas.Context, page *pageScene, nodes []*node, ms int, background bool) {
	ctx.SetCoordSystem(canvas.CartesianIV)
	ctx.Push()
	ctx.Scale(s.scale, s.scale)
	if background && page.background != nil {
		ctx.SetFillColor(*page.background)
		ctx.SetStrokeColor(canvas.Transparent)
		ctx.DrawPath(0, 0, canvas.Rectangle(float64(s.req.Content.Width), float64(s.req.Content.Height)))
	}
	for _, n := range nodes {
		n.draw(ctx, ms, 1)
	}
	ctx.Pop()
}

// draw draws the layer at ms with the opacity of its groups.
func (n *node) draw(ctx *canvas.Context, ms int, parent float64) {
	st := n.l.At(ms)
	opacity := parent * st.Opacity
	alpha := uint8(opacity*255 + 0.5)
	if alpha == 0 || st.Scale == 0 {
		return
	}
	l := n.l
	ctx.Push()
	defer ctx.Pop()
	ctx.Translate(st.X+l.Width/2, st.Y+l.Height/2)
	if st.Rotation != 0 {
		ctx.Rotate(st.Rotation)
	}
	if st.Scale != 1 {
		ctx.Scale(st.Scale, st.Scale)
	}
	ctx.Translate(-l.Width/2, -l.Height/2)
	switch {
	case n.path != nil:
		ctx.SetFillColor(faded(n.fill, alpha))
		ctx.SetStrokeColor(faded(n.stroke, alpha))
		ctx.SetStrokeWidth(l.StrokeWidth)
		ctx.DrawPath(0, 0, n.path)
	case n.font != nil:
		ctx.DrawText(0, 0, n.text(alpha))
	case n.img != nil:
		ctx.DrawImage(n.imgAt.X, n.imgAt.Y, n.imageAt(alpha), canvas.DPMM(n.imgRes))
	default:
		for _, c := range n.children {
			c.draw(ctx, ms, opacity)
		}
	}
}

// faded is a colour at an alpha (transparent for none).
func faded(c *color.RGBA, alpha uint8) color.Color {
	if c == nil {
		return canvas.Transparent
	}
	return color.NRGBA{R: c.R, G: c.G, B: c.B, A: alpha}
}
