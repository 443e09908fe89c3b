package design

import (
	"context"
	"fmt"
	"strings"

	"github.com/platform/backend/commands"
	domain "github.com/platform/backend/domain/design"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/principal"
)

// UpdateLayer is designs.layers.update: an editor's one change to one
// layer (a text, a colour from the kit's palette, a move), without sending
// the whole design. Members not sent keep theirs.
type UpdateLayer struct {
	WorkspaceSlug string   `json:"workspaceSlug"`
	DesignID      string   `json:"designId"`
	PageID        string   `json:"pageId"`
	LayerID       string   `json:"layerId"`
	Name          *string  `json:"name"`
	X             *float64 `json:"x"`
	Y             *float64 `json:"y"`
	Width         *float64 `json:"width"`
	Height        *float64 `json:"height"`
	Rotation      *float64 `json:"rotation"`
	Opacity       *float64 `json:"opacity"`
	Fill          *string  `json:"fill"`
	Stroke        *string  `json:"stroke"`
	Text          *string  `json:"text"`
	FontFamily    *string  `json:"fontFamily"`
	FontWeight    *int     `json:"fontWeight"`
	FontStyle     *string  `json:"fontStyle"`
	FontSize      *float64 `json:"fontSize"`
	Align         *string  `json:"align"`
}

// UpdateLayer changes one layer of a page of the design, governed like any
// change (a colour or font outside the pinned version: 422 at the member).
func (h *Handlers) UpdateLayer(ctx context.Context, m commands.Meta, p principal.Principal, in UpdateLayer) (commands.Result[domain.Design], error) {
	var none commands.Result[domain.Design]
	ws, err := h.Enter(ctx, p, in.WorkspaceSlug, PermWorkspaceWrite)
	if err != nil {
		return none, err
	}
	d, err := h.current(ctx, p.OrganizationID, ws.ID, in.DesignID)
	if err != nil {
		return none, err
	}
	pages := cloneContent(d.Content).Pages
	var at string
	for i := range pages {
		if pages[i].PageID != in.PageID {
			continue
		}
		walkRefs(pages[i].Layers, fmt.Sprintf("/pages/%d/layers", i), func(ptr string, l *domain.Layer) {
			if l.LayerID == in.LayerID && at == "" {
				at = ptr
				in.apply(l)
			}
		})
	}
	if at == "" {
		return none, errs.NotFound("layer")
	}
	res, err := h.UpdateDesign(ctx, m, p, UpdateDesign{WorkspaceSlug: in.WorkspaceSlug, DesignID: in.DesignID, Pages: &pages})
	return res, relative(err, at)
}

func (in UpdateLayer) apply(l *domain.Layer) {
	set := func(dst *float64, v *float64) {
		if v != nil {
			*dst = *v
		}
	}
	set(&l.X, in.X)
	set(&l.Y, in.Y)
	set(&l.Width, in.Width)
	set(&l.Height, in.Height)
	set(&l.Rotation, in.Rotation)
	set(&l.FontSize, in.FontSize)
	if in.Name != nil {
		l.Name = in.Name
	}
	if in.Opacity != nil {
		l.Opacity = in.Opacity
	}
	if in.Fill != nil {
		l.Fill = in.Fill
	}
	if in.Stroke != nil {
		l.Stroke = in.Stroke
	}
	if in.Text != nil {
		l.Text = *in.Text
	}
	if in.FontFamily != nil {
		l.FontFamily = *in.FontFamily
	}
	if in.FontWeight != nil {
		l.FontWeight = *in.FontWeight
	}
	if in.FontStyle != nil {
		l.FontStyle = *in.FontStyle
	}
	if in.Align != nil {
		l.Align = *in.Align
	}
}

// relative answers a 422 about the layer at the members of the request
// (/fill, not /pages/0/layers/2/fill); problems elsewhere keep their
// pointers.
func relative(err error, at string) error {
	e, ok := errs.As(err)
	if !ok || e.Kind != errs.KindInvalidInput {
		return err
	}
	fields := make([]errs.Field, len(e.Fields))
	for i, f := range e.Fields {
		if rest, ok := strings.CutPrefix(f.Pointer, at+"/"); ok && !strings.Contains(rest, "/") {
			f.Pointer = "/" + rest
		}
		fields[i] = f
	}
	return errs.Invalid(fields...)
}

func walkRefs(layers []domain.Layer, at string, f func(at string, l *domain.Layer)) {
	for i := range layers {
		p := fmt.Sprintf("%s/%d", at, i)
		f(p, &layers[i])
		walkRefs(layers[i].Children, p+"/children", f)
	}
}

func cloneContent(c domain.Content) domain.Content {
	out := c
	out.Pages = make([]domain.Page, len(c.Pages))
	for i, p := range c.Pages {
		out.Pages[i] = p
		out.Pages[i].Layers = cloneLayers(p.Layers)
	}
	return out
}

func cloneLayers(ls []domain.Layer) []domain.Layer {
	if ls == nil {
		return nil
	}
	out := make([]domain.Layer, len(ls))
	for i, l := range ls {
		out[i] = l
		out[i].Children = cloneLayers(l.Children)
		out[i].Keyframes = append([]domain.Keyframe(nil), l.Keyframes...)
	}
	return out
}
