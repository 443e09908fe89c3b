// Package identity is the identity service's accounts read model:
// organizations, users, memberships and sessions. Personal data stays sealed
// here as it is in the events (queries open it with the subject's key), so a
// permanently deleted subject's data is unreadable in every generation, and
// its erasure event clears the row to a tombstone.
package identity

import (
	domain "github.com/platform/backend/domain/identity"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/projections"
)

// Name of the projection (consumer group, registry rows).
const Name = "identity_accounts"

// Projection builds the accounts read model.
type Projection struct{}

var _ projections.Declared = Projection{}

func (Projection) Name() string       { return Name }
func (Projection) Contexts() []string { return []string{"identity"} }
func (Projection) Tables() []string {
	return []string{"identity_organizations", "identity_users", "identity_memberships", "identity_sessions"}
}

func (Projection) Schema() []string {
	return []string{
		`CREATE TABLE IF NOT EXISTS {{identity_organizations}} (
			organization_id text PRIMARY KEY, name text NOT NULL, slug text, administration boolean NOT NULL,
			developer_workspace boolean NOT NULL, state text NOT NULL, created_at timestamptz NOT NULL,
			deleted_at timestamptz, updated_at timestamptz NOT NULL)`,
		`CREATE INDEX IF NOT EXISTS {{identity_organizations}}_slug ON {{identity_organizations}} (slug)`,
		`CREATE INDEX IF NOT EXISTS {{identity_organizations}}_deleted ON {{identity_organizations}} (deleted_at) WHERE state = 'deleted'`,
		`CREATE TABLE IF NOT EXISTS {{identity_users}} (
			user_id text PRIMARY KEY, home_organization_id text NOT NULL, email_hash text, email text NOT NULL,
			name text NOT NULL, state text NOT NULL, created_at timestamptz NOT NULL, deleted_at timestamptz,
			updated_at timestamptz NOT NULL)`,
		`CREATE INDEX IF NOT EXISTS {{identity_users}}_email ON {{identity_users}} (email_hash)`,
		`CREATE INDEX IF NOT EXISTS {{identity_users}}_deleted ON {{identity_users}} (deleted_at) WHERE state = 'deleted'`,
		`CREATE TABLE IF NOT EXISTS {{identity_memberships}} (
			organization_id text NOT NULL, user_id text NOT NULL, role text NOT NULL, platform_role text NOT NULL,
			state text NOT NULL, updated_at timestamptz NOT NULL, PRIMARY KEY (organization_id, user_id))`,
		`CREATE INDEX IF NOT EXISTS {{identity_memberships}}_user ON {{identity_memberships}} (user_id)`,
		`CREATE TABLE IF NOT EXISTS {{identity_sessions}} (
			session_id text PRIMARY KEY, user_id text NOT NULL, organization_id text NOT NULL, service text NOT NULL,
			started_at timestamptz NOT NULL, expires_at timestamptz NOT NULL, ended_at timestamptz, end_reason text,
			refreshed_at timestamptz)`,
		`CREATE INDEX IF NOT EXISTS {{identity_sessions}}_user ON {{identity_sessions}} (user_id, started_at)`,
		// refreshed_at came with the sessions list: the engine runs this
		// schema for every generation it starts, so a generation created
		// before gains the column (NULL until a rebuild fills it from the log).
		`ALTER TABLE {{identity_sessions}} ADD COLUMN IF NOT EXISTS refreshed_at timestamptz`,
	}
}

func (Projection) Reduce(e eventstore.Event) ([]projections.Statement, error) {
	return reducers.Reduce(e)
}

// Reducers is the table of what each identity event does to the accounts
// read model.
func (Projection) Reducers() projections.Reducers { return reducers }

var reducers = projections.Reducers{
	domain.OrganizationCreated: projections.On(func(e eventstore.Event, p domain.OrganizationCreatedV1) ([]projections.Statement, error) {
		return []projections.Statement{projections.Exec(`INSERT INTO {{identity_organizations}} (organization_id, name, slug,
			administration, developer_workspace, state, created_at, updated_at) VALUES ($1,$2,$3,$4,$5,'active',$6,$6)
			ON CONFLICT (organization_id) DO NOTHING`,
			e.StreamID, p.Name, p.Slug, p.Administration, p.DeveloperWorkspace, p.CreatedAt)}, nil
	}),
	domain.OrganizationDeleted: projections.On(func(e eventstore.Event, p domain.OrganizationChangedV1) ([]projections.Statement, error) {
		return []projections.Statement{projections.Exec(`UPDATE {{identity_organizations}} SET state='deleted', deleted_at=$2,
			updated_at=$2 WHERE organization_id=$1 AND state <> 'erased'`, e.StreamID, p.At)}, nil
	}),
	domain.OrganizationRestored: projections.On(func(e eventstore.Event, p domain.OrganizationChangedV1) ([]projections.Statement, error) {
		return []projections.Statement{projections.Exec(`UPDATE {{identity_organizations}} SET state='active', deleted_at=NULL,
			updated_at=$2 WHERE organization_id=$1 AND state <> 'erased'`, e.StreamID, p.At)}, nil
	}),
	domain.OrganizationPermanentlyDeleted: projections.On(func(e eventstore.Event, p domain.OrganizationChangedV1) ([]projections.Statement, error) {
		return []projections.Statement{
			projections.Exec(`UPDATE {{identity_organizations}} SET state='erased', name='', slug=NULL, updated_at=$2
				WHERE organization_id=$1`, e.StreamID, p.At),
			projections.Exec(`UPDATE {{identity_memberships}} SET state='removed', updated_at=$2 WHERE organization_id=$1`, e.StreamID, p.At),
		}, nil
	}),
	domain.MemberAdded:       projections.On(memberSet),
	domain.MemberRoleChanged: projections.On(memberSet),
	domain.MemberRemoved: projections.On(func(e eventstore.Event, p domain.MemberRemovedV1) ([]projections.Statement, error) {
		return []projections.Statement{projections.Exec(`UPDATE {{identity_memberships}} SET state='removed', updated_at=$3
			WHERE organization_id=$1 AND user_id=$2`, e.StreamID, p.UserID, p.At)}, nil
	}),
	domain.UserCreated: projections.On(func(e eventstore.Event, p domain.UserCreatedV1) ([]projections.Statement, error) {
		var hash *string
		if p.EmailHash != "" {
			hash = &p.EmailHash
		}
		return []projections.Statement{projections.Exec(`INSERT INTO {{identity_users}} (user_id, home_organization_id, email_hash,
			email, name, state, created_at, updated_at) VALUES ($1,$2,$3,$4,$5,'active',$6,$6) ON CONFLICT (user_id) DO NOTHING`,
			e.StreamID, p.OrganizationID, hash, p.Email, p.Name, p.CreatedAt)}, nil
	}),
	domain.UserDeleted: projections.On(func(e eventstore.Event, p domain.UserChangedV1) ([]projections.Statement, error) {
		return []projections.Statement{projections.Exec(`UPDATE {{identity_users}} SET state='deleted', deleted_at=$2, updated_at=$2
			WHERE user_id=$1 AND state <> 'erased'`, e.StreamID, p.At)}, nil
	}),
	domain.UserRestored: projections.On(func(e eventstore.Event, p domain.UserChangedV1) ([]projections.Statement, error) {
		return []projections.Statement{projections.Exec(`UPDATE {{identity_users}} SET state='active', deleted_at=NULL, updated_at=$2
			WHERE user_id=$1 AND state <> 'erased'`, e.StreamID, p.At)}, nil
	}),
	domain.UserPermanentlyDeleted: projections.On(func(e eventstore.Event, p domain.UserChangedV1) ([]projections.Statement, error) {
		return []projections.Statement{
			projections.Exec(`UPDATE {{identity_users}} SET state='erased', email='', name='', email_hash=NULL, updated_at=$2
				WHERE user_id=$1`, e.StreamID, p.At),
			projections.Exec(`UPDATE {{identity_memberships}} SET state='removed', updated_at=$2 WHERE user_id=$1`, e.StreamID, p.At),
			projections.Exec(`UPDATE {{identity_sessions}} SET ended_at=$2, end_reason='user_deleted' WHERE user_id=$1 AND ended_at IS NULL`,
				e.StreamID, p.At),
		}, nil
	}),
	domain.UserSessionsRevoked: projections.On(func(e eventstore.Event, p domain.UserSessionsRevokedV1) ([]projections.Statement, error) {
		return []projections.Statement{projections.Exec(`UPDATE {{identity_sessions}} SET ended_at=$2, end_reason=$3
			WHERE user_id=$1 AND ended_at IS NULL AND started_at <= $2`, e.StreamID, p.At, domain.EndEverywhere)}, nil
	}),
	domain.SessionStarted: projections.On(func(e eventstore.Event, p domain.SessionStartedV1) ([]projections.Statement, error) {
		return []projections.Statement{projections.Exec(`INSERT INTO {{identity_sessions}} (session_id, user_id, organization_id,
			service, started_at, expires_at) VALUES ($1,$2,$3,$4,$5,$6) ON CONFLICT (session_id) DO NOTHING`,
			e.StreamID, p.UserID, p.OrganizationID, p.Service, p.StartedAt, p.ExpiresAt)}, nil
	}),
	domain.SessionRefreshed: projections.On(func(e eventstore.Event, p domain.SessionRefreshedV1) ([]projections.Statement, error) {
		return []projections.Statement{projections.Exec(`UPDATE {{identity_sessions}} SET refreshed_at=$2
			WHERE session_id=$1 AND (refreshed_at IS NULL OR refreshed_at < $2)`, e.StreamID, p.At)}, nil
	}),
	domain.SessionEnded: projections.On(func(e eventstore.Event, p domain.SessionEndedV1) ([]projections.Statement, error) {
		return []projections.Statement{projections.Exec(`UPDATE {{identity_sessions}} SET ended_at=$2, end_reason=$3
			WHERE session_id=$1 AND ended_at IS NULL`, e.StreamID, p.At, p.Reason)}, nil
	}),

	// The access half: the access read model's (projections/access).
	domain.APIKeyCreated:          projections.Ignore,
	domain.APIKeyResourcesBound:   projections.Ignore,
	domain.APIKeyUpdated:          projections.Ignore,
	domain.APIKeyRevoked:          projections.Ignore,
	domain.CatalogEntrySeeded:     projections.Ignore,
	domain.DeveloperAppRegistered: projections.Ignore,
	domain.PreferencesSet:         projections.Ignore,
}.Ignoring(domain.WriteModelEventTypes...)

// memberSet records a membership or its new role. Streams of one topic
// interleave by partition: a user's erasure may be applied before a
// membership event of an organization's stream, so a membership of an
// erased user is recorded as removed.
func memberSet(e eventstore.Event, p domain.MemberV1) ([]projections.Statement, error) {
	return []projections.Statement{projections.Exec(`INSERT INTO {{identity_memberships}} (organization_id, user_id, role,
		platform_role, state, updated_at) VALUES ($1,$2,$3,$4,
		CASE WHEN EXISTS (SELECT 1 FROM {{identity_users}} WHERE user_id=$2 AND state='erased') THEN 'removed' ELSE 'active' END, $5)
		ON CONFLICT (organization_id, user_id) DO UPDATE SET role=EXCLUDED.role, platform_role=EXCLUDED.platform_role,
		state=EXCLUDED.state, updated_at=EXCLUDED.updated_at`,
		e.StreamID, p.UserID, domain.RoleOrDefault(p.Role), p.PlatformRole, p.At)}, nil
}
