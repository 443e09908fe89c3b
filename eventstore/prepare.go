package eventstore

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Tx is a command's transaction as a context's Prepare sees it: after the
// idempotency and stream locks, before the decision.
type Tx interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

var _ Tx = (*pgx.Conn)(nil)

// prepare runs the command's Prepare, if any.
func prepare(ctx context.Context, tx Tx, cmd Command) error {
	if cmd.Prepare == nil {
		return nil
	}
	return cmd.Prepare(ctx, tx)
}

// queueWrites adds the decision's writes (Decision.Writes: statements on a
// context's own write-side table, a write model kept as rows) to the
// command's last round trip, so the table never disagrees with the log.
func queueWrites(b *pgx.Batch, writes []Write) {
	for _, w := range writes {
		b.Queue(w.SQL, w.Args...)
	}
}
