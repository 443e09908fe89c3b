// Package migrate applies the embedded SQL files of a component once each, in
// name order, under an advisory lock so that concurrent starts do not race.
package migrate

import (
	"context"
	"fmt"
	"io/fs"
	"sort"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

const lockID = 7_310_001 // arbitrary, constant across releases

// Apply runs every *.sql file of dir in files not yet recorded for component.
func Apply(ctx context.Context, pool *pgxpool.Pool, component string, files fs.FS, dir string) error {
	files, err := fs.Sub(files, dir)
	if err != nil {
		return err
	}
	names, err := fs.Glob(files, "*.sql")
	if err != nil {
		return err
	}
	sort.Strings(names)
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, lockID); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
			component text NOT NULL, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now(),
			PRIMARY KEY (component, name))`); err != nil {
			return err
		}
		for _, name := range names {
			var done bool
			if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM schema_migrations WHERE component=$1 AND name=$2)`,
				component, name).Scan(&done); err != nil {
				return err
			}
			if done {
				continue
			}
			sql, err := fs.ReadFile(files, name)
			if err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, string(sql)); err != nil {
				return fmt.Errorf("migration %s/%s: %w", component, name, err)
			}
			if _, err := tx.Exec(ctx, `INSERT INTO schema_migrations (component, name) VALUES ($1, $2)`, component, name); err != nil {
				return err
			}
		}
		return nil
	})
}
