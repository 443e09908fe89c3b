package projections

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/eventstore"
)

// Reader gives query code the tables of a projection's active generation and
// waits for read-your-writes positions.
type Reader struct {
	pool   *pgxpool.Pool
	engine *Engine // optional: wakes waiters at once when it runs in-process
}

func NewReader(pool *pgxpool.Pool, engine *Engine) *Reader {
	return &Reader{pool: pool, engine: engine}
}

// Attach lets the engine wake waiters at once (the engine is built after
// the queries that read through the Reader). Call it before serving.
func (r *Reader) Attach(e *Engine) { r.engine = e }

// Active returns the active generation of a projection.
func (r *Reader) Active(ctx context.Context, name string) (int, error) {
	var gen int
	err := r.pool.QueryRow(ctx, `SELECT generation FROM proj_generations WHERE projection=$1 AND state='active'`, name).Scan(&gen)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, errs.Unavailable("projection "+name+" has no active generation yet", nil)
	}
	return gen, err
}

// SQL resolves {{base}} table names of the projection's active generation.
func (r *Reader) SQL(ctx context.Context, p Projection, sql string) (string, error) {
	gen, err := r.Active(ctx, p.Name())
	if err != nil {
		return "", err
	}
	return Resolver(p, gen).Replace(sql), nil
}

// MaxWait bounds a read-your-writes wait.
const MaxWait = 3 * time.Second

// WaitFor blocks until the projection's active generation has applied pos,
// or answers 503 with Retry-After after MaxWait.
func (r *Reader) WaitFor(ctx context.Context, name string, pos eventstore.Position) error {
	deadline := time.Now().Add(MaxWait)
	for {
		var changed <-chan struct{}
		if r.engine != nil {
			changed = r.engine.changedChan()
		}
		var applied int64
		err := r.pool.QueryRow(ctx, `SELECT COALESCE((SELECT v.version FROM proj_stream_versions v
			JOIN proj_generations g ON g.projection = v.projection AND g.generation = v.generation AND g.state = 'active'
			WHERE v.projection=$1 AND v.stream_id=$2), 0)`, name, pos.StreamID).Scan(&applied)
		if err != nil {
			return err
		}
		if applied >= pos.Version {
			return nil
		}
		left := time.Until(deadline)
		if left <= 0 {
			e := errs.Unavailable(fmt.Sprintf("the read model has not applied position %s yet", pos), nil)
			e.RetryAfterSeconds = 1
			return e
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-changed:
		case <-time.After(min(left, 25*time.Millisecond)):
		}
	}
}

// WaitForCaller is WaitFor for a request: a position is waited for only when
// its stream belongs to an organization the caller sees (sees reports it).
// A position of a stream outside them is treated exactly like a position of
// a stream that does not exist: there is nothing of the caller's to wait
// for, and the query answers at once, after the same one-row lookup. Before,
// another tenant's stream answered at once up to its version and after the
// 3 s bound past it, while a missing stream always took the 3 s: a caller
// could learn whether another tenant's stream existed and how far it had
// gone.
func (r *Reader) WaitForCaller(ctx context.Context, name string, pos eventstore.Position, sees func(organizationID string) bool) error {
	var org string
	err := r.pool.QueryRow(ctx, `SELECT organization_id FROM es_streams WHERE stream_id=$1`, pos.StreamID).Scan(&org)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return nil
	case err != nil:
		return err
	case !sees(org):
		return nil
	}
	return r.WaitFor(ctx, name, pos)
}

// Placeholders lists the {{base}} names a statement uses, for tests that
// check every reducer statement names only its own tables.
func Placeholders(sql string) []string {
	var out []string
	for {
		i := strings.Index(sql, "{{")
		if i < 0 {
			return out
		}
		j := strings.Index(sql[i:], "}}")
		if j < 0 {
			return out
		}
		out = append(out, sql[i+2:i+j])
		sql = sql[i+j+2:]
	}
}
