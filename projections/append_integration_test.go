package projections_test

import (
	"context"
	"testing"
	"time"

	"github.com/IBM/sarama"
	"github.com/google/uuid"

	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/internal/apptest"
	"github.com/platform/backend/projections"
)

// journal appends one row per event with Append.
type journal struct{}

func (journal) Name() string       { return "ledger" }
func (journal) Contexts() []string { return []string{"ledger"} }
func (journal) Tables() []string   { return []string{"journal"} }
func (journal) Schema() []string {
	return []string{`CREATE TABLE IF NOT EXISTS {{journal}} (event_id uuid PRIMARY KEY, stream_id text NOT NULL, version bigint NOT NULL,
		at timestamptz NOT NULL, payload jsonb NOT NULL)`}
}
func (journal) Reduce(e eventstore.Event) ([]projections.Statement, error) {
	return []projections.Statement{projections.Append("{{journal}}", []string{"event_id", "stream_id", "version", "at", "payload"},
		e.ID, e.StreamID, e.StreamVersion, e.OccurredAt, e.Payload)}, nil
}

// TestAppendWritesEachEventOnce: Append rows of a burst (a batch large
// enough for COPY), of a lone event (one INSERT) and of redelivered events
// are each written once; a row that is already in the table (written by
// something else than this generation's runner) fails only its event,
// which is parked, never the events around it.
func TestAppendWritesEachEventOnce(t *testing.T) {
	rig := startRig(t, journal{})
	ctx := context.Background()
	var burst []eventstore.Event
	for i := range 200 {
		stream := "entry-" + uuid.NewString()
		burst = append(burst, rig.record(stream, 1))
		if i%2 == 0 {
			burst = append(burst, rig.record(stream, 2))
		}
	}
	var sent []*sarama.ProducerMessage
	for _, e := range burst {
		m, err := e.ToMessage(rig.topic)
		if err != nil {
			t.Fatal(err)
		}
		sent = append(sent, m)
	}
	if err := rig.producer.SendMessages(sent); err != nil { // at once: batches of 100 a partition, COPYd
		t.Fatal(err)
	}
	lone := rig.record("entry-"+uuid.NewString(), 1)
	clash := rig.record("entry-"+uuid.NewString(), 1)
	apptest.Eventually(t, 30*time.Second, "the journal table", func() bool {
		var n int
		return rig.pool.QueryRow(ctx, `SELECT count(*) FROM journal_g1`).Scan(&n) == nil
	})
	if _, err := rig.pool.Exec(ctx, `INSERT INTO journal_g1 VALUES ($1, 'elsewhere', 1, now(), '{}')`, clash.ID); err != nil {
		t.Fatal(err)
	}
	for _, e := range []eventstore.Event{lone, burst[0], burst[1], clash, burst[len(burst)-1]} {
		sent = append(sent, rig.publish(e))
	}
	apptest.Eventually(t, 60*time.Second, "the journal to pass every record", func() bool {
		for _, m := range sent {
			if !rig.passed(m) {
				return false
			}
		}
		return true
	})

	var rows, distinct int
	if err := rig.pool.QueryRow(ctx, `SELECT count(*), count(DISTINCT event_id) FROM journal_g1 WHERE stream_id <> 'elsewhere'`).Scan(&rows, &distinct); err != nil {
		t.Fatal(err)
	}
	if rows != len(burst)+1 || distinct != rows {
		t.Fatalf("%d rows (%d distinct), want the %d events of the burst and the lone one, each once", rows, distinct, len(burst)+1)
	}
	var payload string
	if err := rig.pool.QueryRow(ctx, `SELECT payload::text FROM journal_g1 WHERE event_id = $1`, lone.ID).Scan(&payload); err != nil || payload != "{}" {
		t.Fatalf("lone event's row: payload %q (%v)", payload, err)
	}
	fails := rig.failures()
	if len(fails) != 1 || fails[0][:36] != clash.ID.String() {
		t.Fatalf("failures %v, want only the event whose row was already there (%s)", fails, clash.ID)
	}
}
