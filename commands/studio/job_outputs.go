package studio

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"

	"github.com/jackc/pgx/v5"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/commands/jobs"
	"github.com/platform/backend/commands/studio/render"
	"github.com/platform/backend/commands/workspace"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	domain "github.com/platform/backend/domain/studio"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/internal/objectstore"
)

// What the studio's jobs share: the meta of their commands, the assets of
// a workspace as a renderer reads them, and an output stored as an asset
// under an id derived from the job.

// jobActor is the meta of the commands a job's attempt issues (its
// outputs' records, a plan): the job's organization, the kernel's actor of
// the kind, the job's stream as the correlation.
func jobActor(kind, jobID, organizationID string) commands.Meta {
	return commands.Meta{OrganizationID: organizationID, Actor: eventstore.Actor{ID: "jobs:" + kind, Type: "system"},
		CorrelationID: "job:" + kind + ":" + jobID}
}

// workspaceAssets are the assets of one workspace of one organization, as
// a render reads them (render.Assets): only live assets of that workspace,
// each at most the studio's asset bound.
type workspaceAssets struct {
	h                       *Handlers
	organization, workspace string
	extra                   map[string]render.Asset // in-memory assets of the job itself (a generated still)
	maxBytes                int64
}

func (h *Handlers) assetsOf(organization, workspace string) workspaceAssets {
	return workspaceAssets{h: h, organization: organization, workspace: workspace, maxBytes: h.cfg.AssetMaxBytes}
}

// Load reads an asset: one the workspace does not hold (another's, a
// deleted or erased one) makes the composition unrenderable; an outage of
// the stores may pass (retried).
func (w workspaceAssets) Load(ctx context.Context, assetID string) (render.Asset, error) {
	if a, ok := w.extra[assetID]; ok {
		return a, nil
	}
	var key string
	err := w.h.pool.QueryRow(ctx, `SELECT coalesce(object_key, '') FROM studio_objects WHERE object_id = $1 AND organization_id = $2
		AND workspace_id = $3 AND kind = 'asset' AND live`, assetID, w.organization, w.workspace).Scan(&key)
	switch {
	case errors.Is(err, pgx.ErrNoRows) || err == nil && key == "":
		return render.Asset{}, fmt.Errorf("no such asset in the workspace: %w", render.ErrUnrenderable)
	case err != nil:
		return render.Asset{}, errs.Unavailable("the studio's store is unavailable", err)
	}
	obj, err := w.h.objects.Get(ctx, key)
	if err != nil {
		if objectstore.KindOf(err) == objectstore.KindNotFound {
			return render.Asset{}, fmt.Errorf("the asset's file is gone: %w", render.ErrUnrenderable)
		}
		return render.Asset{}, errs.Unavailable("the object store is unavailable", err)
	}
	defer obj.Body.Close()
	data, err := io.ReadAll(io.LimitReader(obj.Body, w.maxBytes+1))
	if err != nil {
		return render.Asset{}, errs.Unavailable("the object store is unavailable", err)
	}
	if int64(len(data)) > w.maxBytes {
		return render.Asset{}, fmt.Errorf("the asset is larger than %d bytes: %w", w.maxBytes, render.ErrUnrenderable)
	}
	return render.Asset{ContentType: obj.ContentType, Data: data}, nil
}

// storeOutput stores a job's output file as an asset of the workspace
// under the asset's id (derived from the job: outputID), so the key is
// the same on every attempt: a second attempt replaces the bytes a first
// one left, and the asset is recorded once (an asset recorded already is
// the answer). Bytes whose record is refused (the project or workspace is
// gone) are deleted again; after an outage they stay for the next attempt
// to replace.
func (h *Handlers) storeOutput(ctx context.Context, m commands.Meta, workspaceID string, a domain.Asset, body io.Reader) (domain.Asset, error) {
	if h.objects == nil {
		return domain.Asset{}, errs.Unavailable("studio: no object store for assets", nil)
	}
	a.WorkspaceID, a.CreatedAt = workspaceID, h.now()
	key := objectKey(m.OrganizationID, a.AssetID)
	sum := sha256.New()
	info, err := h.objects.Put(ctx, key, io.TeeReader(body, sum), objectstore.PutOptions{ContentType: a.ContentType})
	if err != nil {
		return domain.Asset{}, objectError(err, 0)
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
	switch {
	case err == nil:
		return res.Value, nil
	case errs.CodeOf(err) == "asset_exists":
		return a, nil // recorded by an earlier attempt (its bytes were just replaced by the same output)
	case !commands.IsOutage(err):
		_ = h.objects.Delete(context.WithoutCancel(ctx), key)
	}
	return domain.Asset{}, err
}

// recordedAsset reports whether a job's output asset is recorded (a
// probe's question): live or deleted since, it was made.
func (h *Handlers) recordedAsset(ctx context.Context, organizationID, assetID string) (bool, error) {
	history, err := workspace.LoadOwn(ctx, h.store, organizationID, assetID, "the studio's")
	if err != nil {
		return false, err
	}
	am, err := domain.LoadAsset(commands.Recorded(history))
	if err != nil {
		return false, err
	}
	return am.State().AssetID != "", nil
}

// jobFailure reads an error of the studio's own stores in a job's words:
// an outage is retried by the policy; a refusal (the project, workspace
// or organization's data gone) is final.
func jobFailure(err error, code, reason string) error {
	if commands.IsOutage(err) || objectstore.KindOf(err) == objectstore.KindUnavailable {
		return jobs.Retryable(code, reason, 0)
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err // the kernel's to read (cancelled, lease lost, timeout): unconfirmed, the probe decides
	}
	return jobs.Fail(domain.JobTargetGone, "the project or its workspace is gone")
}
