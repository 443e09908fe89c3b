// Package deletions drains a context's queue of object-store keys to
// delete: rows written in the transaction that forgot their objects (an
// asset deleted, an organization erased), deleted here once their bytes
// are gone, right after that transaction commits and by a sweeper for what
// a crash left. Bytes are never deleted before their record, and never
// left behind. The studio and the design service share it; each has its
// own table (object_key primary key, requested_at).
package deletions

import (
	"context"
	"log/slog"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/platform/backend/internal/objectstore"
)

// Drain deletes the bytes of at most limit queued keys of table, and the
// rows of those whose bytes are gone; failures stay queued for the next
// drain. Rows are claimed with SKIP LOCKED: any number of processes may
// drain at once. It answers how many were deleted.
func Drain(ctx context.Context, pool *pgxpool.Pool, objects objectstore.Store, table string, limit int, log *slog.Logger) int {
	if objects == nil {
		return 0
	}
	tx, err := pool.Begin(ctx)
	if err != nil {
		return 0
	}
	defer tx.Rollback(ctx) //nolint:errcheck
	rows, err := tx.Query(ctx, `SELECT object_key FROM `+table+` ORDER BY requested_at LIMIT $1 FOR UPDATE SKIP LOCKED`, limit)
	if err != nil {
		return 0
	}
	keys, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return 0
	}
	var done []string
	for _, k := range keys {
		if err := objects.Delete(ctx, k); err == nil {
			done = append(done, k)
		} else if log != nil {
			log.Warn("an object's bytes could not be deleted; kept for the next sweep", "table", table, "key", k, "err", err)
		}
	}
	if _, err := tx.Exec(ctx, `DELETE FROM `+table+` WHERE object_key = ANY($1)`, done); err != nil {
		return 0
	}
	if err := tx.Commit(ctx); err != nil {
		return 0
	}
	return len(done)
}
