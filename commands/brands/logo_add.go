package brands

import (
	"context"
	"io"

	"github.com/platform/backend/commands"
	domain "github.com/platform/backend/domain/brands"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/domain/principal"
	"github.com/platform/backend/internal/media/raster"
)

// AddLogo is brand_kits.logos.upload: the body is the image, its
// Content-Type image/png or image/jpeg.
type AddLogo struct {
	KitID       string  `json:"kitId"`
	Name        *string `json:"name"`
	ContentType string  `json:"-"`
}

// AddLogo checks the image by decoding it (its type as declared, at most
// raster.MaxImagePixels), stores it and adds it to the kit's draft.
func (h *Handlers) AddLogo(ctx context.Context, m commands.Meta, p principal.Principal, in AddLogo, body io.Reader) (commands.Result[domain.Kit], error) {
	var none commands.Result[domain.Kit]
	km, err := h.load(ctx, p, in.KitID)
	if err != nil {
		return none, err
	}
	if err := authorize(p, km.State(), PermKitsWrite); err != nil {
		return none, err
	}
	data, err := readFile(body, h.cfg.LogoMaxBytes)
	if err != nil {
		return none, err
	}
	logo, err := ParseLogo(data, in.ContentType)
	if err != nil {
		return none, err
	}
	logo.LogoID, logo.Name = newID(), "Logo"
	if in.Name != nil {
		logo.Name = *in.Name
	}
	key := ObjectKey(p.OrganizationID, KindLogo, logo.LogoID)
	if err := h.put(ctx, key, logo.ContentType, data); err != nil {
		return none, err
	}
	res, err := h.onKit(ctx, m, p, in.KitID, PermKitsWrite, func(km *domain.KitModel) ([]event.Change, error) {
		return km.AddLogo(logo, h.now())
	})
	if err != nil || res.Replayed {
		_ = h.objects.Delete(context.WithoutCancel(ctx), key)
	}
	return res, err
}

// ParseLogo checks a logo image: 422 at /body unless it decodes as the
// type it was sent as, within raster.MaxImagePixels.
func ParseLogo(data []byte, contentType string) (domain.Logo, error) {
	w, h, err := raster.CheckImage(data, contentType)
	if err != nil {
		return domain.Logo{}, errs.InvalidField("/body", "must be a PNG or JPEG image of the type it is sent as, at most 40 megapixels")
	}
	return domain.Logo{ContentType: contentType, Width: w, Height: h, Size: int64(len(data)), SHA256: digest(data)}, nil
}
