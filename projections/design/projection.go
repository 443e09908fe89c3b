// Package design is the design service's read model: projects, designs
// (whole, and as list summaries), uploaded images and exports (from the
// export jobs' events), each row with its organization and workspace.
//
// Erasure: a row is written only while the write side's registry
// (design_objects) knows its object, and the erasure event deletes the rows
// of the objects the registry forgot; so a rebuild from offset zero ends
// without them, whatever order the partitions deliver the events in.
package design

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	domain "github.com/platform/backend/domain/design"
	domjobs "github.com/platform/backend/domain/jobs"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/projections"
)

// Name of the projection.
const Name = "design"

// Projection builds the design read model.
type Projection struct{}

var _ projections.Declared = Projection{}

func (Projection) Name() string       { return Name }
func (Projection) Contexts() []string { return []string{"design"} }

var tables = []string{"design_projects", "design_designs", "design_assets", "design_exports"}

func (Projection) Tables() []string { return tables }

// erasable are the tables and the column naming each row's registered object.
var erasable = []struct{ table, registered string }{
	{"design_projects", "project_id"}, {"design_designs", "design_id"}, {"design_assets", "asset_id"}, {"design_exports", "export_id"},
}

func (Projection) Schema() []string {
	return []string{
		`CREATE TABLE IF NOT EXISTS {{design_projects}} (project_id text PRIMARY KEY, organization_id text NOT NULL, workspace_id text NOT NULL,
			deleted boolean NOT NULL, updated_at timestamptz NOT NULL, doc jsonb NOT NULL)`,
		`CREATE INDEX IF NOT EXISTS {{design_projects}}_ws ON {{design_projects}} (organization_id, workspace_id, project_id DESC) WHERE NOT deleted`,
		`CREATE TABLE IF NOT EXISTS {{design_designs}} (design_id text PRIMARY KEY, organization_id text NOT NULL, workspace_id text NOT NULL,
			project_id text NOT NULL, deleted boolean NOT NULL, updated_at timestamptz NOT NULL, summary jsonb NOT NULL, doc jsonb NOT NULL)`,
		`CREATE INDEX IF NOT EXISTS {{design_designs}}_ws ON {{design_designs}} (organization_id, workspace_id, design_id DESC) WHERE NOT deleted`,
		`CREATE INDEX IF NOT EXISTS {{design_designs}}_project ON {{design_designs}} (project_id, design_id DESC) WHERE NOT deleted`,
		`CREATE TABLE IF NOT EXISTS {{design_assets}} (asset_id text PRIMARY KEY, organization_id text NOT NULL, workspace_id text NOT NULL,
			deleted boolean NOT NULL, doc jsonb NOT NULL)`,
		`CREATE INDEX IF NOT EXISTS {{design_assets}}_ws ON {{design_assets}} (organization_id, workspace_id, asset_id DESC) WHERE NOT deleted`,
		`CREATE TABLE IF NOT EXISTS {{design_exports}} (export_id text PRIMARY KEY, organization_id text NOT NULL, workspace_id text NOT NULL,
			design_id text NOT NULL, status text NOT NULL, updated_at timestamptz NOT NULL, doc jsonb NOT NULL) WITH (fillfactor = 70)`,
		`CREATE INDEX IF NOT EXISTS {{design_exports}}_design ON {{design_exports}} (design_id, export_id DESC)`,
		`CREATE INDEX IF NOT EXISTS {{design_exports}}_ws ON {{design_exports}} (organization_id, workspace_id, status)`,
	}
}

func (p Projection) Reduce(e eventstore.Event) ([]projections.Statement, error) {
	return reducers.Reduce(e)
}

// Reducers is the table of what each design event does to the read model.
func (Projection) Reducers() projections.Reducers { return reducers }

var reducers = merge(projections.Reducers{
	domain.ProjectCreated: projections.On(projectChanged), domain.ProjectUpdated: projections.On(projectChanged),
	domain.ProjectDeleted: projections.On(projectChanged),
	domain.DesignCreated:  projections.On(designChanged), domain.DesignUpdated: projections.On(designChanged),
	domain.DesignRebranded: projections.On(designChanged), domain.DesignDeleted: projections.On(designChanged),
	domain.AssetStored: projections.On(assetChanged), domain.AssetDeleted: projections.On(assetChanged),
	// The erasure drops the rows of the objects the registry forgot, not
	// every row of the organization: in a rebuild, objects made after the
	// erasure may be applied before it (another partition).
	domain.OrganizationDataErased: projections.On(func(e eventstore.Event, _ domain.DataErasedV1) ([]projections.Statement, error) {
		var out []projections.Statement
		for _, t := range erasable {
			out = append(out, projections.Exec(`DELETE FROM {{`+t.table+`}} t WHERE t.organization_id = $1
				AND NOT EXISTS (SELECT 1 FROM design_objects o WHERE o.object_id = t.`+t.registered+`)`, e.OrganizationID))
		}
		return out, nil
	}),
}, projections.JobReducers("design", exportChanged))

func merge(a, b projections.Reducers) projections.Reducers {
	for k, v := range b {
		a[k] = v
	}
	return a
}

// column is one column a reducer writes, with its SQL type.
type column struct {
	name, typ string
	value     any
}

func col(name, typ string, value any) column { return column{name: name, typ: typ, value: value} }

// upsert writes an object's row (key = id) while the registry knows it:
// every column but the key is replaced.
func upsert(e eventstore.Event, table, key, id, workspace string, doc any, more ...column) ([]projections.Statement, error) {
	raw, err := json.Marshal(doc)
	if err != nil {
		return nil, err
	}
	cols := append([]column{col(key, "text", id), col("organization_id", "text", e.OrganizationID), col("workspace_id", "text", workspace),
		col("doc", "jsonb", json.RawMessage(raw))}, more...)
	names, params, sets := make([]string, len(cols)), make([]string, len(cols)), []string{}
	args := make([]any, 0, len(cols))
	for i, c := range cols {
		names[i], params[i] = c.name, fmt.Sprintf("$%d::%s", i+1, c.typ)
		args = append(args, c.value)
		if c.name != key {
			sets = append(sets, c.name+" = EXCLUDED."+c.name)
		}
	}
	sql := `INSERT INTO {{` + table + `}} (` + strings.Join(names, ", ") + `) SELECT ` + strings.Join(params, ", ") +
		` WHERE EXISTS (SELECT 1 FROM design_objects WHERE object_id = $1) ON CONFLICT (` + key + `) DO UPDATE SET ` + strings.Join(sets, ", ")
	return []projections.Statement{projections.Exec(sql, args...)}, nil
}

func projectChanged(e eventstore.Event, p domain.ProjectV1) ([]projections.Statement, error) {
	pr := p.Project
	return upsert(e, "design_projects", "project_id", pr.ProjectID, pr.WorkspaceID, pr, col("deleted", "boolean", pr.Deleted),
		col("updated_at", "timestamptz", pr.UpdatedAt))
}

// Summary is a design as lists show it: everything but its pages' layers.
type Summary struct {
	DesignID          string    `json:"designId"`
	ProjectID         string    `json:"projectId"`
	WorkspaceID       string    `json:"workspaceId"`
	Name              string    `json:"name"`
	Width             int       `json:"width"`
	Height            int       `json:"height"`
	Pages             int       `json:"pages"`
	DurationMs        int       `json:"durationMs"`
	Animated          bool      `json:"animated"`
	BrandKitID        string    `json:"brandKitId"`
	BrandKitVersionID string    `json:"brandKitVersionId"`
	Revision          int       `json:"revision"`
	CreatedBy         string    `json:"createdBy"`
	CreatedAt         time.Time `json:"createdAt"`
	UpdatedAt         time.Time `json:"updatedAt"`
}

// SummaryOf is a design's summary.
func SummaryOf(d domain.Design) Summary {
	s := Summary{DesignID: d.DesignID, ProjectID: d.ProjectID, WorkspaceID: d.WorkspaceID, Name: d.Name, Width: d.Width, Height: d.Height,
		Pages: len(d.Pages), DurationMs: d.Duration(), BrandKitID: d.BrandKitID, BrandKitVersionID: d.BrandKitVersionID, Revision: d.Revision,
		CreatedBy: d.CreatedBy, CreatedAt: d.CreatedAt, UpdatedAt: d.UpdatedAt}
	for _, p := range d.Pages {
		s.Animated = s.Animated || domain.Animated(p.Layers)
	}
	return s
}

func designChanged(e eventstore.Event, p domain.DesignV1) ([]projections.Statement, error) {
	d := p.Design
	summary, err := json.Marshal(SummaryOf(d))
	if err != nil {
		return nil, err
	}
	return upsert(e, "design_designs", "design_id", d.DesignID, d.WorkspaceID, d, col("project_id", "text", d.ProjectID),
		col("deleted", "boolean", d.Deleted), col("updated_at", "timestamptz", d.UpdatedAt), col("summary", "jsonb", json.RawMessage(summary)))
}

func assetChanged(e eventstore.Event, p domain.AssetV1) ([]projections.Statement, error) {
	a := p.Asset
	return upsert(e, "design_assets", "asset_id", a.AssetID, a.WorkspaceID, a, col("deleted", "boolean", a.Deleted))
}

// exportChanged writes an export as its job is after each job event.
func exportChanged(e eventstore.Event, j domjobs.Job) ([]projections.Statement, error) {
	if j.Kind != domain.KindExport {
		return nil, nil
	}
	x, err := domain.ExportOf(j)
	if err != nil {
		return nil, err
	}
	return upsert(e, "design_exports", "export_id", x.ExportID, x.WorkspaceID, x, col("design_id", "text", x.DesignID),
		col("status", "text", x.Status), col("updated_at", "timestamptz", x.UpdatedAt))
}
