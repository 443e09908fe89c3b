package projections

import (
	"context"
	"errors"
	"fmt"
	"slices"
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

// WaitFor blocks until the projection's active generation has applied
// every position, or answers 503 with Retry-After after MaxWait (one bound
// for all of them). A position of a stream whose context the projection
// does not read is never applied by it, so there is nothing to wait for:
// a command that wrote to two contexts (a post and its metered AI call)
// answers both positions, and a read of either context waits for its own.
func (r *Reader) WaitFor(ctx context.Context, name string, positions ...eventstore.Position) error {
	return r.wait(ctx, name, positions, nil)
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
func (r *Reader) WaitForCaller(ctx context.Context, name string, positions eventstore.Positions, sees func(organizationID string) bool) error {
	return r.wait(ctx, name, positions, sees)
}

// wait keeps the positions there is something to wait for (sees nil: every
// stream, missing ones included) and polls until the projection has them.
func (r *Reader) wait(ctx context.Context, name string, positions []eventstore.Position, sees func(organizationID string) bool) error {
	ids := make([]string, len(positions))
	for i, p := range positions {
		ids[i] = p.StreamID
	}
	rows, err := r.pool.Query(ctx, `SELECT stream_id, organization_id, stream_type FROM es_streams WHERE stream_id = ANY($1)`, ids)
	if err != nil {
		return err
	}
	type head struct{ org, streamType string }
	heads := map[string]head{}
	for rows.Next() {
		var id string
		var h head
		if err := rows.Scan(&id, &h.org, &h.streamType); err != nil {
			rows.Close()
			return err
		}
		heads[id] = h
	}
	if err := rows.Err(); err != nil {
		return err
	}
	reads := r.reads(name)
	var want []eventstore.Position
	for _, p := range positions {
		h, ok := heads[p.StreamID]
		switch {
		case sees != nil && (!ok || !sees(h.org)):
			continue
		case ok && !reads(h.streamType):
			continue
		}
		want = append(want, p)
	}
	if len(want) == 0 {
		return nil
	}
	streams := make([]string, len(want))
	versions := make([]int64, len(want))
	for i, p := range want {
		streams[i], versions[i] = p.StreamID, p.Version
	}
	deadline := time.Now().Add(MaxWait)
	for {
		var changed <-chan struct{}
		if r.engine != nil {
			changed = r.engine.changedChan()
		}
		var pending string
		err := r.pool.QueryRow(ctx, `SELECT COALESCE((SELECT p.stream_id || '@' || p.version FROM unnest($2::text[], $3::bigint[]) AS p(stream_id, version)
			WHERE COALESCE((SELECT v.version FROM proj_stream_versions v
				JOIN proj_generations g ON g.projection = v.projection AND g.generation = v.generation AND g.state = 'active'
				WHERE v.projection=$1 AND v.stream_id=p.stream_id), 0) < p.version LIMIT 1), '')`, name, streams, versions).Scan(&pending)
		if err != nil {
			return err
		}
		if pending == "" {
			return nil
		}
		left := time.Until(deadline)
		if left <= 0 {
			e := errs.Unavailable(fmt.Sprintf("the read model has not applied position %s yet", pending), nil)
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

// reads reports whether a projection applies streams of a type: those of
// the contexts it reads, but for the stream types it skips
// (StreamSkipper). Without an engine attached it cannot tell: every stream
// is waited for.
func (r *Reader) reads(name string) func(streamType string) bool {
	if r.engine == nil {
		return func(string) bool { return true }
	}
	p, ok := r.engine.Projection(name)
	if !ok {
		return func(string) bool { return true }
	}
	contexts := map[string]bool{}
	for _, c := range p.Contexts() {
		contexts[c] = true
	}
	var skipped []string
	if s, ok := p.(StreamSkipper); ok {
		skipped = s.SkipsStreams()
	}
	return func(streamType string) bool {
		return contexts[contextOf(streamType)] && !slices.Contains(skipped, streamType)
	}
}

// contextOf is a stream type's context ("publishing.post": publishing).
func contextOf(streamType string) string {
	c, _, _ := strings.Cut(streamType, ".")
	return c
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
