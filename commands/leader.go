package commands

import (
	"context"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// EveryAsLeader calls tick every interval in the one process that holds the
// session advisory lock lockID: timed work (status polling, privacy
// maintenance) is issued once however many processes run. A session lock
// dies with its connection, so a crashed leader frees it for another.
func EveryAsLeader(ctx context.Context, pool *pgxpool.Pool, lockID int64, interval time.Duration, log *slog.Logger, tick func(context.Context)) {
	conn, err := pool.Acquire(ctx)
	if err != nil {
		log.Error("leader: acquire a connection", "lock", lockID, "err", err)
		return
	}
	defer conn.Release()
	ticker := time.NewTicker(interval)
	defer ticker.Stop()
	leader := false
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
		if !leader {
			if err := conn.QueryRow(ctx, `SELECT pg_try_advisory_lock($1)`, lockID).Scan(&leader); err != nil || !leader {
				continue
			}
		}
		tick(ctx)
	}
}
