// Package gateway holds the usage gateway's commands, one file each, and the
// one metered path every provider operation takes (metered.go: reserve ->
// call -> settle). Client (client.go) is the library other contexts call
// in-process; the HTTP service calls the same methods.
package gateway

import (
	"context"
	"embed"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	domain "github.com/platform/backend/domain/gateway"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/internal/groupcommit"
	"github.com/platform/backend/internal/migrate"
)

//go:embed migrations/*.sql
var migrations embed.FS

// Migrate creates the gateway's write-side tables (budgets, reservations,
// the caps mirror) and the reserve function.
func Migrate(ctx context.Context, pool *pgxpool.Pool) error {
	return migrate.Apply(ctx, pool, "gateway-commands", migrations, "migrations")
}

// Handlers executes the gateway's commands.
type Handlers struct {
	store commands.Store
	pool  *pgxpool.Pool
	now   func() time.Time
	cfg   Config
	log   *slog.Logger
	// events is the event store itself, for batches (the sweeper's).
	events *eventstore.Store
	// settles batches concurrent calls' settles into shared transactions
	// (settle.go).
	settles *eventstore.GroupCommit
	// reserves batches concurrent calls' reservations into one statement
	// and one commit (reserve.go).
	reserves *groupcommit.Queue[reserveItem, reserved]

	// landings hold the settles and stored answers of answered calls
	// while the database is out, until they land (landings.go).
	landings *landings
	// settleLog keeps held settles past the process's death (nil: in
	// memory only; settle_log.go).
	settleLog *SettleLog

	// health is the last provider-health state this process saw per stream,
	// so only an attempt that disagrees issues a command (health.go).
	healthMu sync.Mutex
	health   map[string]string

	// fees is serviceFee's memory (WatchFees; nil: every BYOK call reads
	// the database).
	fees *eventstore.Memo[string, float64]
}

// NewHandlers makes the handlers over the event store and its database.
func NewHandlers(store *eventstore.Store, pool *pgxpool.Pool, now func() time.Time, cfg Config, log *slog.Logger) *Handlers {
	if log == nil {
		log = slog.Default()
	}
	h := &Handlers{store: store, pool: pool, now: commands.Clock(now), cfg: cfg.WithDefaults(), log: log, health: map[string]string{},
		events: store, settles: eventstore.NewGroupCommit(store, settleWrites), landings: newLandings(log)}
	h.reserves = groupcommit.New(h.reserveBatch, reserveBatchSize)
	return h
}

// Config is the handlers' configuration, defaults applied.
func (h *Handlers) Config() Config { return h.cfg }

// run executes a gateway command whose answer is its write model's state,
// saved as the stream's snapshot.
func run[A any, S any](ctx context.Context, h *Handlers, m commands.Meta, streamType, streamID string,
	load func([]event.Recorded) (A, error), act func(A) ([]event.Change, error), state func(A) S, opts ...commands.Option) (commands.Result[S], error) {
	opts = append([]commands.Option{commands.Snapshots(domain.SnapshotSchema)}, opts...)
	return commands.Execute(ctx, h.store, m, streamType, streamID, load, act, state, opts...)
}

// dbError: an unreachable database is 503 (fail closed); any other error
// stays as it is (a refused statement is a bug: 500).
func dbError(err error) error {
	if err == nil {
		return nil
	}
	if _, typed := errs.As(err); typed || errors.Is(err, context.Canceled) {
		return err
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch pgErr.SQLState()[:2] {
		case "08", "53", "57":
		default:
			return err
		}
	}
	return errs.Unavailable("the gateway's budget store is unavailable", err)
}

// systemMeta is the meta of a command the gateway issues itself (health
// transitions, the sweeper).
func systemMeta(org, actor, correlation string) commands.Meta {
	return commands.Meta{OrganizationID: org, Actor: eventstore.Actor{ID: actor, Type: "system"}, CorrelationID: correlation}
}
