package studio

import (
	"context"
	"errors"
	"os"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/commands/jobs"
	"github.com/platform/backend/commands/studio/render"
	"github.com/platform/backend/commands/workspace"
	"github.com/platform/backend/domain/errs"
	domain "github.com/platform/backend/domain/studio"
	"github.com/platform/backend/internal/media"
)

// The platform render's job (domain.KindRender): Do renders the
// composition version with the platform's renderer into a file, stores it
// as the job's output asset and answers it; Probe says whether that asset
// was recorded. The output asset's id derives from the render job's, so
// every attempt writes the same object key and records one asset.

// renderOutputID is a render job's output asset.
func renderOutputID(renderJobID string) string {
	return outputID(domain.KindRender, renderJobID, "output")
}

// renderDo is one attempt: load the composition version as it is now,
// render it (progress 0..99 as frames are encoded, the assets read from
// the job's workspace only), store and record the output.
func (j *Jobs) renderDo(ctx context.Context, a *jobs.Attempt[domain.RenderJob]) (domain.RenderOutput, error) {
	in := a.Input
	comp, err := j.h.compositionOf(ctx, a.OrganizationID, in.CompositionVersionID)
	switch {
	case err == nil && comp.WorkspaceID == in.WorkspaceID && comp.ProjectID == in.ProjectID:
	case err == nil || !commands.IsOutage(err):
		return domain.RenderOutput{}, jobs.Fail(domain.RenderMissing, "the composition version is gone")
	default:
		return domain.RenderOutput{}, jobs.Retryable(domain.RenderFailedCode, "the studio's store is unavailable", 0)
	}
	format := media.Format(in.OutputFormat)
	if !format.Known() {
		return domain.RenderOutput{}, jobs.Fail(domain.RenderUnrenderable, "unknown output format "+in.OutputFormat)
	}
	file, err := os.CreateTemp("", "studio-render-*"+format.Ext())
	if err != nil {
		return domain.RenderOutput{}, jobs.NotDone("no room for the output file")
	}
	path := file.Name()
	file.Close()
	defer os.Remove(path)
	r := render.Renderer{Media: j.cfg.Media, Assets: j.h.assetsOf(a.OrganizationID, in.WorkspaceID)}
	_, err = r.Render(ctx, render.Request{Snapshot: comp.Snapshot, AspectRatio: comp.AspectRatio, Format: format}, path, func(p int) {
		a.Progress(min(p, 99)) // 100 is the recorded output's
	})
	switch {
	case err == nil:
	case ctx.Err() != nil:
		return domain.RenderOutput{}, jobs.NotDone("stopped before the output was stored") // cancelled, lease lost or timed out
	case errors.Is(err, render.ErrUnrenderable):
		return domain.RenderOutput{}, jobs.Fail(domain.RenderUnrenderable, err.Error())
	default:
		return domain.RenderOutput{}, jobs.Retryable(domain.RenderFailedCode, "the renderer failed: "+err.Error(), 0)
	}
	out, err := os.Open(path)
	if err != nil {
		return domain.RenderOutput{}, jobs.NotDone("the output file could not be read")
	}
	defer out.Close()
	id, project := renderOutputID(in.RenderJobID), in.ProjectID
	filename := "render-" + in.RenderJobID + format.Ext()
	asset := domain.Asset{AssetID: id, ProjectID: &project, ContentType: format.ContentType(), Filename: &filename,
		Source: domain.SourceRender, JobID: &in.RenderJobID, CreatedBy: in.CreatedBy}
	if _, err := j.h.storeOutput(ctx, jobActor(a.Kind, a.JobID, a.OrganizationID), in.WorkspaceID, asset, out); err != nil {
		return domain.RenderOutput{}, jobFailure(err, domain.RenderFailedCode, "the output could not be stored")
	}
	return domain.RenderOutput{AssetID: id}, nil
}

// renderProbe: an attempt whose worker died (or whose outcome is unknown)
// happened when its output asset is recorded; otherwise nothing of it
// counts (bytes it stored are replaced by the next attempt's).
func (j *Jobs) renderProbe(ctx context.Context, a *jobs.Attempt[domain.RenderJob]) (domain.RenderOutput, bool, error) {
	id := renderOutputID(a.Input.RenderJobID)
	found, err := j.h.recordedAsset(ctx, a.OrganizationID, id)
	if err != nil || !found {
		return domain.RenderOutput{}, false, err
	}
	return domain.RenderOutput{AssetID: id}, true, nil
}

var errNotFoundComposition = errs.NotFound("composition version")

// compositionOf reads a composition version of the organization from the
// write side (errs.NotFound for another's or a missing one).
func (h *Handlers) compositionOf(ctx context.Context, organizationID, id string) (domain.Composition, error) {
	history, err := workspace.LoadOwn(ctx, h.store, organizationID, id, "the studio's")
	if err != nil {
		return domain.Composition{}, err
	}
	cm, err := domain.LoadComposition(commands.Recorded(history))
	if err != nil {
		return domain.Composition{}, err
	}
	if !cm.Exists() {
		return domain.Composition{}, errNotFoundComposition
	}
	return cm.State(), nil
}
