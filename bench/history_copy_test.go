package bench

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/platform/backend/internal/testenv"
	"github.com/platform/backend/projections"
	"github.com/platform/backend/projections/history"
)

// BenchmarkHistoryCopyVariants is a diagnostic of the COPY path's
// PostgreSQL side: the history rows of BenchmarkHistoryReplay COPYd, in
// transactions of the runner's batch (2,000 rows), into tables that differ
// from history_events in one thing each, so what the primary key, each
// secondary index, the payload's type (jsonb, json, text), the event ids' order and the
// runner's stream versions (read and written for the batch's streams: each
// of the 2,000 in every batch here) cost shows as the difference of the
// database's own backends' CPU a row. BENCH_VARIANTS runs only the
// variants whose names contain it.
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
	pk := fmt.Sprintf(table, "PRIMARY KEY", "json")
	must(b, projections.Migrate(ctx, pool))
	variants := []struct {
		name     string
		ddl      []string
		after    []string // built after the load, timed with it
		rows     [][]any
		versions string // and the stream versions, per transaction: "runner" (read, upsert), "read", "upsert"
	}{
		{"as history_events", []string{pk, org, stream}, nil, rows, ""},
		{"random (v4) event ids", []string{pk, org, stream}, nil, random, ""},
		{"payload jsonb (until livepg-json)", []string{fmt.Sprintf(table, "PRIMARY KEY", "jsonb"), org, stream}, nil, rows, ""},
		{"payload text, not json", []string{fmt.Sprintf(table, "PRIMARY KEY", "text"), org, stream}, nil, rows, ""},
		{"primary key and org index", []string{pk, org}, nil, rows, ""},
		{"primary key and stream index", []string{pk, stream}, nil, rows, ""},
		{"primary key only", []string{pk}, nil, rows, ""},
		{"primary key only, random ids", []string{pk}, nil, random, ""},
		{"no index", []string{fmt.Sprintf(table, "", "json")}, nil, rows, ""},
		{"primary key only, then both indexes built", []string{pk}, []string{org, stream}, rows, ""},
		{"as history_events, with stream versions", []string{pk, org, stream}, nil, rows, "runner"},
		{"primary key only, with stream versions", []string{pk}, nil, rows, "runner"},
		{"primary key only, stream versions read", []string{pk}, nil, rows, "read"},
		{"primary key only, stream versions upserted", []string{pk}, nil, rows, "upsert"},
	}
	if only := os.Getenv("BENCH_VARIANTS"); only != "" { // a subset: names containing it
		kept := variants[:0]
		for _, v := range variants {
			if strings.Contains(v.name, only) {
				kept = append(kept, v)
			}
		}
		variants = kept
	}
	b.ResetTimer()
	for range b.N {
		for gen, v := range variants {
			name := "bench_" + testenv.UniqueName("hcopy")
			names := strings.NewReplacer("{{t}}", name)
			for _, ddl := range v.ddl {
				_, err := pool.Exec(ctx, names.Replace(ddl))
				must(b, err)
			}
			cpu0 := sampleCPU(pool.Config().ConnConfig.Database)
			start := time.Now()
			copyHistoryRows(b, pool, name, columns, v.rows, 2000, v.versions, gen)
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

// copyHistoryRows COPYs rows into table, per rows a transaction, on one
// connection; with versions, each transaction also reads and writes the
// stream versions of its rows' streams (of generation) with the runner's
// statements.
func copyHistoryRows(b *testing.B, pool *pgxpool.Pool, table string, columns []string, rows [][]any, per int, versions string, generation int) {
	b.Helper()
	ctx := context.Background()
	conn, err := pool.Acquire(ctx)
	must(b, err)
	defer conn.Release()
	for i := 0; i < len(rows); i += per {
		batch := rows[i:min(i+per, len(rows))]
		err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
			var ids []string
			var vs []int64
			if versions != "" {
				seen := map[string]int{}
				for _, r := range batch {
					id := r[3].(string) // stream_id
					if j, ok := seen[id]; ok {
						vs[j] = r[4].(int64)
						continue
					}
					seen[id] = len(ids)
					ids, vs = append(ids, id), append(vs, r[4].(int64))
				}
			}
			if versions == "runner" || versions == "read" {
				rows, err := tx.Query(ctx, `SELECT s.id, COALESCE((SELECT v.version FROM proj_stream_versions v
					WHERE v.projection = $1 AND v.generation = $2 AND v.stream_id = s.id), 0) FROM unnest($3::text[]) AS s(id)`, "history", generation, ids)
				if err != nil {
					return err
				}
				for rows.Next() { // read, as the runner does
				}
				rows.Close()
				if err := rows.Err(); err != nil {
					return err
				}
			}
			if _, err := tx.CopyFrom(ctx, pgx.Identifier{table}, columns, pgx.CopyFromRows(batch)); err != nil {
				return err
			}
			if versions == "runner" || versions == "upsert" {
				_, err := tx.Exec(ctx, `INSERT INTO proj_stream_versions (projection, generation, stream_id, version)
					SELECT $1, $2, s, v FROM unnest($3::text[], $4::bigint[]) AS t(s, v)
					ON CONFLICT (projection, generation, stream_id) DO UPDATE SET version = EXCLUDED.version
					WHERE proj_stream_versions.version < EXCLUDED.version`, "history", generation, ids, vs)
				return err
			}
			return nil
		})
		must(b, err)
	}
}
