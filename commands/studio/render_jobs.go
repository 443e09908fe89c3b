package studio

import (
	"context"
	"time"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
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
	return object[*domain.RenderJobModel, domain.RenderJob]{streamType: domain.StreamRenderJob, id: id, what: "render job", guard: g,
		load: domain.LoadRenderJob, answer: (*domain.RenderJobModel).State}
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
	g := &guard{org: p.OrganizationID, workspace: ws.ID, project: in.ProjectID, quota: h.quota(p.OrganizationID, ws.ID, domain.QuotaRenders)}
	if version != "" {
		g.nameIn("/compositionVersionId", KindComposition, version, in.ProjectID)
	}
	var claim *domain.QuotaClaim
	res, err := h.renderJob(id, g).withWrites(func(j domain.RenderJob) []eventstore.Write {
		return []eventstore.Write{register(p.OrganizationID, ws.ID, KindRenderJob, j.RenderJobID, j.ProjectID, ""), g.quota.count()}
	}).run(ctx, h, meta(m, p), func(rm *domain.RenderJobModel) ([]event.Change, error) {
		if version == "" { // the project stands (the guard said so) but has no version
			return nil, errs.InvalidField("/compositionVersionId", "the project has no composition version to render: create one or name it")
		}
		if claim, err = g.quota.claim(); err != nil {
			return nil, err
		}
		n := domain.NewRenderJob{ID: id, ProjectID: in.ProjectID, WorkspaceID: ws.ID, CompositionVersionID: version, CreatedBy: Actor(p), Quota: claim}
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
// workspace's.
func (h *Handlers) UpdateRenderJob(ctx context.Context, m commands.Meta, p principal.Principal, in UpdateRenderJob) (commands.Result[domain.RenderJob], error) {
	ws, err := h.Enter(ctx, p, in.WorkspaceSlug, PermExportsRead)
	if err != nil {
		return commands.Result[domain.RenderJob]{}, err
	}
	g := &guard{org: p.OrganizationID, workspace: ws.ID, project: in.ProjectID, object: in.RenderJobID}
	if in.OutputAssetID != nil {
		g.name("/outputAssetId", KindAsset, *in.OutputAssetID)
	}
	return h.renderJob(in.RenderJobID, g).run(ctx, h, meta(m, p), func(rm *domain.RenderJobModel) ([]event.Change, error) {
		if err := rm.In(ws.ID, in.ProjectID); err != nil {
			return nil, err
		}
		return rm.Report(domain.RenderReport{RenderStatus: in.RenderStatus, Progress: in.Progress, FailureReason: in.FailureReason,
			OutputAssetID: in.OutputAssetID, StartedAt: in.StartedAt, CompletedAt: in.CompletedAt}, h.now())
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
	g := &guard{org: p.OrganizationID, workspace: ws.ID, project: in.ProjectID, object: in.RenderJobID}
	return h.renderJob(in.RenderJobID, g).run(ctx, h, meta(m, p), func(rm *domain.RenderJobModel) ([]event.Change, error) {
		if err := rm.In(ws.ID, in.ProjectID); err != nil {
			return nil, err
		}
		return rm.Cancel(h.now())
	})
}
