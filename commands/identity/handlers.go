// Package identity holds the identity commands (one file each) and
// credential validation.
package identity

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/platform/backend/commands"
	domain "github.com/platform/backend/domain/identity"
)

type Handlers struct {
	store commands.Store
	now   func() time.Time
	keys  *Keyring
	// attempts is the per-account password backoff (nil: none).
	attempts *loginThrottle
	// onboard is the access half, set by NewAccess: adding a user whose
	// address has an account elsewhere invites it (user_add.go).
	onboard *Access
	dir     Directory
	cfg     SessionConfig
	// serviceAccess answers whether an organization may use a service, for
	// service-scoped sign-in; nil lets every organization use every service.
	serviceAccess func(ctx context.Context, organizationID, service string) (bool, error)
	cache         streamCache    // validation's decoded write models
	permissions   permissionMemo // validation's evaluated permissions
	answers       answerCache    // validation's accepted answers, at the heads they read
	// headReader answers validation's stream heads (nil: the store, a
	// round trip per validation).
	headReader HeadReader
}

// HeadReader reads the current version of streams (Store.Heads): an
// eventstore.HeadWatch answers from memory what no change has moved.
type HeadReader interface {
	Heads(ctx context.Context, streamIDs ...string) (map[string]int64, error)
}

// WatchedStreamTypes are the streams validation reads: every append to them
// must be announced to a HeadWatch (eventstore.Store.NotifyHeads) for it
// to serve their heads.
var WatchedStreamTypes = []string{domain.StreamAPIKey, domain.StreamSession, domain.StreamUser, domain.StreamOrganization,
	domain.StreamAccess, domain.StreamCatalog}

// WithHeads makes validation read stream heads through r (an
// eventstore.HeadWatch over WatchedStreamTypes) instead of the store.
func WithHeads(r HeadReader) Option { return func(h *Handlers) { h.headReader = r } }

// Option configures Handlers beyond the event store.
type Option func(*Handlers)

// WithKeys gives the handlers the key tables (accounts need them: personal
// data is sealed per subject) and the per-account password backoff, which
// lives beside them in PostgreSQL.
func WithKeys(pool *pgxpool.Pool) Option {
	return func(h *Handlers) { h.keys, h.attempts = NewKeyring(pool), &loginThrottle{pool: pool} }
}

// WithDirectory gives the handlers the read-model lookups sign-in and
// privacy maintenance start from (they confirm on the write side).
func WithDirectory(d Directory) Option { return func(h *Handlers) { h.dir = d } }

// WithSessions sets token lifetimes.
func WithSessions(c SessionConfig) Option { return func(h *Handlers) { h.cfg = c.WithDefaults() } }

// WithServiceAccess plugs the organization-service-access check used by
// first-party service-scoped sign-in.
func WithServiceAccess(f func(ctx context.Context, organizationID, service string) (bool, error)) Option {
	return func(h *Handlers) { h.serviceAccess = f }
}

func NewHandlers(store commands.Store, now func() time.Time, opts ...Option) *Handlers {
	h := &Handlers{store: store, now: commands.Clock(now), cfg: SessionConfig{}.WithDefaults()}
	for _, o := range opts {
		o(h)
	}
	return h
}

// SetDirectory wires the read model after construction (the read model's
// queries need the keyring the handlers own).
func (h *Handlers) SetDirectory(d Directory) { h.dir = d }

// Keys is the keyring (nil without WithKeys).
func (h *Handlers) Keys() *Keyring { return h.keys }

// Store is the event store the handlers write to.
func (h *Handlers) Store() commands.Store { return h.store }

// SessionConfig bounds token lifetimes ("not shown" in seed 001; ours).
type SessionConfig struct {
	AccessTTL  time.Duration // default 15 minutes
	SessionTTL time.Duration // refresh lifetime, default 30 days
}

func (c SessionConfig) WithDefaults() SessionConfig {
	if c.AccessTTL <= 0 {
		c.AccessTTL = 15 * time.Minute
	}
	if c.SessionTTL <= 0 {
		c.SessionTTL = 30 * 24 * time.Hour
	}
	return c
}

// Directory is what the accounts read model answers for commands that start
// from a lookup (memberships at sign-in, privacy maintenance). Every answer is
// confirmed on the write side before anything is decided.
type Directory interface {
	// OrganizationsOf lists the organizations the user is a member of.
	OrganizationsOf(ctx context.Context, userID string) ([]string, error)
	// Tombstones lists soft-deleted subjects deleted before the cutoff,
	// ordered by (deleted at, id), after the given one (keyset pages: the
	// read model may not show a purge of the previous page yet).
	Tombstones(ctx context.Context, before time.Time, after Tombstone, limit int) ([]Tombstone, error)
	// PurgeAudit deletes up to limit audit (history) records recorded
	// before the cutoff and says how many it deleted.
	PurgeAudit(ctx context.Context, before time.Time, limit int) (int64, error)
}

// Tombstone is one soft-deleted subject.
type Tombstone struct {
	Kind           string // "organization" or "user"
	ID             string
	OrganizationID string // the tenant of its stream
	DeletedAt      time.Time
}

// SetServiceAccess plugs the organization-service-access check after
// construction (the access half is built from these handlers).
func (h *Handlers) SetServiceAccess(f func(ctx context.Context, organizationID, service string) (bool, error)) {
	h.serviceAccess = f
}
