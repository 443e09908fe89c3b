package design

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"strconv"

	"github.com/platform/backend/commands"
	domain "github.com/platform/backend/domain/design"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/domain/principal"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/internal/media/raster"
	"github.com/platform/backend/internal/objectstore"
)

// asset is a command on an uploaded image's stream.
func (h *Handlers) asset(id string, g *guard) object[*domain.AssetModel, domain.Asset] {
	return object[*domain.AssetModel, domain.Asset]{StreamType: domain.StreamAsset, ID: id, What: "asset", Guard: g,
		Load: domain.LoadAsset, Answer: (*domain.AssetModel).State}
}

// UploadAsset is assets.upload: the body is a PNG or JPEG image.
type UploadAsset struct {
	WorkspaceSlug string  `json:"workspaceSlug"`
	Name          *string `json:"name"`
	ContentType   string  `json:"-"`
}

// UploadAsset checks the image by decoding it (as the type it is sent as,
// at most raster.MaxImagePixels), stores it and records it in the
// workspace; bytes whose record fails are deleted again.
func (h *Handlers) UploadAsset(ctx context.Context, m commands.Meta, p principal.Principal, in UploadAsset, body io.Reader) (commands.Result[domain.Asset], error) {
	var none commands.Result[domain.Asset]
	ws, err := h.Enter(ctx, p, in.WorkspaceSlug, PermAssetsWrite)
	if err != nil {
		return none, err
	}
	if h.objects == nil {
		return none, errs.Unavailable("design: no object store for images", nil)
	}
	data, err := io.ReadAll(io.LimitReader(body, h.cfg.AssetMaxBytes+1))
	if err != nil {
		return none, err
	}
	if int64(len(data)) > h.cfg.AssetMaxBytes {
		return none, errs.TooLarge("payload_too_large", "the image is larger than "+strconv.FormatInt(h.cfg.AssetMaxBytes, 10)+" bytes; nothing was stored")
	}
	w, hgt, err := raster.CheckImage(data, in.ContentType)
	if err != nil {
		return none, errs.InvalidField("/body", "must be a PNG or JPEG image of the type it is sent as, at most 40 megapixels")
	}
	sum := sha256.Sum256(data)
	a := domain.Asset{AssetID: newID(), WorkspaceID: ws.ID, Name: "Image", ContentType: in.ContentType, Width: w, Height: hgt,
		Size: int64(len(data)), SHA256: hex.EncodeToString(sum[:]), CreatedBy: p.Author(), CreatedAt: h.now()}
	if in.Name != nil {
		a.Name = *in.Name
	}
	key := objectKey(p.OrganizationID, KindAsset, a.AssetID)
	if _, err := h.objects.Put(ctx, key, bytes.NewReader(data), objectstore.PutOptions{ContentType: a.ContentType, Size: a.Size}); err != nil {
		return none, errs.Unavailable("the object store is unavailable", err)
	}
	o := h.asset(a.AssetID, &guard{Registry: registry, Org: p.OrganizationID, Workspace: ws.ID})
	o.Writes = func(stored domain.Asset) []eventstore.Write {
		return []eventstore.Write{register(p.OrganizationID, ws.ID, KindAsset, stored.AssetID, "", "", key)}
	}
	res, err := o.Run(ctx, h.store, meta(m, p), func(am *domain.AssetModel) ([]event.Change, error) { return am.Store(a) })
	if err != nil || res.Replayed {
		_ = h.objects.Delete(context.WithoutCancel(ctx), key) // recorded by nothing (or by the first request, under its own id)
	}
	return res, err
}

// AssetRef names an image of a workspace.
type AssetRef struct {
	WorkspaceSlug string `json:"workspaceSlug"`
	AssetID       string `json:"assetId"`
}

// DeleteAsset is assets.delete: the image leaves the workspace's library
// (no design may add it any more); designs that show it keep it, so its
// bytes stay until the organization's data is erased.
func (h *Handlers) DeleteAsset(ctx context.Context, m commands.Meta, p principal.Principal, in AssetRef) (commands.Result[domain.Asset], error) {
	ws, err := h.Enter(ctx, p, in.WorkspaceSlug, PermAssetsWrite)
	if err != nil {
		return commands.Result[domain.Asset]{}, err
	}
	g := (&guard{Registry: registry, Org: p.OrganizationID, Workspace: ws.ID}).Read(in.AssetID)
	o := h.asset(in.AssetID, g)
	o.Writes = func(a domain.Asset) []eventstore.Write { return []eventstore.Write{registry.Retire(a.AssetID)} }
	return o.Run(ctx, h.store, meta(m, p), func(am *domain.AssetModel) ([]event.Change, error) {
		if err := g.Missing(in.AssetID, KindAsset); err != nil {
			return nil, err
		}
		if err := am.In(ws.ID); err != nil {
			return nil, err
		}
		return am.Delete()
	})
}
