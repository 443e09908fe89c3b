package design

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	domain "github.com/platform/backend/domain/design"
	"github.com/platform/backend/projections"
)

// Queries reads the active generation of the design read model. Every
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

const what = "the design read model"

func docs[T any](ctx context.Context, q *Queries, sql string, args ...any) ([]T, error) {
	return projections.Docs[T](ctx, q.pool, q.reader, Projection{}, what, sql, args...)
}

func one[T any](ctx context.Context, q *Queries, missing, sql string, args ...any) (T, error) {
	return projections.One[T](ctx, q.pool, q.reader, Projection{}, what, missing, sql, args...)
}

// ProjectPage is a page of projects, newest first.
type ProjectPage struct {
	Projects   []domain.Project `json:"projects"`
	NextCursor *string          `json:"nextCursor"`
}

func (q *Queries) Projects(ctx context.Context, s Scope, p Page) (ProjectPage, error) {
	list, err := docs[domain.Project](ctx, q, `SELECT doc FROM {{design_projects}} WHERE organization_id = $1 AND workspace_id = $2
		AND NOT deleted AND ($3 = '' OR project_id < $3) ORDER BY project_id DESC LIMIT $4`, s.Organization, s.Workspace, p.Cursor, p.Size()+1)
	out := ProjectPage{}
	out.Projects, out.NextCursor = projections.Cut(list, p, func(x domain.Project) string { return x.ProjectID })
	return out, err
}

func (q *Queries) Project(ctx context.Context, s Scope, id string) (domain.Project, error) {
	return one[domain.Project](ctx, q, "project", `SELECT doc FROM {{design_projects}} WHERE organization_id = $1 AND workspace_id = $2
		AND project_id = $3 AND NOT deleted`, s.Organization, s.Workspace, id)
}

// DesignPage is a page of design summaries, newest first.
type DesignPage struct {
	Designs    []Summary `json:"designs"`
	NextCursor *string   `json:"nextCursor"`
}

// Designs lists the workspace's designs (of one project when named).
func (q *Queries) Designs(ctx context.Context, s Scope, project string, p Page) (DesignPage, error) {
	list, err := docs[Summary](ctx, q, `SELECT summary FROM {{design_designs}} WHERE organization_id = $1 AND workspace_id = $2
		AND NOT deleted AND ($3 = '' OR project_id = $3) AND ($4 = '' OR design_id < $4) ORDER BY design_id DESC LIMIT $5`,
		s.Organization, s.Workspace, project, p.Cursor, p.Size()+1)
	out := DesignPage{}
	out.Designs, out.NextCursor = projections.Cut(list, p, func(x Summary) string { return x.DesignID })
	return out, err
}

// Design is one live design of the workspace, whole.
func (q *Queries) Design(ctx context.Context, s Scope, id string) (domain.Design, error) {
	return one[domain.Design](ctx, q, "design", `SELECT doc FROM {{design_designs}} WHERE organization_id = $1 AND workspace_id = $2
		AND design_id = $3 AND NOT deleted`, s.Organization, s.Workspace, id)
}

// AssetPage is a page of the workspace's images, newest first.
type AssetPage struct {
	Assets     []domain.Asset `json:"assets"`
	NextCursor *string        `json:"nextCursor"`
}

func (q *Queries) Assets(ctx context.Context, s Scope, p Page) (AssetPage, error) {
	list, err := docs[domain.Asset](ctx, q, `SELECT doc FROM {{design_assets}} WHERE organization_id = $1 AND workspace_id = $2
		AND NOT deleted AND ($3 = '' OR asset_id < $3) ORDER BY asset_id DESC LIMIT $4`, s.Organization, s.Workspace, p.Cursor, p.Size()+1)
	out := AssetPage{}
	out.Assets, out.NextCursor = projections.Cut(list, p, func(x domain.Asset) string { return x.AssetID })
	return out, err
}

func (q *Queries) Asset(ctx context.Context, s Scope, id string) (domain.Asset, error) {
	return one[domain.Asset](ctx, q, "asset", `SELECT doc FROM {{design_assets}} WHERE organization_id = $1 AND workspace_id = $2
		AND asset_id = $3 AND NOT deleted`, s.Organization, s.Workspace, id)
}

// Exports are a design's exports, newest first (at most 200).
func (q *Queries) Exports(ctx context.Context, s Scope, design string) ([]domain.Export, error) {
	return docs[domain.Export](ctx, q, `SELECT doc FROM {{design_exports}} WHERE organization_id = $1 AND workspace_id = $2
		AND design_id = $3 ORDER BY export_id DESC LIMIT 200`, s.Organization, s.Workspace, design)
}

func (q *Queries) Export(ctx context.Context, s Scope, id string) (domain.Export, error) {
	return one[domain.Export](ctx, q, "export", `SELECT doc FROM {{design_exports}} WHERE organization_id = $1 AND workspace_id = $2
		AND export_id = $3`, s.Organization, s.Workspace, id)
}

// Counts are the widget's figures for the workspaces a caller may enter
// (nil: every workspace of the organization).
type Counts struct {
	Projects int `json:"projects"`
	Designs  int `json:"designs"`
	// Rendering are exports queued or rendering; Ready those ready.
	Rendering int `json:"exportsRendering"`
	Ready     int `json:"exportsReady"`
}

func (q *Queries) Counts(ctx context.Context, org string, workspaces []string) (Counts, error) {
	return projections.Row(ctx, q.pool, q.reader, Projection{}, what, "counts", `SELECT
		(SELECT count(*) FROM {{design_projects}} WHERE organization_id = $1 AND NOT deleted AND ($2::text[] IS NULL OR workspace_id = ANY($2))),
		(SELECT count(*) FROM {{design_designs}} WHERE organization_id = $1 AND NOT deleted AND ($2::text[] IS NULL OR workspace_id = ANY($2))),
		(SELECT count(*) FROM {{design_exports}} WHERE organization_id = $1 AND status IN ('queued', 'rendering')
			AND ($2::text[] IS NULL OR workspace_id = ANY($2))),
		(SELECT count(*) FROM {{design_exports}} WHERE organization_id = $1 AND status = 'ready' AND ($2::text[] IS NULL OR workspace_id = ANY($2)))`,
		func(r pgx.Row) (Counts, error) {
			var c Counts
			return c, r.Scan(&c.Projects, &c.Designs, &c.Rendering, &c.Ready)
		}, org, workspaces)
}

// Export is the organization's data export: every project, design, image
// and export record of every workspace (no file keys, no links).
type Export struct {
	OrganizationID string           `json:"organizationId"`
	Projects       []domain.Project `json:"projects"`
	Designs        []domain.Design  `json:"designs"`
	Assets         []domain.Asset   `json:"assets"`
	Exports        []domain.Export  `json:"exports"`
}

func (q *Queries) OrganizationData(ctx context.Context, org string) (Export, error) {
	out := Export{OrganizationID: org}
	var err error
	if out.Projects, err = docs[domain.Project](ctx, q, `SELECT doc FROM {{design_projects}} WHERE organization_id = $1 ORDER BY project_id`, org); err != nil {
		return Export{}, err
	}
	if out.Designs, err = docs[domain.Design](ctx, q, `SELECT doc FROM {{design_designs}} WHERE organization_id = $1 ORDER BY design_id`, org); err != nil {
		return Export{}, err
	}
	if out.Assets, err = docs[domain.Asset](ctx, q, `SELECT doc FROM {{design_assets}} WHERE organization_id = $1 ORDER BY asset_id`, org); err != nil {
		return Export{}, err
	}
	out.Exports, err = docs[domain.Export](ctx, q, `SELECT doc FROM {{design_exports}} WHERE organization_id = $1 ORDER BY export_id`, org)
	return out, err
}
