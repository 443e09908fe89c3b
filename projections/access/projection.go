// Package access is the read model of the identity service's access half:
// the service catalog, API keys (never their hashes) and launcher
// preferences. Authorization decisions never read it: they load the write
// side, so they see every change at once.
package access

import (
	"encoding/json"
	"time"

	domain "github.com/platform/backend/domain/identity"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/projections"
)

// Name of the projection (consumer group, registry rows).
const Name = "identity_access"

// Projection builds the access read model.
type Projection struct{}

var _ projections.Declared = Projection{}

func (Projection) Name() string       { return Name }
func (Projection) Contexts() []string { return []string{"identity"} }
func (Projection) Tables() []string {
	return []string{"access_catalog", "access_api_keys", "access_preferences"}
}

func (Projection) Schema() []string {
	return []string{
		`CREATE TABLE IF NOT EXISTS {{access_catalog}} (
			app_id text PRIMARY KEY, surface_kind text NOT NULL, surface_group text NOT NULL, launchable boolean NOT NULL,
			developer_app_id text, owner_organization_id text, entry jsonb NOT NULL, updated_at timestamptz NOT NULL)`,
		`CREATE TABLE IF NOT EXISTS {{access_api_keys}} (
			key_id text PRIMARY KEY, organization_id text NOT NULL, name text NOT NULL, service text NOT NULL,
			scopes jsonb NOT NULL, resource_bindings jsonb NOT NULL, state text NOT NULL, created_by text NOT NULL,
			created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL, revoked_at timestamptz, version bigint NOT NULL)`,
		`CREATE INDEX IF NOT EXISTS {{access_api_keys}}_org ON {{access_api_keys}} (organization_id, created_at DESC)`,
		`CREATE TABLE IF NOT EXISTS {{access_preferences}} (
			organization_id text NOT NULL, owner_id text NOT NULL, preferences jsonb NOT NULL, updated_at timestamptz NOT NULL,
			PRIMARY KEY (organization_id, owner_id))`,
	}
}

func (Projection) Reduce(e eventstore.Event) ([]projections.Statement, error) {
	return reducers.Reduce(e)
}

// Reducers is the table of what each identity event does to the access
// read model.
func (Projection) Reducers() projections.Reducers { return reducers }

var reducers = projections.Reducers{
	domain.CatalogEntrySeeded:     projections.On(catalogEntry),
	domain.DeveloperAppRegistered: projections.On(catalogEntry),
	domain.APIKeyCreated: projections.On(func(e eventstore.Event, p domain.APIKeyCreatedV1) ([]projections.Statement, error) {
		scopes, _ := json.Marshal(nonNil(p.Scopes))
		return []projections.Statement{projections.Exec(`INSERT INTO {{access_api_keys}} (key_id, organization_id, name, service, scopes,
			resource_bindings, state, created_by, created_at, updated_at, version) VALUES ($1,$2,$3,$4,$5,'[]',$6,$7,$8,$8,$9)
			ON CONFLICT (key_id) DO NOTHING`,
			p.KeyID, e.OrganizationID, p.Name, p.Service, scopes, domain.KeyActive, p.CreatedBy, p.CreatedAt, e.StreamVersion)}, nil
	}),
	domain.APIKeyResourcesBound: projections.On(apiKeyUpdated),
	domain.APIKeyUpdated:        projections.On(apiKeyUpdated),
	domain.APIKeyRevoked: projections.On(func(e eventstore.Event, p domain.APIKeyRevokedV1) ([]projections.Statement, error) {
		return []projections.Statement{projections.Exec(`UPDATE {{access_api_keys}} SET state=$2, revoked_at=$3, updated_at=$3, version=$4
			WHERE key_id=$1 AND version < $4`, p.KeyID, domain.KeyRevoked, p.RevokedAt, e.StreamVersion)}, nil
	}),
	domain.PreferencesSet: projections.On(func(_ eventstore.Event, p domain.PreferencesSetV1) ([]projections.Statement, error) {
		prefs, err := json.Marshal(p.Preferences)
		if err != nil {
			return nil, err
		}
		return []projections.Statement{projections.Exec(`INSERT INTO {{access_preferences}} (organization_id, owner_id, preferences, updated_at)
			VALUES ($1,$2,$3,$4) ON CONFLICT (organization_id, owner_id) DO UPDATE SET preferences=EXCLUDED.preferences,
			updated_at=EXCLUDED.updated_at WHERE {{access_preferences}}.updated_at <= EXCLUDED.updated_at`,
			p.OrganizationID, p.PrincipalID, prefs, p.At)}, nil
	}),

	// Accounts and sessions: the accounts read model's (projections/identity).
	domain.OrganizationCreated:            projections.Ignore,
	domain.OrganizationDeleted:            projections.Ignore,
	domain.OrganizationRestored:           projections.Ignore,
	domain.OrganizationPermanentlyDeleted: projections.Ignore,
	domain.MemberAdded:                    projections.Ignore,
	domain.MemberRoleChanged:              projections.Ignore,
	domain.MemberRemoved:                  projections.Ignore,
	domain.UserCreated:                    projections.Ignore,
	domain.UserDeleted:                    projections.Ignore,
	domain.UserRestored:                   projections.Ignore,
	domain.UserPermanentlyDeleted:         projections.Ignore,
	domain.UserSessionsRevoked:            projections.Ignore,
	domain.SessionStarted:                 projections.Ignore,
	domain.SessionRefreshed:               projections.Ignore,
	domain.SessionEnded:                   projections.Ignore,
}.Ignoring(domain.WriteModelEventTypes...)

// catalogEntry writes a catalog row (seeded, or a developer application).
func catalogEntry(_ eventstore.Event, p domain.CatalogEntryV1) ([]projections.Statement, error) {
	entry, err := json.Marshal(p.CatalogEntry)
	if err != nil {
		return nil, err
	}
	return []projections.Statement{projections.Exec(`INSERT INTO {{access_catalog}} (app_id, surface_kind, surface_group, launchable,
		developer_app_id, owner_organization_id, entry, updated_at) VALUES ($1,$2,$3,$4,NULLIF($5,''),NULLIF($6,''),$7,$8)
		ON CONFLICT (app_id) DO UPDATE SET surface_kind=EXCLUDED.surface_kind, surface_group=EXCLUDED.surface_group,
		launchable=EXCLUDED.launchable, developer_app_id=EXCLUDED.developer_app_id,
		owner_organization_id=EXCLUDED.owner_organization_id, entry=EXCLUDED.entry, updated_at=EXCLUDED.updated_at`,
		p.AppID, p.SurfaceKind, p.SurfaceGroup, p.Launchable, p.DeveloperAppID, p.OwnerOrganizationID, entry, p.UpdatedAt)}, nil
}

// apiKeyUpdated replaces a key's scopes and bindings (and its name when
// the event names one); version guards against an older event.
func apiKeyUpdated(e eventstore.Event, p domain.APIKeyUpdatedV1) ([]projections.Statement, error) {
	scopes, _ := json.Marshal(nonNil(p.Scopes))
	bindings, _ := json.Marshal(p.ResourceBindings)
	if p.ResourceBindings == nil {
		bindings = []byte("[]")
	}
	return []projections.Statement{projections.Exec(`UPDATE {{access_api_keys}} SET name=COALESCE(NULLIF($2,''), name), scopes=$3,
		resource_bindings=$4, updated_at=$5, version=$6 WHERE key_id=$1 AND version < $6`,
		p.KeyID, p.Name, scopes, bindings, p.At, e.StreamVersion)}, nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// KeyView is one API key as lists show it.
type KeyView struct {
	KeyID            string                   `json:"key_id"`
	OrganizationID   string                   `json:"organization_id"`
	Name             string                   `json:"name"`
	Service          string                   `json:"service"`
	Scopes           []string                 `json:"scopes"`
	ResourceBindings []domain.ResourceBinding `json:"resource_bindings"`
	State            string                   `json:"state"`
	CreatedBy        string                   `json:"created_by"`
	CreatedAt        time.Time                `json:"created_at"`
	UpdatedAt        time.Time                `json:"updated_at"`
	RevokedAt        *time.Time               `json:"revoked_at"`
}
