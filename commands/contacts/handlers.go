// Package contacts holds the contacts API's commands, one file each, and
// the write side they share: the contacts' rows (records.go) and the
// import's streamed CSV reading.
package contacts

import (
	"context"
	"embed"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/internal/migrate"
	"github.com/platform/backend/internal/objectstore"
)

//go:embed migrations/*.sql
var migrations embed.FS

// Migrate creates the contacts' write-side table and the search functions
// the read model's columns use.
func Migrate(ctx context.Context, pool *pgxpool.Pool) error {
	return migrate.Apply(ctx, pool, "contacts-commands", migrations, "migrations")
}

// Handlers executes contacts commands.
type Handlers struct {
	store   *eventstore.Store
	pool    *pgxpool.Pool
	now     func() time.Time
	cfg     Config
	objects objectstore.Store
}

// Option configures Handlers.
type Option func(*Handlers)

// WithConfig sets the limits (defaults otherwise).
func WithConfig(cfg Config) Option { return func(h *Handlers) { h.cfg = cfg } }

// WithObjects is where attachments' bytes go.
func WithObjects(o objectstore.Store) Option { return func(h *Handlers) { h.objects = o } }

// NewHandlers builds the handlers on the event store and its database
// (the contacts' rows are in the same one).
func NewHandlers(store *eventstore.Store, pool *pgxpool.Pool, now func() time.Time, opts ...Option) *Handlers {
	h := &Handlers{store: store, pool: pool, now: commands.Clock(now)}
	for _, o := range opts {
		o(h)
	}
	h.cfg = h.cfg.WithDefaults()
	return h
}

// Config is the limits in force (defaults applied).
func (h *Handlers) Config() Config { return h.cfg }
