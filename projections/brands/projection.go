// Package brands is the brand kits' read model: each kit with its draft and
// owner, and every published version; the lists and the brand options of
// governed design (what a caller sees: its own kits and the library's
// published ones).
package brands

import (
	"context"
	"encoding/json"

	"github.com/jackc/pgx/v5/pgxpool"

	domain "github.com/platform/backend/domain/brands"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/principal"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/projections"
)

// Name of the projection.
const Name = "brands"

// Projection builds the brand kits' read model.
type Projection struct{}

var _ projections.Declared = Projection{}

func (Projection) Name() string       { return Name }
func (Projection) Contexts() []string { return []string{"brands"} }
func (Projection) Tables() []string   { return []string{"brand_kits", "brand_kit_versions"} }

func (Projection) Schema() []string {
	return []string{
		`CREATE TABLE IF NOT EXISTS {{brand_kits}} (kit_id text PRIMARY KEY, organization_id text NOT NULL, workspace_id text,
			name text NOT NULL, deleted boolean NOT NULL, available boolean NOT NULL, current_version_id text,
			updated_at timestamptz NOT NULL, doc jsonb NOT NULL)`,
		`CREATE INDEX IF NOT EXISTS {{brand_kits}}_org ON {{brand_kits}} (organization_id, name) WHERE NOT deleted`,
		`CREATE TABLE IF NOT EXISTS {{brand_kit_versions}} (version_id text PRIMARY KEY, kit_id text NOT NULL, organization_id text NOT NULL,
			number int NOT NULL, doc jsonb NOT NULL)`,
		`CREATE INDEX IF NOT EXISTS {{brand_kit_versions}}_kit ON {{brand_kit_versions}} (kit_id, number DESC)`,
	}
}

func (p Projection) Reduce(e eventstore.Event) ([]projections.Statement, error) {
	return reducers.Reduce(e)
}

// Reducers: every kit event writes the kit as it is after it; a
// publication also its version.
func (Projection) Reducers() projections.Reducers { return reducers }

var reducers = projections.Reducers{
	domain.KitCreated: projections.On(kitChanged), domain.KitUpdated: projections.On(kitChanged),
	domain.FontAdded: projections.On(kitChanged), domain.FontRemoved: projections.On(kitChanged),
	domain.LogoAdded: projections.On(kitChanged), domain.LogoRemoved: projections.On(kitChanged),
	domain.KitDeleted: projections.On(kitChanged),
	domain.KitPublished: projections.On(func(e eventstore.Event, p domain.KitV1) ([]projections.Statement, error) {
		out, err := kitChanged(e, p)
		if err != nil || p.Version == nil {
			return out, err
		}
		raw, err := json.Marshal(p.Version)
		if err != nil {
			return nil, err
		}
		return append(out, projections.Exec(`INSERT INTO {{brand_kit_versions}} (version_id, kit_id, organization_id, number, doc)
			VALUES ($1, $2, $3, $4, $5) ON CONFLICT (version_id) DO NOTHING`,
			p.Version.VersionID, p.Version.KitID, e.OrganizationID, p.Version.Number, json.RawMessage(raw))), nil
	}),
}

func kitChanged(e eventstore.Event, p domain.KitV1) ([]projections.Statement, error) {
	k := p.Kit
	raw, err := json.Marshal(k)
	if err != nil {
		return nil, err
	}
	return []projections.Statement{projections.Exec(`INSERT INTO {{brand_kits}} (kit_id, organization_id, workspace_id, name, deleted, available,
		current_version_id, updated_at, doc) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
		ON CONFLICT (kit_id) DO UPDATE SET name = EXCLUDED.name, deleted = EXCLUDED.deleted, available = EXCLUDED.available,
		current_version_id = EXCLUDED.current_version_id, updated_at = EXCLUDED.updated_at, doc = EXCLUDED.doc`,
		k.KitID, e.OrganizationID, k.WorkspaceID, k.Name, k.Deleted, k.AvailableForDesign, k.CurrentVersionID, k.UpdatedAt,
		json.RawMessage(raw))}, nil
}

// Queries reads the brand kits' read model for a caller: its own kits (of
// its organization, of no workspace or of one it may enter) and the
// library's published kits. Anything else is missing.
type Queries struct {
	pool    *pgxpool.Pool
	reader  *projections.Reader
	library domain.Library
}

func NewQueries(pool *pgxpool.Pool, reader *projections.Reader, library domain.Library) *Queries {
	return &Queries{pool: pool, reader: reader, library: library}
}

const what = "the brand kits' read model"

// KitView is a kit as a caller reads it. A library kit read by another
// organization shows no draft (null): its versions are what it offers.
type KitView struct {
	domain.Kit
	Draft *domain.Content `json:"draft"`
	// Library: the kit is the library owner's, offered to every organization.
	Library bool `json:"library"`
	// Owned: the caller's organization owns the kit (it may change it).
	Owned bool `json:"owned"`
}

func (q *Queries) view(p principal.Principal, k domain.Kit) (KitView, bool) {
	o := domain.Owner{OrganizationID: k.OrganizationID, WorkspaceID: k.WorkspaceID}
	if k.Deleted || !o.Sees(p, k.Published(), q.library) {
		return KitView{}, false
	}
	v := KitView{Kit: k, Library: q.library.Holds(k.OrganizationID, k.WorkspaceID), Owned: o.Owns(p)}
	if v.Owned {
		d := k.Draft
		v.Draft = &d
	}
	return v, true
}

// visible selects the kits a caller may see (own organization's, or the
// library's published): the rest of the check is view's (workspaces).
const visible = `NOT deleted AND (organization_id = $1 OR (organization_id = $2 AND current_version_id IS NOT NULL))`

// Kits lists the kits the caller sees, by name.
func (q *Queries) Kits(ctx context.Context, p principal.Principal) ([]KitView, error) {
	list, err := projections.Docs[domain.Kit](ctx, q.pool, q.reader, Projection{}, what,
		`SELECT doc FROM {{brand_kits}} WHERE `+visible+` ORDER BY name, kit_id`, p.OrganizationID, q.library.OrganizationID)
	if err != nil {
		return nil, err
	}
	out := []KitView{}
	for _, k := range list {
		if v, ok := q.view(p, k); ok {
			out = append(out, v)
		}
	}
	return out, nil
}

// Kit is one kit the caller sees.
func (q *Queries) Kit(ctx context.Context, p principal.Principal, kitID string) (KitView, error) {
	k, err := projections.One[domain.Kit](ctx, q.pool, q.reader, Projection{}, what, "brand kit",
		`SELECT doc FROM {{brand_kits}} WHERE kit_id = $3 AND `+visible, p.OrganizationID, q.library.OrganizationID, kitID)
	if err != nil {
		return KitView{}, err
	}
	v, ok := q.view(p, k)
	if !ok {
		return KitView{}, errs.NotFound("brand kit")
	}
	return v, nil
}

// Versions are a kit's published versions, newest first.
func (q *Queries) Versions(ctx context.Context, p principal.Principal, kitID string) ([]domain.Version, error) {
	if _, err := q.Kit(ctx, p, kitID); err != nil {
		return nil, err
	}
	return projections.Docs[domain.Version](ctx, q.pool, q.reader, Projection{}, what,
		`SELECT doc FROM {{brand_kit_versions}} WHERE kit_id = $1 ORDER BY number DESC`, kitID)
}

// Version is one published version of a kit the caller sees.
func (q *Queries) Version(ctx context.Context, p principal.Principal, kitID, versionID string) (domain.Version, error) {
	if _, err := q.Kit(ctx, p, kitID); err != nil {
		return domain.Version{}, err
	}
	return projections.One[domain.Version](ctx, q.pool, q.reader, Projection{}, what, "brand kit version",
		`SELECT doc FROM {{brand_kit_versions}} WHERE kit_id = $1 AND version_id = $2`, kitID, versionID)
}

// Option is seed 000's brand option: exactly id, name and currentVersionId.
type Option struct {
	ID               string `json:"id"`
	Name             string `json:"name"`
	CurrentVersionID string `json:"currentVersionId"`
}

// Options is brands.list's answer: only published kits the caller sees
// that are offered for governed design.
type Options struct {
	// Available: at least one kit is offered (a governed design can be
	// started).
	Available bool     `json:"available"`
	Brands    []Option `json:"brands"`
}

// Options lists the kits a caller may govern a design with, by name.
func (q *Queries) Options(ctx context.Context, p principal.Principal) (Options, error) {
	kits, err := q.Kits(ctx, p)
	if err != nil {
		return Options{}, err
	}
	out := Options{Brands: []Option{}}
	for _, k := range kits {
		if k.Published() && k.AvailableForDesign {
			out.Brands = append(out.Brands, Option{ID: k.KitID, Name: k.Name, CurrentVersionID: *k.CurrentVersionID})
		}
	}
	out.Available = len(out.Brands) > 0
	return out, nil
}
