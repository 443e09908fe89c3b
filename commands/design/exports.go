package design

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/commands/design/render"
	"github.com/platform/backend/commands/jobs"
	"github.com/platform/backend/commands/workspace"
	"github.com/platform/backend/domain/brands"
	domain "github.com/platform/backend/domain/design"
	"github.com/platform/backend/domain/errs"
	domjobs "github.com/platform/backend/domain/jobs"
	"github.com/platform/backend/domain/principal"
	"github.com/platform/backend/internal/media/raster"
	"github.com/platform/backend/internal/objectstore"
)

// An export is a durable job (commands/jobs) of kind design.export whose id
// is the export's: requested once its registry row is written, claimed by
// one worker under a lease, rendered natively (render), its file stored
// under a key derived from the export alone, so every attempt writes the
// same object. A worker that dies mid-render leaves a lease that runs out;
// the kernel then asks Probe, which looks for that object: found is
// succeeded (one object, one success, so one design.export.ready), not
// found is a new attempt.

func (h *Handlers) defineExport(cmds *jobs.Commands) (*jobs.Def[domain.ExportJob, domain.ExportResult], error) {
	return jobs.Define(cmds, jobs.Spec[domain.ExportJob, domain.ExportResult]{
		Name: domain.KindExport, Do: h.render, Probe: h.probe,
		Retry: domjobs.RetryPolicy{MaxAttempts: h.cfg.ExportAttempts, Backoff: 5 * time.Second, MaxBackoff: 5 * time.Minute},
		Lease: h.cfg.ExportLease, Timeout: h.cfg.ExportTimeout, Concurrency: h.cfg.ExportConcurrency,
	})
}

// Metadata of a stored export: what Probe answers from (the object's own
// record, written with it).
const (
	metaWidth    = "width"
	metaHeight   = "height"
	metaFrames   = "frames"
	metaDuration = "duration-ms"
	metaSHA256   = "sha256"
)

// render is the export job's Do: one attempt, its outcome in the kernel's
// words.
func (h *Handlers) render(ctx context.Context, a *jobs.Attempt[domain.ExportJob]) (domain.ExportResult, error) {
	var none domain.ExportResult
	in, org, id := a.Input, a.OrganizationID, a.JobID
	if err := h.exportLive(ctx, org, id); err != nil {
		return none, err
	}
	history, err := workspace.LoadOwn(ctx, h.store, org, in.DesignID, "the design service's")
	if err != nil {
		return none, jobs.NotDone("the design could not be read")
	}
	dm, err := domain.LoadDesign(commands.Recorded(history))
	if err != nil {
		return none, jobs.Fail("design_unreadable", "the design does not decode")
	}
	d, ok := dm.Revision(in.Revision)
	if !ok {
		return none, jobs.Fail("design_missing", "the design's revision is gone")
	}
	kit, found, err := h.kits.Version(ctx, d.BrandKitVersionID)
	if err != nil {
		return none, jobs.NotDone("the brand kit version could not be read")
	}
	if !found {
		return none, jobs.Fail("kit_version_missing", "the design's brand kit version is gone")
	}
	path := filepath.Join(h.cfg.WorkDir, "design-export-"+id+"-"+strconv.Itoa(a.Number)+domain.Extensions[in.Format])
	defer os.Remove(path)
	r := render.Renderer{Media: h.cfg.Media, Files: files{h: h, org: org, workspace: in.WorkspaceID}}
	res, err := r.Render(ctx, render.Request{Content: d.Content, Kit: kit, Format: in.Format, PageID: in.PageID, AtMs: in.AtMs,
		Scale: in.Scale, Quality: in.Quality}, path, a.Progress)
	var bad *render.Error
	switch {
	case errors.As(err, &bad):
		return none, jobs.Fail("unrenderable", bad.Error())
	case err != nil && ctx.Err() != nil:
		return none, jobs.NotDone("stopped before the file was stored")
	case err != nil:
		h.log.Warn("design: an export's render failed; the policy retries it", "export", id, "err", err)
		return none, jobs.Retryable("render_failed", "the renderer failed", 0)
	}
	out, err := h.keep(ctx, objectKey(org, KindExport, id), path, res)
	if err != nil {
		// The store may have kept the file: the probe looks.
		return none, jobs.Unconfirmed("the file's storage was not confirmed", nil, 0)
	}
	// An erasure that committed while this attempt ran finds no file to
	// delete yet: the attempt deletes what it stored.
	if err := h.exportLive(ctx, org, id); err != nil {
		_ = h.objects.Delete(context.WithoutCancel(ctx), objectKey(org, KindExport, id))
		return none, err
	}
	return out, nil
}

// exportLive answers nil while the export's registry row is live, a final
// failure once it is gone (erased), a retry when the registry cannot be read.
func (h *Handlers) exportLive(ctx context.Context, org, id string) error {
	var live bool
	err := h.pool.QueryRow(ctx, `SELECT live FROM design_objects WHERE object_id = $1 AND organization_id = $2 AND kind = 'export'`,
		id, org).Scan(&live)
	switch {
	case errors.Is(err, pgx.ErrNoRows) || err == nil && !live:
		return jobs.Fail("erased", "the export was erased")
	case err != nil:
		return jobs.NotDone("the registry could not be read")
	}
	return nil
}

// keep puts the rendered file under the export's key, with what Probe
// needs to answer from it alone.
func (h *Handlers) keep(ctx context.Context, key, path string, res render.Result) (domain.ExportResult, error) {
	f, err := os.Open(path)
	if err != nil {
		return domain.ExportResult{}, err
	}
	defer f.Close()
	sum := sha256.New()
	size, err := io.Copy(sum, f)
	if err != nil {
		return domain.ExportResult{}, err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return domain.ExportResult{}, err
	}
	out := domain.ExportResult{ContentType: res.ContentType, Size: size, SHA256: hex.EncodeToString(sum.Sum(nil)), Width: res.Width,
		Height: res.Height, DurationMs: res.DurationMs, Frames: res.Frames}
	_, err = h.objects.Put(ctx, key, f, objectstore.PutOptions{ContentType: out.ContentType, Size: size, Metadata: map[string]string{
		metaWidth: strconv.Itoa(out.Width), metaHeight: strconv.Itoa(out.Height), metaFrames: strconv.Itoa(out.Frames),
		metaDuration: strconv.Itoa(out.DurationMs), metaSHA256: out.SHA256}})
	return out, err
}

// probe is the export job's Probe: the export happened when its file is
// stored (its metadata is the result).
func (h *Handlers) probe(ctx context.Context, a *jobs.Attempt[domain.ExportJob]) (domain.ExportResult, bool, error) {
	info, err := h.objects.Stat(ctx, objectKey(a.OrganizationID, KindExport, a.JobID))
	switch objectstore.KindOf(err) {
	case "":
	case objectstore.KindNotFound:
		return domain.ExportResult{}, false, nil
	default:
		return domain.ExportResult{}, false, jobs.Later("the object store did not answer")
	}
	if err != nil {
		return domain.ExportResult{}, false, jobs.Later("the object store did not answer")
	}
	atoi := func(k string) int { n, _ := strconv.Atoi(info.Metadata[k]); return n }
	return domain.ExportResult{ContentType: info.ContentType, Size: info.Size, SHA256: info.Metadata[metaSHA256], Width: atoi(metaWidth),
		Height: atoi(metaHeight), Frames: atoi(metaFrames), DurationMs: atoi(metaDuration)}, true, nil
}

// files are the renderer's files for one export: the kit version's fonts
// and logos through the brand service, the workspace's images.
type files struct {
	h              *Handlers
	org, workspace string
}

func (f files) Font(ctx context.Context, kit brands.Version, font brands.Font) ([]byte, error) {
	return f.h.kits.File(ctx, kit.OrganizationID, "font", font.FontID, raster.MaxFontBytes)
}

func (f files) Logo(ctx context.Context, kit brands.Version, l brands.Logo) ([]byte, error) {
	return f.h.kits.File(ctx, kit.OrganizationID, "logo", l.LogoID, render.MaxImageBytes)
}

// Asset reads an image of the export's workspace (one deleted from the
// library still shows where it was placed).
func (f files) Asset(ctx context.Context, assetID string) ([]byte, error) {
	var key string
	err := f.h.pool.QueryRow(ctx, `SELECT object_key FROM design_objects WHERE object_id = $1 AND organization_id = $2 AND workspace_id = $3
		AND kind = 'asset'`, assetID, f.org, f.workspace).Scan(&key)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, &render.Error{Pointer: "/image/assetId", Reason: "no such image in the workspace"}
	}
	if err != nil {
		return nil, err
	}
	obj, err := f.h.objects.Get(ctx, key)
	if err != nil {
		return nil, err
	}
	defer obj.Body.Close()
	return io.ReadAll(io.LimitReader(obj.Body, render.MaxImageBytes))
}

// CreateExport is designs.exports.create.
type CreateExport struct {
	WorkspaceSlug string   `json:"workspaceSlug"`
	DesignID      string   `json:"designId"`
	Format        string   `json:"format"`
	PageID        *string  `json:"pageId"`
	AtMs          *int     `json:"atMs"`
	Scale         *float64 `json:"scale"`
	Quality       *int     `json:"quality"`
}

// exportIDs derives an export's id from the request's Idempotency-Key, so
// a repeated request names the same export (its registry row and job).
var exportIDs = uuid.MustParse("6f1c9a2e-3d4b-5c6d-8e7f-9a0b1c2d3e4f")

// CreateExport persists an export of the design as it is now (its current
// revision) and queues its render: 422 at the member for a page it does
// not have, a time outside the page, a size beyond the format's bound.
func (h *Handlers) CreateExport(ctx context.Context, m commands.Meta, p principal.Principal, in CreateExport) (commands.Result[domain.Export], error) {
	var none commands.Result[domain.Export]
	ws, err := h.Enter(ctx, p, in.WorkspaceSlug, PermExportsWrite)
	if err != nil {
		return none, err
	}
	d, err := h.current(ctx, p.OrganizationID, ws.ID, in.DesignID)
	if err != nil {
		return none, err
	}
	r := domain.ExportRequest{Format: in.Format, PageID: in.PageID}
	if in.AtMs != nil {
		r.AtMs = *in.AtMs
	}
	if in.Scale != nil {
		r.Scale = *in.Scale
	}
	if in.Quality != nil {
		r.Quality = *in.Quality
	}
	job, err := domain.Plan(d, r, p.Author())
	if err != nil {
		return none, err
	}
	id := newID()
	if m.IdempotencyKey != "" {
		id = uuid.NewSHA1(exportIDs, []byte(p.OrganizationID+"\x00"+m.IdempotencyKey)).String()
	}
	if err := h.persistExport(ctx, p.OrganizationID, ws.ID, d, id); err != nil {
		return none, err
	}
	res, err := h.export.Request(ctx, meta(m, p), id, job, jobs.RequestOptions{})
	return exportResult(res, err)
}

// persistExport writes the export's registry row, under the organization's
// lock taken shared, once its design is live there (an erasure either comes
// after, and forgets it, or before, and the design is gone).
func (h *Handlers) persistExport(ctx context.Context, org, workspaceID string, d domain.Design, id string) error {
	tx, err := h.pool.Begin(ctx)
	if err != nil {
		return errs.Unavailable("the design service's store is unavailable", err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock_shared(`+registry.OrgLock()+`)`, org); err != nil {
		return errs.Unavailable("the design service's store is unavailable", err)
	}
	var live bool
	err = tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM design_objects WHERE object_id = $1 AND organization_id = $2 AND workspace_id = $3
		AND kind = 'design' AND live)`, d.DesignID, org, workspaceID).Scan(&live)
	if err != nil {
		return errs.Unavailable("the design service's store is unavailable", err)
	}
	if !live {
		return errs.NotFound("design")
	}
	w := register(org, workspaceID, KindExport, id, d.ProjectID, d.DesignID, objectKey(org, KindExport, id))
	if _, err := tx.Exec(ctx, w.SQL, w.Args...); err != nil {
		return errs.Unavailable("the design service's store is unavailable", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return errs.Unavailable("the design service's store is unavailable", err)
	}
	return nil
}

func exportResult(res commands.Result[domjobs.Job], err error) (commands.Result[domain.Export], error) {
	if err != nil {
		if errs.KindOf(err) == errs.KindNotFound {
			err = errs.NotFound("export")
		}
		return commands.Result[domain.Export]{}, err
	}
	e, err := domain.ExportOf(res.Value)
	return commands.Result[domain.Export]{Value: e, Position: res.Position, Replayed: res.Replayed}, err
}

// ExportRef names an export of a workspace.
type ExportRef struct {
	WorkspaceSlug string `json:"workspaceSlug"`
	ExportID      string `json:"exportId"`
}

// owned checks an export is registered in the workspace (404 otherwise).
func (h *Handlers) owned(ctx context.Context, p principal.Principal, in ExportRef, permission string) error {
	ws, err := h.Enter(ctx, p, in.WorkspaceSlug, permission)
	if err != nil {
		return err
	}
	return h.registered(ctx, p.OrganizationID, ws.ID, in.ExportID, KindExport)
}

// CancelExport is designs.exports.cancel: a queued or rendering export
// stops for good (409 invalid_transition once ready or cancelled).
func (h *Handlers) CancelExport(ctx context.Context, m commands.Meta, p principal.Principal, in ExportRef) (commands.Result[domain.Export], error) {
	if err := h.owned(ctx, p, in, PermExportsWrite); err != nil {
		return commands.Result[domain.Export]{}, err
	}
	return exportResult(h.export.Cancel(ctx, meta(m, p), in.ExportID, "cancelled by "+p.Author()))
}

// RetryExport is designs.exports.retry: a failed export is queued again
// with its attempts restored.
func (h *Handlers) RetryExport(ctx context.Context, m commands.Meta, p principal.Principal, in ExportRef) (commands.Result[domain.Export], error) {
	if err := h.owned(ctx, p, in, PermExportsWrite); err != nil {
		return commands.Result[domain.Export]{}, err
	}
	return exportResult(h.export.Retry(ctx, meta(m, p), in.ExportID))
}

// Download is a ready export's signed, expiring link.
type Download struct {
	URL       string    `json:"url"`
	ExpiresAt time.Time `json:"expiresAt"`
	Filename  string    `json:"filename"`
}

// DownloadExport signs a download of a ready export (409 export_not_ready
// before), valid for DownloadTTL.
func (h *Handlers) DownloadExport(ctx context.Context, p principal.Principal, in ExportRef) (Download, error) {
	if err := h.owned(ctx, p, in, PermWorkspaceRead); err != nil {
		return Download{}, err
	}
	j, err := h.export.Load(ctx, p.OrganizationID, in.ExportID)
	if err != nil {
		return Download{}, errs.NotFound("export")
	}
	if j.State != domjobs.Succeeded {
		return Download{}, domain.ErrExportNotReady
	}
	e, err := domain.ExportOf(j)
	if err != nil {
		return Download{}, err
	}
	name := "design"
	if d, err := h.current(ctx, p.OrganizationID, e.WorkspaceID, e.DesignID); err == nil {
		name = d.Name
	}
	filename := domain.Filename(name, e.ExportID, e.Format)
	dl, err := h.objects.PresignDownload(ctx, objectKey(p.OrganizationID, KindExport, e.ExportID),
		objectstore.DownloadOptions{Expires: h.cfg.DownloadTTL, Filename: filename})
	if err != nil {
		if objectstore.KindOf(err) == objectstore.KindNotFound {
			return Download{}, errs.NotFound("export")
		}
		return Download{}, errs.Unavailable("the object store is unavailable", err)
	}
	return Download{URL: dl.URL, ExpiresAt: dl.ExpiresAt.UTC(), Filename: filename}, nil
}
