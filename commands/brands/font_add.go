package brands

import (
	"context"
	"io"

	"github.com/platform/backend/commands"
	domain "github.com/platform/backend/domain/brands"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/domain/principal"
	"github.com/platform/backend/domain/text"
	"github.com/platform/backend/internal/media/raster"
)

// AddFont is brand_kits.fonts.upload: the body is the font file.
type AddFont struct {
	KitID string `json:"kitId"`
}

// formats are the font files a kit takes, by what raster.FontFormat reads.
var formats = map[string]string{raster.FormatTTF: domain.FormatTTF, raster.FormatOTF: domain.FormatOTF, raster.FormatWOFF2: domain.FormatWOFF2}

// AddFont checks a font file by parsing it (a TTF, OTF or WOFF2 whose
// tables name a family, and that sets text), stores it, and adds it to the
// kit's draft with the family, weight and style its tables say. Bytes whose
// record fails are deleted again.
func (h *Handlers) AddFont(ctx context.Context, m commands.Meta, p principal.Principal, in AddFont, body io.Reader) (commands.Result[domain.Kit], error) {
	var none commands.Result[domain.Kit]
	km, err := h.load(ctx, p, in.KitID)
	if err != nil {
		return none, err
	}
	if err := authorize(p, km.State(), PermKitsWrite); err != nil {
		return none, err
	}
	data, err := readFile(body, h.cfg.FontMaxBytes)
	if err != nil {
		return none, err
	}
	font, err := ParseFont(data)
	if err != nil {
		return none, err
	}
	font.FontID = newID()
	key := ObjectKey(p.OrganizationID, KindFont, font.FontID)
	if err := h.put(ctx, key, domain.FontTypes[font.Format], data); err != nil {
		return none, err
	}
	res, err := h.onKit(ctx, m, p, in.KitID, PermKitsWrite, func(km *domain.KitModel) ([]event.Change, error) {
		return km.AddFont(font, h.now())
	})
	if err != nil || res.Replayed {
		_ = h.objects.Delete(context.WithoutCancel(ctx), key) // recorded by nothing (or by the first request, under its own id)
	}
	return res, err
}

// ParseFont reads a font file as a kit keeps it: 422 at /body when it is
// not a TTF, OTF or WOFF2 file whose tables parse, name a family and set
// text. Size and digest are the file's.
func ParseFont(data []byte) (domain.Font, error) {
	format, ok := formats[raster.FontFormat(data)]
	if !ok {
		return domain.Font{}, errs.InvalidField("/body", "must be a TTF, OTF or WOFF2 font file")
	}
	f, err := raster.LoadFont(data)
	if err != nil {
		return domain.Font{}, errs.InvalidField("/body", "the font file does not parse")
	}
	info := f.Info()
	family := text.Trim(info.Family)
	if family == "" || !text.IsLine(family) || len([]rune(family)) > domain.MaxFamily {
		return domain.Font{}, errs.InvalidField("/body", "the font file names no usable family")
	}
	// A font whose outlines cannot be set would fail every export later.
	if _, err := f.Text("Aa", raster.TextStyle{Size: 24, Width: 200}); err != nil {
		return domain.Font{}, errs.InvalidField("/body", "the font file does not set text")
	}
	style := domain.StyleNormal
	if info.Italic {
		style = domain.StyleItalic
	}
	full := text.Trim(info.FullName)
	if full == "" || !text.IsLine(full) || len([]rune(full)) > domain.MaxFamily {
		full = family
	}
	return domain.Font{Family: family, Weight: info.Weight, Style: style, Format: format, FullName: full, Size: int64(len(data)),
		SHA256: digest(data)}, nil
}
