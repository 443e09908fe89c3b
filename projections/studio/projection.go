// Package studio is the studio's read model: projects with their scenes and
// approvals, composition versions, render jobs, generation requests,
// assets, templates, presets and the month's quota counts, each row with its
// organization and workspace, and the object's whole state as the events
// carry it (doc).
//
// Erasure: a row is written only while the write side's registry
// (studio_objects) knows its object, and the erasure event deletes the
// rows of the objects the registry forgot. So a projection that lags behind
// an erasure skips the erased objects' events, and a rebuild from offset
// zero (whatever order the partitions deliver the erasure and the objects'
// events in) ends without them; objects made after the erasure are
// registered and shown.
package studio

import (
	"encoding/json"
	"fmt"
	"strings"

	domjobs "github.com/platform/backend/domain/jobs"
	domain "github.com/platform/backend/domain/studio"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/projections"
)

// Name of the projection (consumer group, registry rows).
const Name = "studio"

// Projection builds the studio read model.
type Projection struct{}

var _ projections.Declared = Projection{}

func (Projection) Name() string       { return Name }
func (Projection) Contexts() []string { return []string{"studio"} }

// tables are the read model's tables, each with an organization_id column
// (the erasure deletes by it).
var tables = []string{"studio_projects", "studio_scenes", "studio_approvals", "studio_compositions", "studio_render_jobs",
	"studio_generations", "studio_assets", "studio_templates", "studio_presets", "studio_quota"}

func (Projection) Tables() []string { return tables }

// erasable are the tables an erasure empties of forgotten objects, with the
// column naming the registered object each row belongs to.
var erasable = []struct{ table, registered string }{
	{"studio_projects", "project_id"}, {"studio_scenes", "project_id"}, {"studio_approvals", "project_id"},
	{"studio_compositions", "composition_version_id"}, {"studio_render_jobs", "render_job_id"}, {"studio_generations", "generation_id"},
	{"studio_assets", "asset_id"}, {"studio_templates", "template_id"}, {"studio_presets", "preset_id"},
}

func (Projection) Schema() []string {
	return []string{
		`CREATE TABLE IF NOT EXISTS {{studio_projects}} (project_id text PRIMARY KEY, organization_id text NOT NULL,
			workspace_id text NOT NULL, deleted boolean NOT NULL, created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL,
			doc jsonb NOT NULL) WITH (fillfactor = 70)`,
		`CREATE INDEX IF NOT EXISTS {{studio_projects}}_ws ON {{studio_projects}} (organization_id, workspace_id, project_id DESC) WHERE NOT deleted`,
		`CREATE TABLE IF NOT EXISTS {{studio_scenes}} (project_id text NOT NULL, scene_id text NOT NULL, organization_id text NOT NULL,
			workspace_id text NOT NULL, position int NOT NULL, doc jsonb NOT NULL, PRIMARY KEY (project_id, scene_id))`,
		`CREATE TABLE IF NOT EXISTS {{studio_approvals}} (approval_request_id text PRIMARY KEY, project_id text NOT NULL,
			organization_id text NOT NULL, workspace_id text NOT NULL, status text NOT NULL, requested_at timestamptz NOT NULL, doc jsonb NOT NULL)`,
		`CREATE INDEX IF NOT EXISTS {{studio_approvals}}_project ON {{studio_approvals}} (project_id, requested_at DESC)`,
		`CREATE INDEX IF NOT EXISTS {{studio_approvals}}_ws ON {{studio_approvals}} (organization_id, workspace_id) WHERE status = 'requested'`,
		`CREATE TABLE IF NOT EXISTS {{studio_compositions}} (composition_version_id text PRIMARY KEY, project_id text NOT NULL,
			organization_id text NOT NULL, workspace_id text NOT NULL, created_at timestamptz NOT NULL, doc jsonb NOT NULL)`,
		`CREATE INDEX IF NOT EXISTS {{studio_compositions}}_project ON {{studio_compositions}} (project_id, created_at DESC)`,
		`CREATE TABLE IF NOT EXISTS {{studio_render_jobs}} (render_job_id text PRIMARY KEY, project_id text NOT NULL,
			organization_id text NOT NULL, workspace_id text NOT NULL, status text NOT NULL, priority int NOT NULL,
			created_at timestamptz NOT NULL, doc jsonb NOT NULL) WITH (fillfactor = 70)`,
		`CREATE INDEX IF NOT EXISTS {{studio_render_jobs}}_project ON {{studio_render_jobs}} (project_id, priority DESC, render_job_id)`,
		`CREATE TABLE IF NOT EXISTS {{studio_generations}} (generation_id text PRIMARY KEY, project_id text NOT NULL,
			organization_id text NOT NULL, workspace_id text NOT NULL, kind text NOT NULL, status text NOT NULL,
			created_at timestamptz NOT NULL, doc jsonb NOT NULL)`,
		`CREATE INDEX IF NOT EXISTS {{studio_generations}}_project ON {{studio_generations}} (project_id, kind, generation_id DESC)`,
		`CREATE TABLE IF NOT EXISTS {{studio_assets}} (asset_id text PRIMARY KEY, project_id text, organization_id text NOT NULL,
			workspace_id text NOT NULL, kind text NOT NULL, deleted boolean NOT NULL, created_at timestamptz NOT NULL, doc jsonb NOT NULL)`,
		`CREATE INDEX IF NOT EXISTS {{studio_assets}}_ws ON {{studio_assets}} (organization_id, workspace_id, asset_id DESC) WHERE NOT deleted`,
		`CREATE TABLE IF NOT EXISTS {{studio_templates}} (template_id text PRIMARY KEY, organization_id text NOT NULL,
			workspace_id text NOT NULL, created_at timestamptz NOT NULL, doc jsonb NOT NULL)`,
		`CREATE INDEX IF NOT EXISTS {{studio_templates}}_ws ON {{studio_templates}} (organization_id, workspace_id)`,
		`CREATE TABLE IF NOT EXISTS {{studio_presets}} (preset_id text PRIMARY KEY, organization_id text NOT NULL,
			workspace_id text NOT NULL, created_at timestamptz NOT NULL, doc jsonb NOT NULL)`,
		`CREATE INDEX IF NOT EXISTS {{studio_presets}}_ws ON {{studio_presets}} (organization_id, workspace_id)`,
		`CREATE TABLE IF NOT EXISTS {{studio_quota}} (workspace_id text NOT NULL, action text NOT NULL, period text NOT NULL,
			organization_id text NOT NULL, used int NOT NULL DEFAULT 0, quota_limit int NOT NULL DEFAULT 0, warning_id text, warning text,
			warned_at timestamptz, PRIMARY KEY (workspace_id, action, period))`,
		`CREATE INDEX IF NOT EXISTS {{studio_quota}}_org ON {{studio_quota}} (organization_id)`,
	}
}

func (p Projection) Reduce(e eventstore.Event) ([]projections.Statement, error) {
	return reducers.Reduce(e)
}

// Reducers is the table of what each studio event does to the read model.
func (Projection) Reducers() projections.Reducers { return reducers }

var reducers = projections.Reducers{
	domain.ProjectCreated:      projections.On(projectChanged),
	domain.ProjectUpdated:      projections.On(projectChanged),
	domain.ProjectDeleted:      projections.On(projectChanged),
	domain.ProjectBriefUpdated: projections.On(projectChanged),
	domain.SceneAdded:          projections.On(sceneChanged),
	domain.SceneUpdated:        projections.On(sceneChanged),
	domain.SceneRemoved: projections.On(func(_ eventstore.Event, p domain.SceneV1) ([]projections.Statement, error) {
		return []projections.Statement{
			projections.Exec(`DELETE FROM {{studio_scenes}} WHERE project_id = $1 AND scene_id = $2`, p.ProjectID, p.Scene.SceneID),
			sceneCount(p.ProjectID, p.SceneCount, p.At),
		}, nil
	}),
	domain.PlanReady:          projections.On(planReady),
	domain.ApprovalRequested:  projections.On(approvalChanged),
	domain.ApprovalApproved:   projections.On(approvalChanged),
	domain.ApprovalRejected:   projections.On(approvalChanged),
	domain.CompositionCreated: projections.On(compositionChanged),
	domain.CompositionUpdated: projections.On(compositionChanged),
	// A render job's row is written by its creation, then by its
	// renderer's reports (an external renderer's job) or by its kernel
	// job's events (a platform render: jobRow). The creation inserts only:
	// its kernel job's events, on another stream and partition, may come
	// first (a rebuild, a lagging partition), and carry the render job as
	// created in their input.
	domain.RenderJobCreated: projections.On(func(e eventstore.Event, p domain.RenderJobV1) ([]projections.Statement, error) {
		out, err := renderJobRow(e, p.Job, true)
		return append(out, quotaCounted(e, p.Job.WorkspaceID, p.Job.RenderJobID, p.Quota)...), err
	}),
	domain.RenderJobUpdated:   projections.On(renderJobChanged),
	domain.RenderJobCancelled: projections.On(renderJobChanged),
	// A generation request's row: its request (insert only), then its
	// kernel job's events.
	domain.GenerationRequested: projections.On(func(e eventstore.Event, p domain.GenerationV1) ([]projections.Statement, error) {
		out, err := generationRow(e, p.Generation, true)
		return append(out, quotaCounted(e, p.Generation.WorkspaceID, p.Generation.GenerationID, p.Quota)...), err
	}),
	domain.AssetStored:  projections.On(assetChanged),
	domain.AssetDeleted: projections.On(assetChanged),
	domain.TemplateCreated: projections.On(func(e eventstore.Event, p domain.TemplateV1) ([]projections.Statement, error) {
		t := p.Template
		return upsert(e, "studio_templates", "template_id", t.TemplateID, t.TemplateID, t, t.WorkspaceID, col("created_at", "timestamptz", t.CreatedAt))
	}),
	domain.TemplateUpdated: projections.On(func(e eventstore.Event, p domain.TemplateV1) ([]projections.Statement, error) {
		t := p.Template
		return upsert(e, "studio_templates", "template_id", t.TemplateID, t.TemplateID, t, t.WorkspaceID, col("created_at", "timestamptz", t.CreatedAt))
	}),
	domain.PresetCreated: projections.On(presetChanged),
	domain.PresetUpdated: projections.On(presetChanged),
	domain.QuotaWarningClaimed: projections.On(func(e eventstore.Event, p domain.QuotaWarningV1) ([]projections.Statement, error) {
		return []projections.Statement{projections.Exec(`INSERT INTO {{studio_quota}} (workspace_id, action, period, organization_id, used,
			quota_limit, warning_id, warning, warned_at) SELECT $1::text, $2::text, $3::text, $4::text, $5::int, $6::int, $7::text, $8::text,
			$9::timestamptz WHERE EXISTS (SELECT 1 FROM studio_objects WHERE object_id = $7)
			ON CONFLICT (workspace_id, action, period) DO UPDATE SET used = greatest({{studio_quota}}.used, EXCLUDED.used),
			quota_limit = EXCLUDED.quota_limit, warning_id = EXCLUDED.warning_id, warning = EXCLUDED.warning, warned_at = EXCLUDED.warned_at`,
			p.WorkspaceID, p.Action, p.PeriodKey, e.OrganizationID, p.Used, p.Limit, p.WarningID, p.Warning, p.At)}, nil
	}),
	// The erasure drops the rows of the objects the registry forgot, not
	// every row of the organization: in a rebuild, objects made after the
	// erasure may be applied before it (another partition). The month's
	// counts go whole (the write side's counts went with the erasure).
	domain.OrganizationDataErased: projections.On(func(e eventstore.Event, p domain.DataErasedV1) ([]projections.Statement, error) {
		out := []projections.Statement{projections.Exec(`DELETE FROM {{studio_quota}} WHERE organization_id = $1`, e.OrganizationID)}
		for _, t := range erasable {
			out = append(out, projections.Exec(`DELETE FROM {{`+t.table+`}} t WHERE t.organization_id = $1
				AND NOT EXISTS (SELECT 1 FROM studio_objects o WHERE o.object_id = t.`+t.registered+`)`, e.OrganizationID))
		}
		return out, nil
	}),
}

// jobRow follows the studio's kernel jobs: a platform render's and a
// generation request's row is the object as its job leaves it (the job's
// input is the object as created).
func jobRow(e eventstore.Event, j domjobs.Job) ([]projections.Statement, error) {
	switch j.Kind {
	case domain.KindRender:
		var created domain.RenderJob
		if err := json.Unmarshal(j.Input, &created); err != nil {
			return nil, err
		}
		return renderJobRow(e, domain.RenderJobOf(created, j), false)
	case domain.KindGenerate:
		var created domain.Generation
		if err := json.Unmarshal(j.Input, &created); err != nil {
			return nil, err
		}
		return generationRow(e, domain.GenerationOf(created, j), false)
	}
	return nil, nil
}

func init() {
	for typ, r := range projections.JobReducers("studio", jobRow) {
		reducers[typ] = r
	}
}

// column is one column a reducer writes, with its SQL type (an INSERT ...
// SELECT types its parameters by their casts).
type column struct {
	name, typ string
	value     any
}

func col(name, typ string, value any) column { return column{name: name, typ: typ, value: value} }

// upsert writes an object's row (key = id, its state as doc) while the
// registry knows the object named by registered: a row's every column but
// its key and creation time is replaced.
func upsert(e eventstore.Event, table, key, id, registered string, doc any, workspace string, more ...column) ([]projections.Statement, error) {
	return write(e, false, table, key, id, registered, doc, workspace, more...)
}

// write is upsert, or with insertOnly a row written only when there is none.
func write(e eventstore.Event, insertOnly bool, table, key, id, registered string, doc any, workspace string, more ...column) ([]projections.Statement, error) {
	raw, err := json.Marshal(doc)
	if err != nil {
		return nil, err
	}
	cols := append([]column{col(key, "text", id), col("organization_id", "text", e.OrganizationID), col("workspace_id", "text", workspace),
		col("doc", "jsonb", json.RawMessage(raw))}, more...)
	names, params, sets := make([]string, len(cols)), make([]string, len(cols)), []string{}
	args := make([]any, 0, len(cols)+1)
	for i, c := range cols {
		names[i], params[i] = c.name, fmt.Sprintf("$%d::%s", i+1, c.typ)
		args = append(args, c.value)
		if c.name != key && c.name != "created_at" {
			sets = append(sets, c.name+" = EXCLUDED."+c.name)
		}
	}
	args = append(args, registered)
	sql := `INSERT INTO {{` + table + `}} (` + strings.Join(names, ", ") + `) SELECT ` + strings.Join(params, ", ") +
		fmt.Sprintf(` WHERE EXISTS (SELECT 1 FROM studio_objects WHERE object_id = $%d)`, len(args)) +
		` ON CONFLICT (` + key + `) DO UPDATE SET ` + strings.Join(sets, ", ")
	if insertOnly {
		sql = sql[:strings.LastIndex(sql, " ON CONFLICT")] + ` ON CONFLICT (` + key + `) DO NOTHING`
	}
	return []projections.Statement{projections.Exec(sql, args...)}, nil
}

func projectChanged(e eventstore.Event, p domain.ProjectV1) ([]projections.Statement, error) {
	pr := p.Project
	return upsert(e, "studio_projects", "project_id", pr.ProjectID, pr.ProjectID, pr, pr.WorkspaceID,
		col("deleted", "boolean", pr.Deleted), col("created_at", "timestamptz", pr.CreatedAt), col("updated_at", "timestamptz", pr.UpdatedAt))
}

// sceneCount keeps the project's doc in step with its scenes.
func sceneCount(project string, count int, at any) projections.Statement {
	return projections.Exec(`UPDATE {{studio_projects}} SET doc = jsonb_set(jsonb_set(doc, '{sceneCount}', to_jsonb($2::int)),
		'{updatedAt}', to_jsonb($3::timestamptz)), updated_at = $3 WHERE project_id = $1`, project, count, at)
}

func sceneRow(e eventstore.Event, project, workspace string, s domain.Scene) ([]projections.Statement, error) {
	raw, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	return []projections.Statement{projections.Exec(`INSERT INTO {{studio_scenes}} (project_id, scene_id, organization_id, workspace_id,
		position, doc) SELECT $1::text, $2::text, $3::text, $4::text, $5::int, $6::jsonb
		WHERE EXISTS (SELECT 1 FROM studio_objects WHERE object_id = $1)
		ON CONFLICT (project_id, scene_id) DO UPDATE SET position = EXCLUDED.position, doc = EXCLUDED.doc`,
		project, s.SceneID, e.OrganizationID, workspace, s.Position, json.RawMessage(raw))}, nil
}

func sceneChanged(e eventstore.Event, p domain.SceneV1) ([]projections.Statement, error) {
	out, err := sceneRow(e, p.ProjectID, p.WorkspaceID, p.Scene)
	return append(out, sceneCount(p.ProjectID, p.SceneCount, p.At)), err
}

func planReady(e eventstore.Event, p domain.PlanV1) ([]projections.Statement, error) {
	out := []projections.Statement{projections.Exec(`DELETE FROM {{studio_scenes}} WHERE project_id = $1`, p.ProjectID)}
	for _, s := range p.Scenes {
		rows, err := sceneRow(e, p.ProjectID, p.WorkspaceID, s)
		if err != nil {
			return nil, err
		}
		out = append(out, rows...)
	}
	return append(out, sceneCount(p.ProjectID, len(p.Scenes), p.At),
		projections.Exec(`UPDATE {{studio_projects}} SET doc = jsonb_set(doc, '{planId}', to_jsonb($2::text)) WHERE project_id = $1`,
			p.ProjectID, p.PlanID)), nil
}

func approvalChanged(e eventstore.Event, p domain.ApprovalV1) ([]projections.Statement, error) {
	a := p.Approval
	return upsert(e, "studio_approvals", "approval_request_id", a.ApprovalRequestID, p.ProjectID, a, p.WorkspaceID,
		col("project_id", "text", p.ProjectID), col("status", "text", a.Status), col("requested_at", "timestamptz", a.RequestedAt))
}

func compositionChanged(e eventstore.Event, p domain.CompositionV1) ([]projections.Statement, error) {
	c := p.Composition
	return upsert(e, "studio_compositions", "composition_version_id", c.CompositionVersionID, c.CompositionVersionID, c, c.WorkspaceID,
		col("project_id", "text", c.ProjectID), col("created_at", "timestamptz", c.CreatedAt))
}

func renderJobChanged(e eventstore.Event, p domain.RenderJobV1) ([]projections.Statement, error) {
	return renderJobRow(e, p.Job, false)
}

func renderJobRow(e eventstore.Event, j domain.RenderJob, insertOnly bool) ([]projections.Statement, error) {
	return write(e, insertOnly, "studio_render_jobs", "render_job_id", j.RenderJobID, j.RenderJobID, j, j.WorkspaceID,
		col("project_id", "text", j.ProjectID), col("status", "text", j.RenderStatus), col("priority", "int", j.Priority),
		col("created_at", "timestamptz", j.CreatedAt))
}

func generationRow(e eventstore.Event, g domain.Generation, insertOnly bool) ([]projections.Statement, error) {
	return write(e, insertOnly, "studio_generations", "generation_id", g.GenerationID, g.GenerationID, g, g.WorkspaceID,
		col("project_id", "text", g.ProjectID), col("kind", "text", g.Kind), col("status", "text", g.Status),
		col("created_at", "timestamptz", g.CreatedAt))
}

// quotaCounted records the month's count a counted object's creation left.
func quotaCounted(e eventstore.Event, workspace, object string, q *domain.QuotaClaim) []projections.Statement {
	if q == nil {
		return nil
	}
	return []projections.Statement{projections.Exec(`INSERT INTO {{studio_quota}} (workspace_id, action, period, organization_id, used, quota_limit)
		SELECT $1::text, $2::text, $3::text, $4::text, $5::int, $6::int WHERE EXISTS (SELECT 1 FROM studio_objects WHERE object_id = $7)
		ON CONFLICT (workspace_id, action, period) DO UPDATE SET used = greatest({{studio_quota}}.used, EXCLUDED.used),
		quota_limit = EXCLUDED.quota_limit`, workspace, q.Action, q.PeriodKey, e.OrganizationID, q.Used, q.Limit, object)}
}

func assetChanged(e eventstore.Event, p domain.AssetV1) ([]projections.Statement, error) {
	a := p.Asset
	return upsert(e, "studio_assets", "asset_id", a.AssetID, a.AssetID, a, a.WorkspaceID, col("project_id", "text", a.ProjectID),
		col("kind", "text", a.Kind), col("deleted", "boolean", a.Deleted), col("created_at", "timestamptz", a.CreatedAt))
}

func presetChanged(e eventstore.Event, p domain.PresetV1) ([]projections.Statement, error) {
	pr := p.Preset
	return upsert(e, "studio_presets", "preset_id", pr.PresetID, pr.PresetID, pr, pr.WorkspaceID, col("created_at", "timestamptz", pr.CreatedAt))
}
