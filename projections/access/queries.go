package access

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	domain "github.com/platform/backend/domain/identity"
	"github.com/platform/backend/projections"
)

// Queries reads the active generation of the access read model.
type Queries struct {
	pool   *pgxpool.Pool
	reader *projections.Reader
}

func NewQueries(pool *pgxpool.Pool, reader *projections.Reader) *Queries {
	return &Queries{pool: pool, reader: reader}
}

func (q *Queries) sql(ctx context.Context, s string) (string, error) {
	return q.reader.SQL(ctx, Projection{}, s)
}

// CatalogFilter selects catalog entries; empty members select all.
type CatalogFilter struct {
	SurfaceKind  string
	SurfaceGroup string
	Launchable   *bool
}

// Catalog lists catalog entries by app id.
func (q *Queries) Catalog(ctx context.Context, f CatalogFilter) ([]domain.CatalogEntry, error) {
	sql, err := q.sql(ctx, `SELECT entry FROM {{access_catalog}} WHERE ($1='' OR surface_kind=$1) AND ($2='' OR surface_group=$2)
		AND ($3::boolean IS NULL OR launchable=$3) ORDER BY app_id`)
	if err != nil {
		return nil, err
	}
	rows, err := q.pool.Query(ctx, sql, f.SurfaceKind, f.SurfaceGroup, f.Launchable)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (domain.CatalogEntry, error) {
		var raw []byte
		var e domain.CatalogEntry
		if err := r.Scan(&raw); err != nil {
			return e, err
		}
		return e, json.Unmarshal(raw, &e)
	})
}

// RedactOwners hides a developer app's owning organization from everyone but
// platform roles and that organization's own principals (service tokens
// included: they have no organization): which tenant built an app, and its
// id, are that tenant's business.
func RedactOwners(list []domain.CatalogEntry, p domain.Principal) []domain.CatalogEntry {
	for i := range list {
		if owner := list[i].OwnerOrganizationID; owner != "" && !p.SeesOrganization(owner) {
			list[i].OwnerOrganizationID = ""
		}
	}
	return list
}

// APIKeys lists an organization's keys, newest first; state "" is all.
func (q *Queries) APIKeys(ctx context.Context, organizationID, state string, limit int) ([]KeyView, error) {
	if limit <= 0 || limit > 200 {
		limit = 100
	}
	sql, err := q.sql(ctx, `SELECT key_id, organization_id, name, service, scopes, resource_bindings, state, created_by, created_at,
		updated_at, revoked_at FROM {{access_api_keys}} WHERE organization_id=$1 AND ($2='' OR state=$2)
		ORDER BY created_at DESC, key_id DESC LIMIT $3`)
	if err != nil {
		return nil, err
	}
	rows, err := q.pool.Query(ctx, sql, organizationID, state, limit)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (KeyView, error) {
		var k KeyView
		var scopes, bindings []byte
		if err := r.Scan(&k.KeyID, &k.OrganizationID, &k.Name, &k.Service, &scopes, &bindings, &k.State, &k.CreatedBy,
			&k.CreatedAt, &k.UpdatedAt, &k.RevokedAt); err != nil {
			return k, err
		}
		if err := json.Unmarshal(scopes, &k.Scopes); err != nil {
			return k, err
		}
		return k, json.Unmarshal(bindings, &k.ResourceBindings)
	})
}

// Preferences of one owner in one organization; the defaults before the
// first write.
func (q *Queries) Preferences(ctx context.Context, organizationID, ownerID string) (domain.Preferences, error) {
	sql, err := q.sql(ctx, `SELECT preferences FROM {{access_preferences}} WHERE organization_id=$1 AND owner_id=$2`)
	if err != nil {
		return domain.Preferences{}, err
	}
	var raw []byte
	err = q.pool.QueryRow(ctx, sql, organizationID, ownerID).Scan(&raw)
	if errors.Is(err, pgx.ErrNoRows) {
		return domain.DefaultPreferences(), nil
	}
	if err != nil {
		return domain.Preferences{}, err
	}
	var p domain.Preferences
	return p, json.Unmarshal(raw, &p)
}
