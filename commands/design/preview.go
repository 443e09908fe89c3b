package design

import (
	"bytes"
	"context"
	"errors"
	"image/png"

	"github.com/platform/backend/commands/design/render"
	domain "github.com/platform/backend/domain/design"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/principal"
)

// Preview is designs.preview.get: a page of the design drawn now, as the
// PNG export draws it (the web component shows it).
type Preview struct {
	WorkspaceSlug string   `json:"workspaceSlug"`
	DesignID      string   `json:"designId"`
	PageID        *string  `json:"pageId"`
	AtMs          *int     `json:"atMs"`
	Scale         *float64 `json:"scale"`
}

// MaxPreviewPixels bounds a preview (drawn while the caller waits).
const MaxPreviewPixels = 1920 * 1920

// Preview draws the design's page as a PNG, from the write side (what was
// saved a moment ago is what it shows).
func (h *Handlers) Preview(ctx context.Context, p principal.Principal, in Preview) ([]byte, error) {
	ws, err := h.Enter(ctx, p, in.WorkspaceSlug, PermWorkspaceRead)
	if err != nil {
		return nil, err
	}
	d, err := h.current(ctx, p.OrganizationID, ws.ID, in.DesignID)
	if err != nil {
		return nil, err
	}
	r := domain.ExportRequest{Format: domain.FormatPNG, PageID: in.PageID, Scale: 0.5}
	if in.AtMs != nil {
		r.AtMs = *in.AtMs
	}
	if in.Scale != nil {
		r.Scale = *in.Scale
	}
	job, err := domain.Plan(d, r, "")
	if err != nil {
		return nil, err
	}
	if w, hgt := domain.Size(d.Content, job.Scale, domain.FormatPNG); w*hgt > MaxPreviewPixels {
		return nil, errs.InvalidField("/scale", "a preview is at most 1920x1920 pixels: ask a smaller scale, or export")
	}
	kit, found, err := h.kits.Version(ctx, d.BrandKitVersionID)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, errs.Unavailable("the design's brand kit version cannot be read", nil)
	}
	img, err := render.Renderer{Media: h.cfg.Media, Files: files{h: h, org: p.OrganizationID, workspace: ws.ID}}.Still(ctx,
		render.Request{Content: d.Content, Kit: kit, PageID: job.PageID, AtMs: job.AtMs, Scale: job.Scale})
	var bad *render.Error
	if errors.As(err, &bad) {
		return nil, errs.Conflict("unrenderable", "the design cannot be drawn: "+bad.Error())
	}
	if err != nil {
		return nil, errs.Unavailable("the design could not be drawn", err)
	}
	var buf bytes.Buffer
	if err := (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&buf, img); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
