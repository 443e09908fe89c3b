package eventstore_test

import (
	"context"
	"io"
	"log/slog"
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
