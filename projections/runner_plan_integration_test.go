package projections_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/internal/apptest"
	"github.com/platform/backend/internal/testenv"
	"github.com/platform/backend/projections"
)

// TestRunnerReadsOnlyTheBatchStreamVersions: a batch's read of its streams'
// applied versions looks up those streams, however many streams the
// generation has applied and whatever the table's statistics say (none
// here: the table was just filled, as in a replay into a fresh database).
// With `stream_id = ANY($3)` the planner filtered the generation's whole
// index range instead: every batch read every version row.
func TestRunnerReadsOnlyTheBatchStreamVersions(t *testing.T) {
	ctx := context.Background()
	pool, _ := apptest.Infra(t, "versionplan", []func(context.Context, *pgxpool.Pool) error{projections.Migrate},
		func(eventstore.KafkaConfig) []string { return nil })
	const streams = 5000
	if _, err := pool.Exec(ctx, `INSERT INTO proj_stream_versions (projection, generation, stream_id, version)
		SELECT 'ledger', 1, 's-' || g, 3 FROM generate_series(1, $1) g`, streams); err != nil {
		t.Fatal(err)
	}
	batch := make([]string, 10)
	for i := range batch {
		batch[i] = fmt.Sprint("s-", i*400+1)
	}
	read, plan, err := testenv.RowsRead(ctx, pool, "proj_stream_versions", projections.StreamVersionsSQL, "ledger", 1, batch)
	if err != nil {
		t.Fatal(err)
	}
	if read > float64(len(batch)) {
		t.Fatalf("reading %d streams' versions went through %.0f of the %d version rows:\n%s", len(batch), read, streams, plan)
	}
	rows, err := pool.Query(ctx, projections.StreamVersionsSQL, "ledger", 1, append(batch, "s-unknown"))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int64{}
	for rows.Next() {
		var id string
		var v int64
		if err := rows.Scan(&id, &v); err != nil {
			t.Fatal(err)
		}
		got[id] = v
	}
	if rows.Err() != nil || len(got) != len(batch)+1 || got["s-1"] != 3 || got["s-unknown"] != 0 {
		t.Fatalf("versions %v (%v), want 3 for each stream of the batch and 0 for an unknown one", got, rows.Err())
	}
}
