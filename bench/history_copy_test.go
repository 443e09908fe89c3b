package bench

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/platform/backend/internal/testenv"
	"github.com/platform/backend/projections/history"
)

// BenchmarkHistoryCopyVariants is a diagnostic of the COPY path's
// PostgreSQL side: the history rows of BenchmarkHistoryReplay COPYd, in
// transactions of the runner's batch (2,000 rows), into tables that differ
// from history_events in one thing each, so what the primary key, each
// secondary index, the jsonb parsing and the event ids' order cost shows
// as the difference of the database's own backends' CPU a row.
func BenchmarkHistoryCopyVariants(b *testing.B) {
	ctx := context.Background()
	pool := newPool(b, 4)
	events := statusEvents("org-bench", historyEvents, replayIncidents)
	p := history.Projection{}
	var columns []string
	rows := make([][]any, len(events))
	for i, e := range events {
		st, err := p.Reduce(e)
		must(b, err)
		rows[i], columns = historyRow(st[0])
	}
	random := make([][]any, len(rows))
	for i, r := range rows {
		random[i] = append([]any(nil), r...)
		random[i][0] = uuid.New() // a random (v4) id instead of the time-ordered (v7) one
	}
	const table = `CREATE TABLE {{t}} (event_id uuid %s, organization_id text NOT NULL, stream_type text NOT NULL, stream_id text NOT NULL,
			stream_version bigint NOT NULL, event_type text NOT NULL, schema_version int NOT NULL,
			actor_id text NOT NULL, actor_type text NOT NULL, occurred_at timestamptz NOT NULL, recorded_at timestamptz NOT NULL,
			correlation_id text NOT NULL, causation_id text NOT NULL, idempotency_key text NOT NULL, payload %s NOT NULL)`
	org := `CREATE INDEX ON {{t}} (organization_id, event_id)`
	stream := `CREATE INDEX ON {{t}} (stream_id, stream_version)`
	pk := fmt.Sprintf(table, "PRIMARY KEY", "jsonb")
	variants := []struct {
		name  string
		ddl   []string
		after []string // built after the load, timed with it
		rows  [][]any
	}{
		{"as history_events", []string{pk, org, stream}, nil, rows},
		{"random (v4) event ids", []string{pk, org, stream}, nil, random},
		{"payload text, not jsonb", []string{fmt.Sprintf(table, "PRIMARY KEY", "text"), org, stream}, nil, rows},
		{"primary key and org index", []string{pk, org}, nil, rows},
		{"primary key and stream index", []string{pk, stream}, nil, rows},
		{"primary key only", []string{pk}, nil, rows},
		{"primary key only, random ids", []string{pk}, nil, random},
		{"no index", []string{fmt.Sprintf(table, "", "jsonb")}, nil, rows},
		{"primary key only, then both indexes built", []string{pk}, []string{org, stream}, rows},
	}
	b.ResetTimer()
	for range b.N {
		for _, v := range variants {
			name := "bench_" + testenv.UniqueName("hcopy")
			names := strings.NewReplacer("{{t}}", name)
			for _, ddl := range v.ddl {
				_, err := pool.Exec(ctx, names.Replace(ddl))
				must(b, err)
			}
			cpu0 := sampleCPU(pool.Config().ConnConfig.Database)
			start := time.Now()
			copyHistoryRows(b, pool, name, columns, v.rows, 2000)
			load := time.Since(start)
			for _, ddl := range v.after {
				_, err := pool.Exec(ctx, names.Replace(ddl))
				must(b, err)
			}
			elapsed := time.Since(start)
			cpu := cpu0.to(sampleCPU(pool.Config().ConnConfig.Database))
			b.Logf("%-42s %7.0f rows/s (load %.2fs, indexes after %.2fs); backends %.1f µs a row; %s", v.name+":",
				float64(len(v.rows))/elapsed.Seconds(), load.Seconds(), (elapsed - load).Seconds(), cpu.backendsPerOp(len(v.rows)), cpu.perOp(len(v.rows), "row"))
		}
	}
}

// copyHistoryRows COPYs rows into table, per rows a transaction, on one connection.
func copyHistoryRows(b *testing.B, pool *pgxpool.Pool, table string, columns []string, rows [][]any, per int) {
	b.Helper()
	ctx := context.Background()
	conn, err := pool.Acquire(ctx)
	must(b, err)
	defer conn.Release()
	for i := 0; i < len(rows); i += per {
		err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
			_, err := tx.CopyFrom(ctx, pgx.Identifier{table}, columns, pgx.CopyFromRows(rows[i:min(i+per, len(rows))]))
			return err
		})
		must(b, err)
	}
}
