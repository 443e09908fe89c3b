package projections

import (
	"context"
	"encoding/json"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/eventstore"
)

// Rows runs a query over a projection's active generation and scans each
// row into a T (scan reads one row's columns): what a read model's queries
// share. An outage of the database is 503 dependency_unavailable (what
// names the read model); an empty answer is an empty slice, never nil.
func Rows[T any](ctx context.Context, pool *pgxpool.Pool, r *Reader, p Projection, what, sql string, scan func(pgx.Row) (T, error),
	args ...any) ([]T, error) {
	resolved, err := r.SQL(ctx, p, sql)
	if err != nil {
		return nil, err
	}
	rows, err := pool.Query(ctx, resolved, args...)
	if err != nil {
		return nil, readErr(what, err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (T, error) { return scan(row) })
	if out == nil {
		out = []T{}
	}
	return out, readErr(what, err)
}

// Row is Rows for a single row: errs.NotFound(missing) when there is none.
func Row[T any](ctx context.Context, pool *pgxpool.Pool, r *Reader, p Projection, what, missing, sql string, scan func(pgx.Row) (T, error),
	args ...any) (T, error) {
	var zero T
	list, err := Rows(ctx, pool, r, p, what, sql, scan, args...)
	if err != nil {
		return zero, err
	}
	if len(list) == 0 {
		return zero, errs.NotFound(missing)
	}
	return list[0], nil
}

// Docs is Rows of a read model's doc column: each row one JSON document,
// decoded into T.
func Docs[T any](ctx context.Context, pool *pgxpool.Pool, r *Reader, p Projection, what, sql string, args ...any) ([]T, error) {
	return Rows(ctx, pool, r, p, what, sql, doc[T], args...)
}

// One is Docs for a single row: errs.NotFound(missing) when there is none.
func One[T any](ctx context.Context, pool *pgxpool.Pool, r *Reader, p Projection, what, missing, sql string, args ...any) (T, error) {
	return Row(ctx, pool, r, p, what, missing, sql, doc[T], args...)
}

func doc[T any](row pgx.Row) (T, error) {
	var raw []byte
	var v T
	if err := row.Scan(&raw); err != nil {
		return v, err
	}
	return v, json.Unmarshal(raw, &v)
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
