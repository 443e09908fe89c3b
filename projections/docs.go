package projections

import (
	"context"
	"encoding/json"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/eventstore"
)

// Docs runs a query over a projection's active generation whose rows are
// one JSON document each (a read model's doc column) and decodes each into
// T: what a read model's queries share. An outage of the database is 503
// dependency_unavailable (what names the read model); an empty answer is an
// empty slice, never nil.
func Docs[T any](ctx context.Context, pool *pgxpool.Pool, r *Reader, p Projection, what, sql string, args ...any) ([]T, error) {
	resolved, err := r.SQL(ctx, p, sql)
	if err != nil {
		return nil, err
	}
	rows, err := pool.Query(ctx, resolved, args...)
	if err != nil {
		return nil, readErr(what, err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (T, error) {
		var raw []byte
		var v T
		if err := row.Scan(&raw); err != nil {
			return v, err
		}
		return v, json.Unmarshal(raw, &v)
	})
	if out == nil {
		out = []T{}
	}
	return out, readErr(what, err)
}

// One is Docs for a single row: errs.NotFound(missing) when there is none.
func One[T any](ctx context.Context, pool *pgxpool.Pool, r *Reader, p Projection, what, missing, sql string, args ...any) (T, error) {
	var zero T
	list, err := Docs[T](ctx, pool, r, p, what, sql, args...)
	if err != nil {
		return zero, err
	}
	if len(list) == 0 {
		return zero, errs.NotFound(missing)
	}
	return list[0], nil
}

// ReadErr is a read model's query error as answered: an outage is 503
// (what names the read model), anything else as it is.
func ReadErr(what string, err error) error { return readErr(what, err) }

func readErr(what string, err error) error {
	if err != nil && eventstore.IsTransient(err) {
		return errs.Unavailable(what+" is unavailable", err)
	}
	return err
}
