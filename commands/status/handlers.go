// Package status holds the status service's commands, one file each.
package status

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/event"
	domain "github.com/platform/backend/domain/status"
	"github.com/platform/backend/internal/outbound"
)

// Handlers executes status commands against the event store.
type Handlers struct {
	store commands.Store
	now   func() time.Time
	// pool reads the write side beyond one stream (an organization's
	// components, the component cap, the manual-poll limit).
	pool *pgxpool.Pool
	cfg  Config
	urls outbound.Policy // the static check of a checkUrl when it is stored
	// registrations bounds component registrations in flight (see withinComponentCap).
	registrations chan struct{}
}

// Option configures Handlers.
type Option func(*Handlers)

// WithPool gives the handlers the database of the event store, for the
// write-side reads over many streams. Without it, polls and the component
// cap are unavailable.
func WithPool(pool *pgxpool.Pool) Option { return func(h *Handlers) { h.pool = pool } }

// WithConfig sets the limits (defaults otherwise).
func WithConfig(cfg Config) Option { return func(h *Handlers) { h.cfg = cfg } }

// WithURLPolicy is the outbound client's address policy, so a checkUrl that
// names an internal address is refused when it is stored.
func WithURLPolicy(p outbound.Policy) Option { return func(h *Handlers) { h.urls = p } }

func NewHandlers(store commands.Store, now func() time.Time, opts ...Option) *Handlers {
	h := &Handlers{store: store, now: commands.Clock(now), registrations: make(chan struct{}, 2)}
	for _, o := range opts {
		o(h)
	}
	h.cfg = h.cfg.WithDefaults()
	return h
}

// run executes a status command on one stream (commands.Execute): decide
// with the write model and answer with its state, which is also saved as
// the stream's snapshot so the next command reads one row instead of the
// whole stream.
func run[A any, S any](ctx context.Context, h *Handlers, m commands.Meta, streamType, streamID string,
	load func([]event.Recorded) (A, error), act func(A) ([]event.Change, error), state func(A) S, opts ...commands.Option) (commands.Result[S], error) {
	opts = append([]commands.Option{commands.Snapshots(domain.SnapshotSchema)}, opts...)
	return commands.Execute(ctx, h.store, m, streamType, streamID, load, act, state, opts...)
}
