// Package publishing holds the publishing API's commands, one file each,
// and the publisher that sends claimed targets to the networks exactly once
// (publisher.go, reconcile.go).
package publishing

import (
	"context"
	"embed"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/internal/migrate"
)

//go:embed migrations/*.sql
var migrations embed.FS

// Migrate creates the publishing write-side tables: sealed network
// credentials and OAuth connect attempts (secrets never go into events).
func Migrate(ctx context.Context, pool *pgxpool.Pool) error {
	return migrate.Apply(ctx, pool, "publishing-commands", migrations, "migrations")
}

// Handlers executes publishing commands against the event store.
type Handlers struct {
	store *eventstore.Store
	pool  *pgxpool.Pool
	now   func() time.Time
	// access: transfer-organization's check of the target organization.
	access OrganizationAccess
	// kits: the brand service's answer for a brand's kit.
	kits BrandKits
}

// NewHandlers makes the handlers; now is the clock (nil: time.Now).
func NewHandlers(store *eventstore.Store, pool *pgxpool.Pool, now func() time.Time) *Handlers {
	return &Handlers{store: store, pool: pool, now: commands.Clock(now)}
}

// Now is the handlers' clock (UTC, microseconds).
func (h *Handlers) Now() time.Time { return h.now() }
