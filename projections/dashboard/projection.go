// Package dashboard is the dashboard's read model: the apps installed in
// each active context, and the launcher that fans out over their widgets.
package dashboard

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	domain "github.com/platform/backend/domain/dashboard"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/projections"
)

// Name of the projection (consumer group, registry rows).
const Name = "dashboard"

// Projection builds the installations read model.
type Projection struct{}

var _ projections.Declared = Projection{}

func (Projection) Name() string       { return Name }
func (Projection) Contexts() []string { return []string{"dashboard"} }
func (Projection) Tables() []string   { return []string{"dashboard_installations"} }

// Schema: one row per app ever installed in a context, installed or not
// now; stream_version keeps a redelivered older event from undoing a newer
// one.
func (Projection) Schema() []string {
	return []string{
		`CREATE TABLE IF NOT EXISTS {{dashboard_installations}} (
			organization_id text NOT NULL, context text NOT NULL, user_id text NOT NULL, app_id text NOT NULL,
			installed boolean NOT NULL, installed_at timestamptz NOT NULL, stream_version bigint NOT NULL,
			PRIMARY KEY (organization_id, context, user_id, app_id))`,
	}
}

func (Projection) Reduce(e eventstore.Event) ([]projections.Statement, error) {
	return reducers.Reduce(e)
}

// Reducers is the table of what each dashboard event does.
func (Projection) Reducers() projections.Reducers { return reducers }

var reducers = projections.Reducers{
	domain.AppInstalled: projections.On(func(e eventstore.Event, p domain.AppInstalledV1) ([]projections.Statement, error) {
		return []projections.Statement{installed(e, p.Context, p.UserID, p.AppID, true, p.At)}, nil
	}),
	domain.AppUninstalled: projections.On(func(e eventstore.Event, p domain.AppUninstalledV1) ([]projections.Statement, error) {
		return []projections.Statement{installed(e, p.Context, p.UserID, p.AppID, false, p.At)}, nil
	}),
}

func installed(e eventstore.Event, context, user, app string, on bool, at time.Time) projections.Statement {
	return projections.Exec(`INSERT INTO {{dashboard_installations}} AS i (organization_id, context, user_id, app_id, installed,
		installed_at, stream_version) VALUES ($1,$2,$3,$4,$5,$6,$7)
		ON CONFLICT (organization_id, context, user_id, app_id) DO UPDATE SET installed=EXCLUDED.installed,
		installed_at=EXCLUDED.installed_at, stream_version=EXCLUDED.stream_version WHERE i.stream_version < EXCLUDED.stream_version`,
		e.OrganizationID, context, user, app, on, at, e.StreamVersion)
}

// Queries reads the installations of a context.
type Queries struct {
	pool   *pgxpool.Pool
	reader *projections.Reader
}

func NewQueries(pool *pgxpool.Pool, reader *projections.Reader) *Queries {
	return &Queries{pool: pool, reader: reader}
}

// Installed are the apps installed in the context, with since when.
func (q *Queries) Installed(ctx context.Context, c domain.Context) (map[string]time.Time, error) {
	s, err := q.reader.SQL(ctx, Projection{}, `SELECT app_id, installed_at FROM {{dashboard_installations}}
		WHERE organization_id=$1 AND context=$2 AND user_id=$3 AND installed`)
	if err != nil {
		return nil, err
	}
	rows, err := q.pool.Query(ctx, s, c.OrganizationID, c.Kind, c.UserID)
	if err != nil {
		return nil, err
	}
	out := map[string]time.Time{}
	var app string
	var at time.Time
	_, err = pgx.ForEachRow(rows, []any{&app, &at}, func() error { out[app] = at; return nil })
	return out, err
}
