package identity

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	identitycmd "github.com/platform/backend/commands/identity"
	"github.com/platform/backend/domain/errs"
	domain "github.com/platform/backend/domain/identity"
	"github.com/platform/backend/projections"
	"github.com/platform/backend/projections/history"
)

// Opener opens sealed values with their subject's key (the keyring).
type Opener interface {
	Open(ctx context.Context, subject, value string) (string, error)
}

// Queries reads the active generation of the accounts read model. It is
// also the commands' Directory (sign-in lookup, privacy maintenance).
type Queries struct {
	pool   *pgxpool.Pool
	reader *projections.Reader
	keys   Opener
}

var _ identitycmd.Directory = (*Queries)(nil)

func NewQueries(pool *pgxpool.Pool, reader *projections.Reader, keys Opener) *Queries {
	return &Queries{pool: pool, reader: reader, keys: keys}
}

func (q *Queries) sql(ctx context.Context, s string) (string, error) {
	return q.reader.SQL(ctx, Projection{}, s)
}

// open reveals a sealed value; an erased subject's value is "".
func (q *Queries) open(ctx context.Context, subject, value string) (string, error) {
	v, err := q.keys.Open(ctx, subject, value)
	if errors.Is(err, domain.ErrKeyDestroyed) {
		return "", nil
	}
	return v, err
}

// Organization is the read model's organization record.
type Organization struct {
	OrganizationID     string     `json:"organization_id"`
	Name               string     `json:"name"`
	Slug               string     `json:"slug"`
	Administration     bool       `json:"administration"`
	DeveloperWorkspace bool       `json:"developer_workspace"`
	State              string     `json:"state"`
	CreatedAt          time.Time  `json:"created_at"`
	DeletedAt          *time.Time `json:"deleted_at"`
}

// Organization returns one organization; missing and erased alike are 404.
func (q *Queries) Organization(ctx context.Context, id string) (Organization, error) {
	sql, err := q.sql(ctx, `SELECT organization_id, name, COALESCE(slug, ''), administration, developer_workspace, state,
		created_at, deleted_at FROM {{identity_organizations}} WHERE organization_id=$1 AND state <> 'erased'`)
	if err != nil {
		return Organization{}, err
	}
	var o Organization
	err = q.pool.QueryRow(ctx, sql, id).Scan(&o.OrganizationID, &o.Name, &o.Slug, &o.Administration, &o.DeveloperWorkspace,
		&o.State, &o.CreatedAt, &o.DeletedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return Organization{}, errs.NotFound("organization")
	}
	if err != nil {
		return Organization{}, err
	}
	o.Name, err = q.open(ctx, o.OrganizationID, o.Name)
	return o, err
}

// SlugInUse: an organization of the read model holds the slug (organizations
// created before uniqueness claims existed are known only here).
func (q *Queries) SlugInUse(ctx context.Context, slug string) (bool, error) {
	sql, err := q.sql(ctx, `SELECT EXISTS (SELECT 1 FROM {{identity_organizations}} WHERE slug=$1 AND state <> 'erased')`)
	if err != nil {
		return false, err
	}
	var used bool
	err = q.pool.QueryRow(ctx, sql, slug).Scan(&used)
	return used, err
}

// User is the read model's user record, personal data opened.
type User struct {
	UserID             string     `json:"user_id"`
	HomeOrganizationID string     `json:"home_organization_id"`
	Email              string     `json:"email"`
	Name               string     `json:"name"`
	State              string     `json:"state"`
	CreatedAt          time.Time  `json:"created_at"`
	DeletedAt          *time.Time `json:"deleted_at"`
}

// User returns one user; missing and erased alike are 404.
func (q *Queries) User(ctx context.Context, id string) (User, error) {
	sql, err := q.sql(ctx, `SELECT user_id, home_organization_id, email, name, state, created_at, deleted_at
		FROM {{identity_users}} WHERE user_id=$1 AND state <> 'erased'`)
	if err != nil {
		return User{}, err
	}
	var u User
	err = q.pool.QueryRow(ctx, sql, id).Scan(&u.UserID, &u.HomeOrganizationID, &u.Email, &u.Name, &u.State, &u.CreatedAt, &u.DeletedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return User{}, errs.NotFound("user")
	}
	if err != nil {
		return User{}, err
	}
	if u.Email, err = q.open(ctx, u.UserID, u.Email); err != nil {
		return User{}, err
	}
	u.Name, err = q.open(ctx, u.UserID, u.Name)
	return u, err
}

// UserVisible: the user is the principal, a member of the principal's
// organization, or the principal holds a platform-wide role. Anything else
// reads as missing.
func (q *Queries) UserVisible(ctx context.Context, p domain.Principal, userID string) error {
	if p.PlatformWide() || (p.UserID != "" && p.UserID == userID) {
		return nil
	}
	sql, err := q.sql(ctx, `SELECT EXISTS (SELECT 1 FROM {{identity_users}} u WHERE u.user_id=$1 AND u.state <> 'erased' AND
		(u.home_organization_id=$2 OR EXISTS (SELECT 1 FROM {{identity_memberships}} m
			WHERE m.user_id=$1 AND m.organization_id=$2 AND m.state='active')))`)
	if err != nil {
		return err
	}
	var ok bool
	if err := q.pool.QueryRow(ctx, sql, userID, p.OrganizationID).Scan(&ok); err != nil {
		return err
	}
	if !ok {
		return errs.NotFound("user")
	}
	return nil
}

// Member is one membership with its user's opened data.
type Member struct {
	OrganizationID string `json:"organization_id"`
	UserID         string `json:"user_id"`
	Email          string `json:"email,omitempty"`
	Name           string `json:"name,omitempty"`
	Role           string `json:"role"`
	PlatformRole   string `json:"platform_role,omitempty"`
	UserState      string `json:"user_state,omitempty"`
}

// Members lists an organization's active members.
func (q *Queries) Members(ctx context.Context, organizationID string) ([]Member, error) {
	sql, err := q.sql(ctx, `SELECT m.organization_id, m.user_id, COALESCE(u.email, ''), COALESCE(u.name, ''), m.role, m.platform_role,
		COALESCE(u.state, '') FROM {{identity_memberships}} m LEFT JOIN {{identity_users}} u ON u.user_id = m.user_id
		WHERE m.organization_id=$1 AND m.state='active' AND COALESCE(u.state, '') <> 'erased' ORDER BY m.user_id`)
	if err != nil {
		return nil, err
	}
	return q.members(ctx, sql, organizationID)
}

// Memberships lists a user's active memberships.
func (q *Queries) Memberships(ctx context.Context, userID string) ([]Member, error) {
	sql, err := q.sql(ctx, `SELECT m.organization_id, m.user_id, '', '', m.role, m.platform_role, ''
		FROM {{identity_memberships}} m JOIN {{identity_organizations}} o ON o.organization_id = m.organization_id
		WHERE m.user_id=$1 AND m.state='active' AND o.state <> 'erased' ORDER BY m.organization_id`)
	if err != nil {
		return nil, err
	}
	return q.members(ctx, sql, userID)
}

func (q *Queries) members(ctx context.Context, sql string, arg string) ([]Member, error) {
	rows, err := q.pool.Query(ctx, sql, arg)
	if err != nil {
		return nil, err
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Member, error) {
		var m Member
		err := r.Scan(&m.OrganizationID, &m.UserID, &m.Email, &m.Name, &m.Role, &m.PlatformRole, &m.UserState)
		return m, err
	})
	if err != nil {
		return nil, err
	}
	for i := range list {
		if list[i].Email, err = q.open(ctx, list[i].UserID, list[i].Email); err != nil {
			return nil, err
		}
		if list[i].Name, err = q.open(ctx, list[i].UserID, list[i].Name); err != nil {
			return nil, err
		}
	}
	if list == nil {
		list = []Member{}
	}
	return list, nil
}

// Session is a session's record (no token material exists in the read model).
type Session struct {
	SessionID      string     `json:"session_id"`
	OrganizationID string     `json:"organization_id"`
	Service        string     `json:"service,omitempty"`
	StartedAt      time.Time  `json:"started_at"`
	ExpiresAt      time.Time  `json:"expires_at"`
	EndedAt        *time.Time `json:"ended_at"`
	EndReason      *string    `json:"end_reason"`
}

// Sessions lists a user's sessions, newest first.
func (q *Queries) Sessions(ctx context.Context, userID string) ([]Session, error) {
	sql, err := q.sql(ctx, `SELECT session_id, organization_id, service, started_at, expires_at, ended_at, end_reason
		FROM {{identity_sessions}} WHERE user_id=$1 ORDER BY started_at DESC LIMIT 200`)
	if err != nil {
		return nil, err
	}
	rows, err := q.pool.Query(ctx, sql, userID)
	if err != nil {
		return nil, err
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Session, error) {
		var s Session
		err := r.Scan(&s.SessionID, &s.OrganizationID, &s.Service, &s.StartedAt, &s.ExpiresAt, &s.EndedAt, &s.EndReason)
		return s, err
	})
	if list == nil {
		list = []Session{}
	}
	return list, err
}

// OrganizationsOf implements identitycmd.Directory.
func (q *Queries) OrganizationsOf(ctx context.Context, userID string) ([]string, error) {
	list, err := q.Memberships(ctx, userID)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(list))
	for i, m := range list {
		out[i] = m.OrganizationID
	}
	return out, nil
}

// Tombstones implements identitycmd.Directory: the oldest soft-deleted
// organizations and users deleted before the cutoff.
func (q *Queries) Tombstones(ctx context.Context, before time.Time, after identitycmd.Tombstone, limit int) ([]identitycmd.Tombstone, error) {
	sql, err := q.sql(ctx, `SELECT kind, id, org, deleted_at FROM (
		(SELECT 'organization' AS kind, organization_id AS id, organization_id AS org, deleted_at FROM {{identity_organizations}}
			WHERE state='deleted' AND deleted_at < $1)
		UNION ALL (SELECT 'user', user_id, home_organization_id, deleted_at FROM {{identity_users}}
			WHERE state='deleted' AND deleted_at < $1)) t
		WHERE (deleted_at, id) > ($3, $4) ORDER BY deleted_at, id LIMIT $2`)
	if err != nil {
		return nil, err
	}
	rows, err := q.pool.Query(ctx, sql, before, limit, after.DeletedAt, after.ID)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (identitycmd.Tombstone, error) {
		var t identitycmd.Tombstone
		err := r.Scan(&t.Kind, &t.ID, &t.OrganizationID, &t.DeletedAt)
		return t, err
	})
}

// PurgeAudit implements identitycmd.Directory: one batch of audit records
// (the history read model) recorded before the cutoff is deleted.
func (q *Queries) PurgeAudit(ctx context.Context, before time.Time, limit int) (int64, error) {
	sql, err := q.reader.SQL(ctx, history.Projection{}, `DELETE FROM {{history_events}} WHERE event_id IN
		(SELECT event_id FROM {{history_events}} WHERE recorded_at < $1 ORDER BY recorded_at LIMIT $2)`)
	if err != nil {
		return 0, err
	}
	tag, err := q.pool.Exec(ctx, sql, before, limit)
	if err != nil {
		return 0, err
	}
	return tag.RowsAffected(), nil
}
