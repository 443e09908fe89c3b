package eventstore_test

import (
	"context"
	"io"
	"log/slog"
	"math"
	"runtime"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/internal/apptest"
	"github.com/platform/backend/internal/testenv"
)

// TestRelayReadsOnlyPastItsCursor: the relay's read of pending rows starts
// at its cursor in the commit-order index, however many rows lie behind it.
// It joined the cursor row, so the index scan began at the first event ever
// written and filtered every published row out again: each batch cost as
// much as the whole outbox behind it (40,000 rows: 27 ms a batch at the
// start, 62 ms at the end).
func TestRelayReadsOnlyPastItsCursor(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	pool, kc := apptest.Infra(t, "relayscan", []func(context.Context, *pgxpool.Pool) error{eventstore.Migrate},
		func(eventstore.KafkaConfig) []string { return nil })
	topic := kc.Topics.ForContext("status")
	const rows, batch = 3000, 100
	_, err := pool.Exec(ctx, `INSERT INTO es_events (event_id, stream_type, stream_id, stream_version, event_type, schema_version,
		organization_id, actor_id, actor_type, occurred_at, recorded_at, payload, topic)
		SELECT gen_random_uuid(), 'status.incident', 's-' || (g % 100), g / 100 + 1, 'status.incident.updated', 1,
			'org-relay', 'tester', 'system', now(), now(), '{}', $1 FROM generate_series(0, $2 - 1) g`, topic, rows)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `ANALYZE es_events`); err != nil {
		t.Fatal(err)
	}
	relay, err := eventstore.NewRelay(pool, &flakyBroker{fail: func(int32, int) bool { return false }},
		eventstore.RelayConfig{BatchSize: batch}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	published := 0
	for deadline := time.Now().Add(30 * time.Second); published < rows-5*batch; {
		n, err := relay.PublishBatch(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			if time.Now().After(deadline) {
				t.Fatalf("published %d of %d rows", published, rows)
			}
			time.Sleep(20 * time.Millisecond) // the cluster-wide horizon: another test's transaction
		}
		published += n
	}
	var txID string
	var seq int64
	if err := pool.QueryRow(ctx, `SELECT tx_id::text, global_seq FROM es_relay_cursor`).Scan(&txID, &seq); err != nil {
		t.Fatal(err)
	}
	read, plan, err := testenv.RowsRead(ctx, pool, "es_events", eventstore.PendingSQL, txID, seq, batch)
	if err != nil {
		t.Fatal(err)
	}
	if read > batch {
		t.Fatalf("the read of %d rows past the cursor (%d rows behind it) went through %.0f rows of es_events:\n%s",
			batch, published, read, plan)
	}
}

// TestRelayReadOfATrickleAllocatesForItsRows: under a trickle the relay
// reads a row or two at a time; each read allocated a slice for a whole
// batch (2,000 rows, 128 KiB zeroed), the largest allocation of the gateway
// benchmark, so more garbage collections and the pauses of its tail. A
// one-row read now allocates for its row.
func TestRelayReadOfATrickleAllocatesForItsRows(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	pool, kc := apptest.Infra(t, "relaytrickle", []func(context.Context, *pgxpool.Pool) error{eventstore.Migrate},
		func(eventstore.KafkaConfig) []string { return nil })
	topic := kc.Topics.ForContext("status")
	relay, err := eventstore.NewRelay(pool, &flakyBroker{fail: func(int32, int) bool { return false }},
		eventstore.RelayConfig{}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	least := uint64(math.MaxUint64)
	for try := range 5 {
		_, err := pool.Exec(ctx, `INSERT INTO es_events (event_id, stream_type, stream_id, stream_version, event_type, schema_version,
			organization_id, actor_id, actor_type, occurred_at, recorded_at, payload, topic)
			VALUES (gen_random_uuid(), 'status.incident', 's-trickle', $1, 'status.incident.updated', 1,
				'org-relay', 'tester', 'system', now(), now(), '{}', $2)`, try+1, topic)
		if err != nil {
			t.Fatal(err)
		}
		// The row is read once every transaction older than it has ended
		// (the cluster-wide horizon: another test's transaction may hold it).
		for deadline := time.Now().Add(10 * time.Second); ; {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			n, err := relay.PublishBatch(ctx)
			runtime.ReadMemStats(&after)
			if err != nil {
				t.Fatal(err)
			}
			if n == 1 {
				least = min(least, after.TotalAlloc-before.TotalAlloc)
			}
			if n > 0 || time.Now().After(deadline) {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	if least == math.MaxUint64 {
		t.Fatal("no read published its one row")
	}
	// The read, the send and the cursor's save of one row take a few KiB;
	// a batch-sized slice alone is 128 KiB.
	if least > 48<<10 {
		t.Fatalf("publishing one row allocated %d bytes at least (of 5 tries)", least)
	}
}
