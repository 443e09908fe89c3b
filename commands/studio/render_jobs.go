package studio

import (
	"context"
	"time"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/commands/jobs"
	"github.com/platform/backend/commands/workspace"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	domjobs "github.com/platform/backend/domain/jobs"
	"github.com/platform/backend/domain/principal"
	domain "github.com/platform/backend/domain/studio"
	"github.com/platform/backend/eventstore"
)

// CreateRenderJob is projects.render_jobs.create.
type CreateRenderJob struct {
	WorkspaceSlug        string  `json:"workspaceSlug"`
	ProjectID            string  `json:"projectId"`
	CompositionVersionID *string `json:"compositionVersionId"`
	Provider             *string `json:"provider"`
	OutputFormat         *string `json:"outputFormat"`
	Priority             *int    `json:"priority"`
}

// renderJob is a command on a render job's stream.
func (h *Handlers) renderJob(id string, g *guard) object[*domain.RenderJobModel, domain.RenderJob] {
	return object[*domain.RenderJobModel, domain.RenderJob]{StreamType: domain.StreamRenderJob, ID: id, What: "render job", Guard: g,
		Load: domain.LoadRenderJob, Answer: (*domain.RenderJobModel).State}
}

// CreateRenderJob queues a render of a composition version of the project
// (the project's latest one when none is named), counted against the
// workspace's monthly render quota. The job kernel runs it (or an external
// renderer reports on it through projects.render_jobs.update).
func (h *Handlers) CreateRenderJob(ctx context.Context, m commands.Meta, p principal.Principal, in CreateRenderJob) (commands.Result[domain.RenderJob], error) {
	var none commands.Result[domain.RenderJob]
	ws, err := h.Enter(ctx, p, in.WorkspaceSlug, PermExportsRead)
	if err != nil {
		return none, err
	}
	version := ""
	if in.CompositionVersionID != nil {
		version = *in.CompositionVersionID
	} else if version, err = h.latestComposition(ctx, p.OrganizationID, ws.ID, in.ProjectID); err != nil {
		return none, err
	}
	id := newID()
	q := h.quota(p.OrganizationID, ws.ID, domain.QuotaRenders)
	g := &guard{Registry: registry, Org: p.OrganizationID, Workspace: ws.ID, Project: in.ProjectID}
	g.Also = append(g.Also, q.prepare)
	if version != "" {
		g.RefIn("/compositionVersionId", KindComposition, version, in.ProjectID)
	}
	var claim *domain.QuotaClaim
	res, err := h.renderJob(id, g).WithWrites(func(j domain.RenderJob) []eventstore.Write {
		return []eventstore.Write{registry.Register(p.OrganizationID, ws.ID, KindRenderJob, j.RenderJobID, j.ProjectID, ""), q.count()}
	}).Run(ctx, h.store, meta(m, p), func(rm *domain.RenderJobModel) ([]event.Change, error) {
		if version == "" { // the project stands (the guard said so) but has no version
			return nil, errs.InvalidField("/compositionVersionId", "the project has no composition version to render: create one or name it")
		}
		if claim, err = q.claim(); err != nil {
			return nil, err
		}
		n := domain.NewRenderJob{ID: id, ProjectID: in.ProjectID, WorkspaceID: ws.ID, CompositionVersionID: version, CreatedBy: p.Author(), Quota: claim}
		if in.Provider != nil {
			n.Provider = *in.Provider
		}
		if in.OutputFormat != nil {
			n.OutputFormat = *in.OutputFormat
		}
		if in.Priority != nil {
			n.Priority = *in.Priority
		}
		return rm.Create(n, h.now())
	})
	if err == nil && !res.Replayed {
		h.warnLogged(ctx, meta(m, p), ws.ID, claim)
	}
	if err == nil {
		h.requestRender(ctx, jobMeta(meta(m, p)), res.Value)
	}
	return res, err
}

// latestComposition is the project's newest live composition version (""
// when it has none).
func (h *Handlers) latestComposition(ctx context.Context, org, workspace, project string) (string, error) {
	var id string
	err := h.pool.QueryRow(ctx, `SELECT coalesce((SELECT object_id FROM studio_objects WHERE organization_id = $1 AND workspace_id = $2
		AND project_id = $3 AND kind = 'composition' AND live ORDER BY created_at DESC, object_id DESC LIMIT 1), '')`,
		org, workspace, project).Scan(&id)
	if err != nil {
		return "", errs.Unavailable("the studio's store is unavailable", err)
	}
	return id, nil
}

// UpdateRenderJob is projects.render_jobs.update: a renderer's report.
type UpdateRenderJob struct {
	WorkspaceSlug string     `json:"workspaceSlug"`
	ProjectID     string     `json:"projectId"`
	RenderJobID   string     `json:"renderJobId"`
	RenderStatus  *string    `json:"renderStatus"`
	Progress      *int       `json:"progress"`
	FailureReason *string    `json:"failureReason"`
	OutputAssetID *string    `json:"outputAssetId"`
	StartedAt     *time.Time `json:"startedAt"`
	CompletedAt   *time.Time `json:"completedAt"`
}

// UpdateRenderJob moves a job along the render machine (terminal stays
// terminal: 409 invalid_transition); an output asset must be the
// workspace's. An external renderer's job moves on its own stream; a
// platform render's report goes to its kernel job (reportPlatform).
func (h *Handlers) UpdateRenderJob(ctx context.Context, m commands.Meta, p principal.Principal, in UpdateRenderJob) (commands.Result[domain.RenderJob], error) {
	ws, err := h.Enter(ctx, p, in.WorkspaceSlug, PermExportsRead)
	if err != nil {
		return commands.Result[domain.RenderJob]{}, err
	}
	report := domain.RenderReport{RenderStatus: in.RenderStatus, Progress: in.Progress, FailureReason: in.FailureReason,
		OutputAssetID: in.OutputAssetID, StartedAt: in.StartedAt, CompletedAt: in.CompletedAt}
	created, err := h.renderJobIn(ctx, p.OrganizationID, ws.ID, in.ProjectID, in.RenderJobID)
	if err != nil {
		return commands.Result[domain.RenderJob]{}, err
	}
	if created.Platform() {
		return h.reportPlatform(ctx, meta(m, p), ws.ID, created, report)
	}
	g := &guard{Registry: registry, Org: p.OrganizationID, Workspace: ws.ID, Project: in.ProjectID, Object: in.RenderJobID}
	if in.OutputAssetID != nil {
		g.Ref("/outputAssetId", KindAsset, *in.OutputAssetID)
	}
	return h.renderJob(in.RenderJobID, g).Run(ctx, h.store, meta(m, p), func(rm *domain.RenderJobModel) ([]event.Change, error) {
		if err := rm.In(ws.ID, in.ProjectID); err != nil {
			return nil, err
		}
		return rm.Report(report, h.now())
	})
}

// RenderJobRef names a render job.
type RenderJobRef struct {
	WorkspaceSlug string `json:"workspaceSlug"`
	ProjectID     string `json:"projectId"`
	RenderJobID   string `json:"renderJobId"`
}

// CancelRenderJob is projects.render_jobs.cancel: a queued or rendering job
// stops for good; a cancelled job never completes.
func (h *Handlers) CancelRenderJob(ctx context.Context, m commands.Meta, p principal.Principal, in RenderJobRef) (commands.Result[domain.RenderJob], error) {
	ws, err := h.Enter(ctx, p, in.WorkspaceSlug, PermExportsRead)
	if err != nil {
		return commands.Result[domain.RenderJob]{}, err
	}
	created, err := h.renderJobIn(ctx, p.OrganizationID, ws.ID, in.ProjectID, in.RenderJobID)
	if err != nil {
		return commands.Result[domain.RenderJob]{}, err
	}
	if created.Platform() {
		cancelled := domain.RenderCancelled
		return h.reportPlatform(ctx, meta(m, p), ws.ID, created, domain.RenderReport{RenderStatus: &cancelled})
	}
	g := &guard{Registry: registry, Org: p.OrganizationID, Workspace: ws.ID, Project: in.ProjectID, Object: in.RenderJobID}
	return h.renderJob(in.RenderJobID, g).Run(ctx, h.store, meta(m, p), func(rm *domain.RenderJobModel) ([]event.Change, error) {
		if err := rm.In(ws.ID, in.ProjectID); err != nil {
			return nil, err
		}
		return rm.Cancel(h.now())
	})
}

// renderJobIn reads a live render job of a project of the workspace as
// created (404 for another organization's, workspace's or project's, and
// once erased).
func (h *Handlers) renderJobIn(ctx context.Context, org, workspaceID, projectID, id string) (domain.RenderJob, error) {
	live, err := h.registered(ctx, org, workspaceID, KindRenderJob, id)
	if err != nil {
		return domain.RenderJob{}, err
	}
	history, err := workspace.LoadOwn(ctx, h.store, org, id, "the studio's")
	if err != nil {
		return domain.RenderJob{}, err
	}
	rm, err := domain.LoadRenderJob(commands.Recorded(history))
	if err != nil {
		return domain.RenderJob{}, err
	}
	if err := rm.In(workspaceID, projectID); err != nil || !live {
		return domain.RenderJob{}, errs.NotFound("render job")
	}
	return rm.State(), nil
}

// registered reports whether the registry knows a live object of a kind
// in the organization's workspace.
func (h *Handlers) registered(ctx context.Context, org, workspaceID, kind, id string) (bool, error) {
	live, err := registry.Live(ctx, h.pool, org, workspaceID, kind, id)
	if err != nil {
		return false, errs.Unavailable("the studio's store is unavailable", err)
	}
	return live, nil
}

// reportPlatform applies a report to a platform render's kernel job, on
// the render machine's terms (domain.PlatformReport; RenderGuard again
// under the job's lock): cancelled cancels the job (a running attempt is
// stopped, and nothing it does afterwards completes the job), completed
// (with an output asset of the workspace) or failed settles its running
// attempt. The answer is the render job as the job leaves it.
func (h *Handlers) reportPlatform(ctx context.Context, m commands.Meta, workspaceID string, created domain.RenderJob,
	r domain.RenderReport) (commands.Result[domain.RenderJob], error) {
	var none commands.Result[domain.RenderJob]
	if h.jobs == nil {
		return none, errs.Unavailable("the studio's render jobs are not available", nil)
	}
	kind := h.jobs.render
	job, err := kind.Load(ctx, m.OrganizationID, created.RenderJobID)
	if errs.KindOf(err) == errs.KindNotFound {
		// Not requested yet (its command's process stopped first, and the
		// reactor has not caught up): requested now, then reported on.
		var res commands.Result[domjobs.Job]
		res, err = kind.Request(ctx, jobMeta(m), created.RenderJobID, created, jobs.RequestOptions{Priority: created.Priority})
		job = res.Value
	}
	if err != nil {
		return none, err
	}
	move, err := domain.PlatformReport(domain.RenderJobOf(created, job), r)
	if err != nil {
		return none, err
	}
	if move.AssetID != "" {
		live, err := h.registered(ctx, m.OrganizationID, workspaceID, KindAsset, move.AssetID)
		if err != nil {
			return none, err
		}
		if !live {
			return none, errs.InvalidField("/outputAssetId", "no such asset in this workspace")
		}
	}
	guard := jobs.Guard(domain.RenderGuard(created, move.To))
	var res commands.Result[domjobs.Job]
	switch {
	case move.Cancel:
		res, err = kind.Cancel(ctx, m, created.RenderJobID, "cancelled by "+m.Actor.ID, guard)
	case move.AssetID != "":
		res, err = kind.Report(ctx, m, created.RenderJobID, 0, domain.RenderOutput{AssetID: move.AssetID}, nil, guard)
	default:
		res, err = kind.Report(ctx, m, created.RenderJobID, 0, domain.RenderOutput{}, jobs.Fail(domain.RenderFailedCode, move.Reason), guard)
	}
	if err != nil {
		return none, err
	}
	return commands.Result[domain.RenderJob]{Value: domain.RenderJobOf(created, res.Value), Position: res.Position, Replayed: res.Replayed}, nil
}
