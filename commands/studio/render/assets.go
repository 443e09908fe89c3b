package render

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	domain "github.com/platform/backend/domain/studio"
	"github.com/platform/backend/internal/media/raster"
)

// Asset is an asset's content as stored.
type Asset struct {
	ContentType string // sniffed from Data when empty
	Data        []byte
}

// Assets loads the assets a composition names. The job gives one bound to
// the composition's workspace (and bounding sizes); an asset it cannot
// find is an error wrapping ErrUnrenderable.
type Assets interface {
	Load(ctx context.Context, assetID string) (Asset, error)
}

func (a Asset) kind() string {
	ct := a.ContentType
	if ct == "" || ct == "application/octet-stream" {
		ct = http.DetectContentType(a.Data)
	}
	ct, _, _ = strings.Cut(ct, ";")
	switch {
	case ct == "image/png" || ct == "image/jpeg":
		return "image"
	case strings.HasPrefix(ct, "video/"):
		return "video"
	case strings.HasPrefix(ct, "font/") || ct == "application/font-woff" || ct == "application/vnd.ms-opentype" ||
		ct == "application/x-font-ttf" || ct == "application/x-font-otf":
		return "font"
	}
	return ct
}

// fonts are the snapshot's fonts, loaded: a font asset when named, else
// the platform's DejaVu Sans (bold from weight 600); a font id the
// snapshot does not name is set in the regular one (fallback).
type fonts struct {
	byID     map[string]*raster.Font
	fallback *raster.Font
}

func loadFonts(ctx context.Context, assets Assets, s domain.Snapshot) (fonts, error) {
	regular, err := raster.DefaultFont(400)
	if err != nil {
		return fonts{}, err
	}
	out := fonts{byID: map[string]*raster.Font{}, fallback: regular}
	for i, f := range s.Fonts {
		if f.AssetID == nil {
			if out.byID[f.FontID], err = raster.DefaultFont(f.Weight); err != nil {
				return fonts{}, err
			}
			continue
		}
		at := fmt.Sprintf("/snapshot/fonts/%d/assetId", i)
		a, err := load(ctx, assets, at, *f.AssetID)
		if err != nil {
			return fonts{}, err
		}
		font, err := raster.LoadFont(a.Data)
		if err != nil {
			return fonts{}, unrenderable(at, "font asset %s: %v", *f.AssetID, err)
		}
		out.byID[f.FontID] = font
	}
	return out, nil
}

func (fs fonts) get(id string) *raster.Font {
	if f, ok := fs.byID[id]; ok {
		return f
	}
	return fs.fallback
}

func load(ctx context.Context, assets Assets, at, id string) (Asset, error) {
	if assets == nil {
		return Asset{}, unrenderable(at, "asset %s: no asset store to read it from", id)
	}
	a, err := assets.Load(ctx, id)
	if err != nil {
		return Asset{}, fmt.Errorf("%s: asset %s: %w", at, id, err)
	}
	return a, nil
}
