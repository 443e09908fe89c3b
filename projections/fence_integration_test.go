package projections_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/platform/backend/internal/apptest"
)

// TestBatchFencedByTheCheckpoint: another consumer applies an event of the
// partition (as after a rebalance that overlaps a slow batch) while this
// runner's batch with the same event waits on a row lock. The runner
// remembers the stream at the version before; its batch must not commit
// over the other's work: the checkpoint moved, the batch rolls back, the
// session starts again from the stored checkpoint, and the event counts
// once. Nothing is parked for it.
func TestBatchFencedByTheCheckpoint(t *testing.T) {
	rig := startRig(t, receipts{})
	ctx := context.Background()
	stream := "fenced-" + uuid.NewString()
	count := func() int64 {
		var n int64
		if err := rig.pool.QueryRow(ctx, `SELECT COALESCE((SELECT events FROM receipt_counts_g1 WHERE stream_type='ledger.entry'), 0)`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	m1 := rig.publish(rig.record(stream, 1))
	apptest.Eventually(t, 30*time.Second, "v1 to be applied", func() bool { return rig.passed(m1) })

	// Hold the counter row: the runner's next batch waits on it.
	tx, err := rig.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck
	if _, err := tx.Exec(ctx, `SELECT * FROM receipt_counts_g1 WHERE stream_type='ledger.entry' FOR UPDATE`); err != nil {
		t.Fatal(err)
	}
	v2 := rig.record(stream, 2)
	m2 := rig.publish(v2)
	apptest.Eventually(t, 30*time.Second, "the runner's batch to wait on the row lock", func() bool {
		var n int
		err := rig.pool.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`).Scan(&n)
		return err == nil && n > 0
	})
	// The other consumer applies v2: its row, its count, its version, the checkpoint past it.
	for _, sql := range []string{
		`INSERT INTO receipts_g1 (event_id, stream_id) VALUES ('` + v2.ID.String() + `', '` + stream + `')`,
		`UPDATE receipt_counts_g1 SET events = events + 1 WHERE stream_type='ledger.entry'`,
		`UPDATE proj_stream_versions SET version = 2 WHERE projection='ledger' AND generation=1 AND stream_id='` + stream + `'`,
	} {
		if _, err := tx.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	if _, err := tx.Exec(ctx, `UPDATE proj_checkpoints SET next_offset=$3 WHERE projection='ledger' AND generation=1 AND topic=$1 AND partition=$2`,
		m2.Topic, m2.Partition, m2.Offset+1); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}

	m3 := rig.publish(rig.record(stream, 3))
	apptest.Eventually(t, 30*time.Second, "v3 to be applied", func() bool { return rig.passed(m3) })
	if n := count(); n != 3 {
		t.Fatalf("counted %d events of the stream, want 3: v2, applied by the other consumer, applied again", n)
	}
	if f := rig.failures(); len(f) != 0 {
		t.Fatalf("failures %v, want none: a moved checkpoint is not the batch's fault", f)
	}
}
