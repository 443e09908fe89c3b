package status

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/errs"
	domain "github.com/platform/backend/domain/status"
	"github.com/platform/backend/internal/migrate"
)

//go:embed migrations/*.sql
var migrations embed.FS

// Migrate creates the status commands' index and table (after the event
// store's migrations: the index is on its stream heads).
func Migrate(ctx context.Context, pool *pgxpool.Pool) error {
	return migrate.Apply(ctx, pool, "status-commands", migrations, "migrations")
}

// Surface is one component to check, as the write side knows it.
type Surface struct {
	ComponentID      string
	CheckURL         string
	Status           string
	ConsecutiveFails int
}

// Surfaces lists an organization's components from the write side: a
// command sees every write that came before it, which the read model only
// shows after its lag (a poll right after an upsert polled nothing).
func (h *Handlers) Surfaces(ctx context.Context, organizationID string) ([]Surface, error) {
	all, err := h.listSurfaces(ctx, organizationID)
	return all[organizationID], err
}

// AllSurfaces lists every organization's components from the write side,
// for the periodic poller.
func (h *Handlers) AllSurfaces(ctx context.Context) (map[string][]Surface, error) {
	return h.listSurfaces(ctx, "")
}

// listSurfaces reads the component stream heads (one organization, or all
// when organizationID is empty). A head's snapshot is the component's state
// when it is of the current schema and at the head's version (every status
// command saves one); otherwise the stream is folded from the event store.
func (h *Handlers) listSurfaces(ctx context.Context, organizationID string) (map[string][]Surface, error) {
	if h.pool == nil {
		return nil, errs.Unavailable("status: no database for the component list", nil)
	}
	rows, err := h.pool.Query(ctx, `SELECT organization_id, stream_id, version, snapshot::text, snapshot_version, snapshot_schema
		FROM es_streams WHERE stream_type = 'status.component' AND ($1 = '' OR organization_id = $1)
		ORDER BY organization_id, stream_id`, organizationID)
	if err != nil {
		return nil, dbError(err)
	}
	type head struct {
		org, stream          string
		version, snapVersion int64
		snapshot             *string
		snapSchema           int
	}
	heads, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (head, error) {
		var x head
		err := r.Scan(&x.org, &x.stream, &x.version, &x.snapshot, &x.snapVersion, &x.snapSchema)
		return x, err
	})
	if err != nil {
		return nil, dbError(err)
	}
	out := map[string][]Surface{}
	for _, x := range heads {
		var st domain.ComponentState
		if x.snapshot != nil && x.snapSchema == domain.SnapshotSchema && x.snapVersion == x.version {
			if err := json.Unmarshal([]byte(*x.snapshot), &st); err != nil {
				return nil, fmt.Errorf("status: snapshot of %s: %w", x.stream, err)
			}
		} else {
			history, err := h.store.LoadLatest(ctx, x.stream, domain.SnapshotSchema)
			if err != nil {
				return nil, dbError(err)
			}
			c, err := domain.LoadComponent(commands.Recorded(history))
			if err != nil {
				return nil, fmt.Errorf("status: load %s: %w", x.stream, err)
			}
			st = c.State()
		}
		if st.Status == "" {
			continue // a stream without a registration
		}
		out[x.org] = append(out[x.org], Surface{ComponentID: st.ComponentID, CheckURL: st.CheckURL,
			Status: st.Status, ConsecutiveFails: st.ConsecutiveFails})
	}
	return out, nil
}

// withinComponentCap runs define unless it would register the
// organization's MaxComponents+1-th component. New registrations of one
// organization are serialized on a transaction advisory lock held from the
// count until define has committed, so two concurrent registrations cannot
// both take the last place. Changing an existing component always passes.
func withinComponentCap[T any](ctx context.Context, h *Handlers, organizationID, streamID string, define func() (T, error)) (T, error) {
	var zero T
	if h.pool == nil {
		return zero, errs.Unavailable("status: no database for the component cap", nil)
	}
	// A registration holds two connections at once (the lock's and the
	// command's). Unbounded, concurrent registrations could take every
	// connection of the pool for their locks and then wait forever for a
	// second one; a few at a time per process cannot.
	select {
	case h.registrations <- struct{}{}:
		defer func() { <-h.registrations }()
	case <-ctx.Done():
		return zero, ctx.Err()
	}
	tx, err := h.pool.Begin(ctx)
	if err != nil {
		return zero, dbError(err)
	}
	// Only reads and the lock: rolling back releases the lock.
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, "status.components:"+organizationID); err != nil {
		return zero, dbError(err)
	}
	var count int
	var exists bool
	if err := tx.QueryRow(ctx, `SELECT count(*), coalesce(bool_or(stream_id = $2), false) FROM es_streams
		WHERE stream_type = 'status.component' AND organization_id = $1`, organizationID, streamID).Scan(&count, &exists); err != nil {
		return zero, dbError(err)
	}
	if !exists && count >= h.cfg.MaxComponents {
		return zero, errs.Conflict("component_limit_reached",
			fmt.Sprintf("the organization has the maximum of %d components", h.cfg.MaxComponents))
	}
	return define()
}

// claimManualPoll takes the organization's next manual poll, or answers
// rate_limited with the seconds until it is free. The claim is one atomic
// statement on PostgreSQL's clock, so it holds across processes.
func (h *Handlers) claimManualPoll(ctx context.Context, organizationID string) error {
	if h.cfg.ManualPollInterval < 0 {
		return nil
	}
	if h.pool == nil {
		return errs.Unavailable("status: no database for the poll limit", nil)
	}
	// The main query's snapshot predates the claim: a row a concurrent first
	// claim inserted may be invisible to it, hence the COALESCE (wait the
	// whole interval).
	var claimed bool
	var waitMicros int64
	err := h.pool.QueryRow(ctx, `WITH claim AS (
			INSERT INTO status_poll_limits AS l (organization_id, next_at)
			VALUES ($1, clock_timestamp() + $2 * interval '1 microsecond')
			ON CONFLICT (organization_id) DO UPDATE SET next_at = EXCLUDED.next_at WHERE l.next_at <= clock_timestamp()
			RETURNING 1)
		SELECT EXISTS (SELECT 1 FROM claim), COALESCE((SELECT extract(epoch FROM next_at - clock_timestamp()) * 1e6
			FROM status_poll_limits WHERE organization_id = $1)::bigint, $2)`,
		organizationID, h.cfg.ManualPollInterval.Microseconds()).Scan(&claimed, &waitMicros)
	if err != nil {
		return dbError(err)
	}
	if !claimed {
		wait := max(time.Duration(waitMicros)*time.Microsecond, time.Second)
		return errs.RateLimited(int(math.Ceil(wait.Seconds())))
	}
	return nil
}

// dbError tells an outage (503 dependency_unavailable) from a statement the
// database refused (a bug: 500).
func dbError(err error) error {
	if _, typed := errs.As(err); typed || errors.Is(err, context.Canceled) {
		return err
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch pgErr.SQLState()[:2] {
		case "08", "53", "57": // connection exception, insufficient resources, operator intervention
		default:
			return err
		}
	}
	return errs.Unavailable("status: the database is unavailable", err)
}
