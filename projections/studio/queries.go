package studio

import (
	"context"
	"encoding/json"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	domain "github.com/platform/backend/domain/studio"
	"github.com/platform/backend/projections"
)

// Queries reads the active generation of the studio read model. Every
// query names the organization and the workspace: another's ids are
// missing ones.
type Queries struct {
	pool   *pgxpool.Pool
	reader *projections.Reader
}

func NewQueries(pool *pgxpool.Pool, reader *projections.Reader) *Queries {
	return &Queries{pool: pool, reader: reader}
}

// Scope and Page are the workspace read models' (projections.Scope, Page).
type (
	Scope = projections.Scope
	Page  = projections.Page
)

// what names the read model in an outage's answer.
const what = "the studio's read model"

// docs runs a query of doc columns and decodes each into T.
func docs[T any](ctx context.Context, q *Queries, sql string, args ...any) ([]T, error) {
	return projections.Docs[T](ctx, q.pool, q.reader, Projection{}, what, sql, args...)
}

// one is docs for a single row: 404 (missing) when there is none.
func one[T any](ctx context.Context, q *Queries, missing, sql string, args ...any) (T, error) {
	return projections.One[T](ctx, q.pool, q.reader, Projection{}, what, missing, sql, args...)
}

// ProjectPage is a page of projects, newest first.
type ProjectPage struct {
	Projects   []domain.Project `json:"projects"`
	NextCursor *string          `json:"nextCursor"`
}

// Projects lists the workspace's projects, newest first.
func (q *Queries) Projects(ctx context.Context, s Scope, p Page) (ProjectPage, error) {
	list, err := docs[domain.Project](ctx, q, `SELECT doc FROM {{studio_projects}} WHERE organization_id = $1 AND workspace_id = $2
		AND NOT deleted AND ($3 = '' OR project_id < $3) ORDER BY project_id DESC LIMIT $4`, s.Organization, s.Workspace, p.Cursor, p.Size()+1)
	if err != nil {
		return ProjectPage{}, err
	}
	out := ProjectPage{}
	out.Projects, out.NextCursor = projections.Cut(list, p, func(x domain.Project) string { return x.ProjectID })
	return out, nil
}

// Project is one live project of the workspace.
func (q *Queries) Project(ctx context.Context, s Scope, id string) (domain.Project, error) {
	return one[domain.Project](ctx, q, "project", `SELECT doc FROM {{studio_projects}} WHERE organization_id = $1 AND workspace_id = $2
		AND project_id = $3 AND NOT deleted`, s.Organization, s.Workspace, id)
}

// Scenes are a project's scenes in order.
func (q *Queries) Scenes(ctx context.Context, s Scope, project string) ([]domain.Scene, error) {
	return docs[domain.Scene](ctx, q, `SELECT doc FROM {{studio_scenes}} WHERE organization_id = $1 AND workspace_id = $2 AND project_id = $3
		ORDER BY position`, s.Organization, s.Workspace, project)
}

// Approvals are a project's approval requests, newest first.
func (q *Queries) Approvals(ctx context.Context, s Scope, project string) ([]domain.Approval, error) {
	return docs[domain.Approval](ctx, q, `SELECT doc FROM {{studio_approvals}} WHERE organization_id = $1 AND workspace_id = $2 AND project_id = $3
		ORDER BY requested_at DESC, approval_request_id DESC`, s.Organization, s.Workspace, project)
}

// OpenApproval is an approval request still waiting for its decision,
// with where it is and what it is about.
type OpenApproval struct {
	domain.Approval
	WorkspaceID  string `json:"workspaceId"`
	ProjectTitle string `json:"projectTitle"`
}

// OpenApprovals are the organization's approval requests waiting for a
// decision, oldest first, in the given workspaces (nil: every one) of live
// projects, at most limit of them (the dashboard's action queue).
func (q *Queries) OpenApprovals(ctx context.Context, org string, workspaces []string, limit int) ([]OpenApproval, error) {
	return docs[OpenApproval](ctx, q, `SELECT a.doc || jsonb_build_object('workspaceId', a.workspace_id, 'projectTitle', p.doc->>'title')
		FROM {{studio_approvals}} a JOIN {{studio_projects}} p ON p.project_id = a.project_id AND NOT p.deleted
		WHERE a.organization_id = $1 AND a.status = 'requested' AND ($2::text[] IS NULL OR a.workspace_id = ANY($2))
		ORDER BY a.requested_at, a.approval_request_id LIMIT $3`, org, workspaces, limit)
}

// Compositions are a project's composition versions, newest first.
func (q *Queries) Compositions(ctx context.Context, s Scope, project string) ([]domain.Composition, error) {
	return docs[domain.Composition](ctx, q, `SELECT doc FROM {{studio_compositions}} WHERE organization_id = $1 AND workspace_id = $2
		AND project_id = $3 ORDER BY created_at DESC, composition_version_id DESC`, s.Organization, s.Workspace, project)
}

// Composition is one composition version of a project.
func (q *Queries) Composition(ctx context.Context, s Scope, project, id string) (domain.Composition, error) {
	return one[domain.Composition](ctx, q, "composition version", `SELECT doc FROM {{studio_compositions}} WHERE organization_id = $1
		AND workspace_id = $2 AND project_id = $3 AND composition_version_id = $4`, s.Organization, s.Workspace, project, id)
}

// RenderJobs are a project's render jobs in queue order: priority, then age.
func (q *Queries) RenderJobs(ctx context.Context, s Scope, project, status string) ([]domain.RenderJob, error) {
	return docs[domain.RenderJob](ctx, q, `SELECT doc FROM {{studio_render_jobs}} WHERE organization_id = $1 AND workspace_id = $2
		AND project_id = $3 AND ($4 = '' OR status = $4) ORDER BY priority DESC, render_job_id`, s.Organization, s.Workspace, project, status)
}

// RenderJob is one render job of a project.
func (q *Queries) RenderJob(ctx context.Context, s Scope, project, id string) (domain.RenderJob, error) {
	return one[domain.RenderJob](ctx, q, "render job", `SELECT doc FROM {{studio_render_jobs}} WHERE organization_id = $1 AND workspace_id = $2
		AND project_id = $3 AND render_job_id = $4`, s.Organization, s.Workspace, project, id)
}

// Generations are a project's generation requests of a kind, newest first.
func (q *Queries) Generations(ctx context.Context, s Scope, project, kind string, limit int) ([]domain.Generation, error) {
	return docs[domain.Generation](ctx, q, `SELECT doc FROM {{studio_generations}} WHERE organization_id = $1 AND workspace_id = $2
		AND project_id = $3 AND kind = $4 ORDER BY generation_id DESC LIMIT $5`, s.Organization, s.Workspace, project, kind, limit)
}

// AssetFilter selects assets: of one project, or of a kind.
type AssetFilter struct {
	ProjectID string
	Kind      string
	Page
}

// AssetPage is a page of assets, newest first.
type AssetPage struct {
	Assets     []domain.Asset `json:"assets"`
	NextCursor *string        `json:"nextCursor"`
}

// Assets lists the workspace's live assets, newest first.
func (q *Queries) Assets(ctx context.Context, s Scope, f AssetFilter) (AssetPage, error) {
	list, err := docs[domain.Asset](ctx, q, `SELECT doc FROM {{studio_assets}} WHERE organization_id = $1 AND workspace_id = $2 AND NOT deleted
		AND ($3 = '' OR project_id = $3) AND ($4 = '' OR kind = $4) AND ($5 = '' OR asset_id < $5) ORDER BY asset_id DESC LIMIT $6`,
		s.Organization, s.Workspace, f.ProjectID, f.Kind, f.Cursor, f.Size()+1)
	if err != nil {
		return AssetPage{}, err
	}
	out := AssetPage{}
	out.Assets, out.NextCursor = projections.Cut(list, f.Page, func(x domain.Asset) string { return x.AssetID })
	return out, nil
}

// Asset is one live asset of the workspace.
func (q *Queries) Asset(ctx context.Context, s Scope, id string) (domain.Asset, error) {
	return one[domain.Asset](ctx, q, "asset", `SELECT doc FROM {{studio_assets}} WHERE organization_id = $1 AND workspace_id = $2
		AND asset_id = $3 AND NOT deleted`, s.Organization, s.Workspace, id)
}

// Templates are the workspace's project templates, oldest first.
func (q *Queries) Templates(ctx context.Context, s Scope) ([]domain.Template, error) {
	return docs[domain.Template](ctx, q, `SELECT doc FROM {{studio_templates}} WHERE organization_id = $1 AND workspace_id = $2
		ORDER BY created_at, template_id`, s.Organization, s.Workspace)
}

// Presets are the workspace's presets, oldest first.
func (q *Queries) Presets(ctx context.Context, s Scope) ([]domain.Preset, error) {
	return docs[domain.Preset](ctx, q, `SELECT doc FROM {{studio_presets}} WHERE organization_id = $1 AND workspace_id = $2
		ORDER BY created_at, preset_id`, s.Organization, s.Workspace)
}

// QuotaUse is one action's count in a month.
type QuotaUse struct {
	Action    string     `json:"action"`
	PeriodKey string     `json:"periodKey"`
	Used      int        `json:"used"`
	Limit     int        `json:"limit"`
	WarningID *string    `json:"warningId"`
	Warning   *string    `json:"warning"`
	WarnedAt  *time.Time `json:"warnedAt"`
}

// Quota is the workspace's counts of a month.
func (q *Queries) Quota(ctx context.Context, s Scope, period string) ([]QuotaUse, error) {
	return projections.Rows(ctx, q.pool, q.reader, Projection{}, what, `SELECT action, period, used, quota_limit, warning_id, warning,
		warned_at FROM {{studio_quota}} WHERE organization_id = $1 AND workspace_id = $2 AND period = $3 ORDER BY action`,
		func(r pgx.Row) (QuotaUse, error) {
			var u QuotaUse
			return u, r.Scan(&u.Action, &u.PeriodKey, &u.Used, &u.Limit, &u.WarningID, &u.Warning, &u.WarnedAt)
		}, s.Organization, s.Workspace, period)
}

// Counts are a workspace's (or a project's) numbers at a glance.
type Counts struct {
	Projects         int            `json:"projects"`
	Assets           int            `json:"assets"`
	Compositions     int            `json:"compositions"`
	PendingApprovals int            `json:"pendingApprovals"`
	RenderJobs       map[string]int `json:"renderJobs"`
	LastUpdatedAt    *time.Time     `json:"lastUpdatedAt"`
}

// Counts counts a workspace's objects (of one project when project is set).
func (q *Queries) Counts(ctx context.Context, s Scope, project string) (Counts, error) {
	return projections.Row(ctx, q.pool, q.reader, Projection{}, what, "counts", `SELECT
		(SELECT count(*) FROM {{studio_projects}} WHERE organization_id = $1 AND workspace_id = $2 AND NOT deleted AND ($3 = '' OR project_id = $3)),
		(SELECT count(*) FROM {{studio_assets}} WHERE organization_id = $1 AND workspace_id = $2 AND NOT deleted AND ($3 = '' OR project_id = $3)),
		(SELECT count(*) FROM {{studio_compositions}} WHERE organization_id = $1 AND workspace_id = $2 AND ($3 = '' OR project_id = $3)),
		(SELECT count(*) FROM {{studio_approvals}} WHERE organization_id = $1 AND workspace_id = $2 AND status = 'requested' AND ($3 = '' OR project_id = $3)),
		coalesce((SELECT jsonb_object_agg(status, n) FROM (SELECT status, count(*) AS n FROM {{studio_render_jobs}} WHERE organization_id = $1
			AND workspace_id = $2 AND ($3 = '' OR project_id = $3) GROUP BY status) j), '{}'),
		(SELECT max(updated_at) FROM {{studio_projects}} WHERE organization_id = $1 AND workspace_id = $2 AND ($3 = '' OR project_id = $3))`,
		func(r pgx.Row) (Counts, error) {
			var c Counts
			var jobs []byte
			if err := r.Scan(&c.Projects, &c.Assets, &c.Compositions, &c.PendingApprovals, &jobs, &c.LastUpdatedAt); err != nil {
				return c, err
			}
			c.RenderJobs = map[string]int{}
			for _, st := range domain.RenderStatuses {
				c.RenderJobs[st] = 0
			}
			return c, json.Unmarshal(jobs, &c.RenderJobs)
		}, s.Organization, s.Workspace, project)
}

// OrganizationCounts are the organization's numbers across its workspaces
// (of the given ones only, unless nil): the dashboard's widget.
func (q *Queries) OrganizationCounts(ctx context.Context, org string, workspaces []string) (projects, pending, rendering int, err error) {
	n, err := projections.Row(ctx, q.pool, q.reader, Projection{}, what, "counts", `SELECT
		(SELECT count(*) FROM {{studio_projects}} WHERE organization_id = $1 AND NOT deleted AND ($2::text[] IS NULL OR workspace_id = ANY($2))),
		(SELECT count(*) FROM {{studio_approvals}} WHERE organization_id = $1 AND status = 'requested' AND ($2::text[] IS NULL OR workspace_id = ANY($2))),
		(SELECT count(*) FROM {{studio_render_jobs}} WHERE organization_id = $1 AND status IN ('queued', 'rendering')
			AND ($2::text[] IS NULL OR workspace_id = ANY($2)))`, func(r pgx.Row) (n [3]int, err error) {
		return n, r.Scan(&n[0], &n[1], &n[2])
	}, org, workspaces)
	return n[0], n[1], n[2], err
}

// ProjectOf is a live project of the organization in any workspace (the
// mobile routes name a project without its workspace).
func (q *Queries) ProjectOf(ctx context.Context, org, id string) (domain.Project, error) {
	return one[domain.Project](ctx, q, "project", `SELECT doc FROM {{studio_projects}} WHERE organization_id = $1 AND project_id = $2
		AND NOT deleted`, org, id)
}

// Export is everything the studio holds of an organization, as its read
// model shows it: no credentials, no object-store keys, no signed links.
type Export struct {
	OrganizationID string               `json:"organizationId"`
	ExportedAt     time.Time            `json:"exportedAt"`
	Projects       []domain.Project     `json:"projects"`
	Scenes         []ExportedScene      `json:"scenes"`
	Approvals      []domain.Approval    `json:"approvals"`
	Compositions   []domain.Composition `json:"compositions"`
	RenderJobs     []domain.RenderJob   `json:"renderJobs"`
	Generations    []domain.Generation  `json:"generations"`
	Assets         []domain.Asset       `json:"assets"`
	Templates      []domain.Template    `json:"templates"`
	Presets        []domain.Preset      `json:"presets"`
	Quotas         []ExportedQuota      `json:"quotas"`
}

// ExportedScene is a scene with its project.
type ExportedScene struct {
	ProjectID string `json:"projectId"`
	domain.Scene
}

// ExportedQuota is a month's count with its workspace.
type ExportedQuota struct {
	WorkspaceID string `json:"workspaceId"`
	QuotaUse
}

// into loads docs into dst unless an earlier load failed.
func into[T any](ctx context.Context, q *Queries, failed error, dst *[]T, org, sql string) error {
	if failed != nil {
		return failed
	}
	var err error
	*dst, err = docs[T](ctx, q, sql, org)
	return err
}

// Export reads every row of the organization (deleted projects and assets
// included: they are data the organization holds).
func (q *Queries) Export(ctx context.Context, org string, now time.Time) (Export, error) {
	out := Export{OrganizationID: org, ExportedAt: now}
	var err error
	err = into(ctx, q, err, &out.Projects, org, `SELECT doc FROM {{studio_projects}} WHERE organization_id = $1 ORDER BY project_id`)
	err = into(ctx, q, err, &out.Scenes, org, `SELECT doc || jsonb_build_object('projectId', project_id) FROM {{studio_scenes}} WHERE organization_id = $1
		ORDER BY project_id, position`)
	err = into(ctx, q, err, &out.Approvals, org, `SELECT doc FROM {{studio_approvals}} WHERE organization_id = $1 ORDER BY approval_request_id`)
	err = into(ctx, q, err, &out.Compositions, org, `SELECT doc FROM {{studio_compositions}} WHERE organization_id = $1 ORDER BY composition_version_id`)
	err = into(ctx, q, err, &out.RenderJobs, org, `SELECT doc FROM {{studio_render_jobs}} WHERE organization_id = $1 ORDER BY render_job_id`)
	err = into(ctx, q, err, &out.Generations, org, `SELECT doc FROM {{studio_generations}} WHERE organization_id = $1 ORDER BY generation_id`)
	err = into(ctx, q, err, &out.Assets, org, `SELECT doc FROM {{studio_assets}} WHERE organization_id = $1 ORDER BY asset_id`)
	err = into(ctx, q, err, &out.Templates, org, `SELECT doc FROM {{studio_templates}} WHERE organization_id = $1 ORDER BY template_id`)
	err = into(ctx, q, err, &out.Presets, org, `SELECT doc FROM {{studio_presets}} WHERE organization_id = $1 ORDER BY preset_id`)
	if err != nil {
		return Export{}, err
	}
	out.Quotas, err = projections.Rows(ctx, q.pool, q.reader, Projection{}, what, `SELECT workspace_id, action, period, used, quota_limit,
		warning_id, warning, warned_at FROM {{studio_quota}} WHERE organization_id = $1 ORDER BY workspace_id, period, action`,
		func(r pgx.Row) (ExportedQuota, error) {
			var e ExportedQuota
			return e, r.Scan(&e.WorkspaceID, &e.Action, &e.PeriodKey, &e.Used, &e.Limit, &e.WarningID, &e.Warning, &e.WarnedAt)
		}, org)
	return out, err
}
