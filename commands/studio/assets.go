package studio

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/commands/deletions"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/domain/principal"
	domain "github.com/platform/backend/domain/studio"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/internal/objectstore"
)

// UploadAsset is projects' and workspaces' assets.upload: the body is the
// file, its Content-Type the asset's type.
type UploadAsset struct {
	WorkspaceSlug string  `json:"workspaceSlug"`
	ProjectID     *string `json:"projectId"`
	Filename      *string `json:"filename"`
	ContentType   string  `json:"-"`
}

// objectKey is where an asset's bytes are: the organization's namespace,
// then the studio's.
func objectKey(org, assetID string) string { return org + "/studio/assets/" + assetID }

// asset is a command on an asset's stream.
func (h *Handlers) asset(id string, g *guard) object[*domain.AssetModel, domain.Asset] {
	return object[*domain.AssetModel, domain.Asset]{StreamType: domain.StreamAsset, ID: id, What: "asset", Guard: g,
		Load: domain.LoadAsset, Answer: (*domain.AssetModel).State}
}

// UploadAsset stores the file (streamed and bounded: 413 past
// STUDIO_ASSET_MAX_BYTES with nothing kept), then records it in the
// workspace (and project). Bytes whose record fails are deleted again.
func (h *Handlers) UploadAsset(ctx context.Context, m commands.Meta, p principal.Principal, in UploadAsset, file io.Reader) (commands.Result[domain.Asset], error) {
	ws, err := h.Enter(ctx, p, in.WorkspaceSlug, PermAssetsWrite)
	if err != nil {
		return commands.Result[domain.Asset]{}, err
	}
	return h.storeAsset(ctx, meta(m, p), ws.ID, domain.Asset{ProjectID: in.ProjectID, ContentType: in.ContentType, Filename: in.Filename,
		Source: domain.SourceUpload, CreatedBy: p.Author()}, file)
}

// storeAsset puts the bytes, then records the asset (uploads, copies of a
// duplicated project; generated and rendered outputs next).
func (h *Handlers) storeAsset(ctx context.Context, m commands.Meta, workspaceID string, a domain.Asset, file io.Reader) (commands.Result[domain.Asset], error) {
	var none commands.Result[domain.Asset]
	if h.objects == nil {
		return none, errs.Unavailable("studio: no object store for assets", nil)
	}
	if _, ok := domain.AssetTypes[a.ContentType]; !ok {
		return none, errs.InvalidField("/contentType", "must be one of the studio's asset types (images, videos, audio, fonts, zip)")
	}
	if a.AssetID == "" {
		a.AssetID = newID()
	}
	a.WorkspaceID, a.CreatedAt = workspaceID, h.now()
	key := objectKey(m.OrganizationID, a.AssetID)
	sum := sha256.New()
	info, err := h.objects.Put(ctx, key, io.TeeReader(file, sum), objectstore.PutOptions{ContentType: a.ContentType, MaxBytes: h.cfg.AssetMaxBytes})
	if err != nil {
		return none, objectError(err, h.cfg.AssetMaxBytes)
	}
	a.Size, a.SHA256 = info.Size, hex.EncodeToString(sum.Sum(nil))
	g := &guard{Registry: registry, Org: m.OrganizationID, Workspace: workspaceID}
	project := ""
	if a.ProjectID != nil {
		g.Project, project = *a.ProjectID, *a.ProjectID
	}
	res, err := h.asset(a.AssetID, g).WithWrites(func(stored domain.Asset) []eventstore.Write {
		return []eventstore.Write{registry.Register(m.OrganizationID, workspaceID, KindAsset, stored.AssetID, project, key)}
	}).Run(ctx, h.store, m, func(am *domain.AssetModel) ([]event.Change, error) { return am.Store(a, key) })
	if err != nil && errs.CodeOf(err) != "asset_exists" || err == nil && res.Replayed {
		// Not recorded (or recorded by the first request with this
		// Idempotency-Key, under another key): these bytes belong to nothing.
		// An asset recorded under this id already (a duplicate's copy made
		// twice) keeps them.
		_ = h.objects.Delete(context.WithoutCancel(ctx), key)
	}
	return res, err
}

// AssetRef names an asset of a workspace.
type AssetRef struct {
	WorkspaceSlug string `json:"workspaceSlug"`
	AssetID       string `json:"assetId"`
}

// DeleteAsset is assets.delete: the asset leaves every read, and its bytes
// are deleted once that is recorded.
func (h *Handlers) DeleteAsset(ctx context.Context, m commands.Meta, p principal.Principal, in AssetRef) (commands.Result[domain.Asset], error) {
	ws, err := h.Enter(ctx, p, in.WorkspaceSlug, PermAssetsWrite)
	if err != nil {
		return commands.Result[domain.Asset]{}, err
	}
	g := &guard{Registry: registry, Org: p.OrganizationID, Workspace: ws.ID, Object: in.AssetID}
	key := objectKey(p.OrganizationID, in.AssetID)
	res, err := h.asset(in.AssetID, g).WithWrites(func(a domain.Asset) []eventstore.Write {
		return []eventstore.Write{registry.Retire(a.AssetID), registry.Forget(p.OrganizationID, key)}
	}).Run(ctx, h.store, meta(m, p), func(am *domain.AssetModel) ([]event.Change, error) {
		if err := am.In(ws.ID); err != nil {
			return nil, err
		}
		return am.Delete()
	})
	if err == nil {
		h.DrainDeletions(context.WithoutCancel(ctx), 100)
	}
	return res, err
}

// Preview is a signed link's query: the token and its expiry (Unix seconds).
type Preview struct {
	Token     string    `json:"token"`
	ExpiresAt time.Time `json:"expiresAt"`
}

// PreviewOf signs a preview of an asset of a workspace until now + PreviewTTL.
func (h *Handlers) PreviewOf(assetID, workspaceID string) Preview {
	exp := h.now().Add(h.cfg.PreviewTTL).Truncate(time.Second)
	return Preview{Token: domain.PreviewToken(h.cfg.PreviewKey, assetID, workspaceID, exp.Unix()), ExpiresAt: exp}
}

// OpenPreview is assets.preview.get (public): the token must be the one the
// studio signed for this asset, workspace and expiry, and not expired.
// Every refusal (unknown, erased or deleted asset, another workspace's
// slug, an altered token or expiry, an expired link) is the same answer.
type OpenPreview struct {
	WorkspaceSlug string `json:"workspaceSlug"`
	AssetID       string `json:"assetId"`
	Token         string `json:"token"`
	ExpiresAt     string `json:"expiresAt"`
}

var errPreviewRefused = errs.PermissionDenied("the preview link is invalid or has expired")

// OpenPreview opens a previewed asset's bytes; the caller closes them.
func (h *Handlers) OpenPreview(ctx context.Context, in OpenPreview) (*objectstore.Object, error) {
	var org, workspace, key string
	live := false
	err := h.pool.QueryRow(ctx, `SELECT organization_id, workspace_id, coalesce(object_key, ''), live FROM studio_objects
		WHERE object_id = $1 AND kind = 'asset'`, in.AssetID).Scan(&org, &workspace, &key, &live)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return nil, errs.Unavailable("the studio's store is unavailable", err)
	}
	// The signature is checked whatever the lookup found, so a refusal
	// costs the same for an asset that exists and one that does not.
	valid := domain.PreviewValid(h.cfg.PreviewKey, in.AssetID, workspace, strings.TrimSpace(in.ExpiresAt), in.Token, h.now())
	if !valid || !live || key == "" {
		return nil, errPreviewRefused
	}
	all, err := h.dir.Workspaces(ctx, org)
	if err != nil {
		return nil, err
	}
	slugOK := false
	for _, ws := range all {
		slugOK = slugOK || ws.ID == workspace && ws.Slug == in.WorkspaceSlug
	}
	if !slugOK {
		return nil, errPreviewRefused
	}
	obj, err := h.objects.Get(ctx, key)
	if err != nil {
		if objectstore.KindOf(err) == objectstore.KindNotFound {
			return nil, errPreviewRefused
		}
		return nil, objectError(err, 0)
	}
	return obj, nil
}

// objectError turns the object store's kinds into the API's.
func objectError(err error, limit int64) error {
	switch objectstore.KindOf(err) {
	case objectstore.KindTooLarge:
		return errs.TooLarge("payload_too_large", "the file is larger than "+strconv.FormatInt(limit, 10)+" bytes; nothing was stored")
	case objectstore.KindUnsupportedType:
		return errs.InvalidField("/contentType", "the file's content type is not a media type (type/subtype)")
	case objectstore.KindNotFound:
		return errs.NotFound("asset")
	case objectstore.KindUnavailable:
		return errs.Unavailable("the object store is unavailable", err)
	case "":
		return err // the request body's own (413, 408, a client that left), or a fault
	}
	var stored *objectstore.Error
	if errors.As(err, &stored) && stored.Err != nil {
		return err
	}
	return errs.InvalidField("/body", "the file could not be stored as sent")
}

// DrainDeletions deletes the bytes of forgotten objects (asset deletions,
// erasures), at most limit of them (commands/deletions): after the command
// that forgot them and, for what a crash left, by the sweeper.
func (h *Handlers) DrainDeletions(ctx context.Context, limit int) int {
	return deletions.Drain(ctx, h.pool, h.objects, "studio_object_deletions", limit, h.log)
}
