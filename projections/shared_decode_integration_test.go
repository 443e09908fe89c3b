package projections_test

import (
	"encoding/json"
	"sync/atomic"
	"testing"
	"time"

	"github.com/IBM/sarama"
	"github.com/google/uuid"

	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/internal/apptest"
	"github.com/platform/backend/projections"
)

// payloadDecodes counts the decodes of countedPayload.
var payloadDecodes atomic.Int32

type countedPayload struct{}

func (*countedPayload) UnmarshalJSON(b []byte) error {
	payloadDecodes.Add(1)
	return json.Unmarshal(b, &struct{}{})
}

// payloadReader is a projection of the ledger context that reads each
// event's payload as a countedPayload, as reducers do (projections.On).
type payloadReader struct{ name string }

func (p payloadReader) Name() string     { return p.name }
func (payloadReader) Contexts() []string { return []string{"ledger"} }
func (p payloadReader) Tables() []string { return []string{p.name} }
func (p payloadReader) Schema() []string {
	return []string{`CREATE TABLE IF NOT EXISTS {{` + p.name + `}} (event_id uuid PRIMARY KEY)`}
}
func (p payloadReader) Reduce(e eventstore.Event) ([]projections.Statement, error) {
	return projections.Reducers{"ledger.entry.added": projections.On(func(e eventstore.Event, _ countedPayload) ([]projections.Statement, error) {
		return []projections.Statement{projections.Exec(`INSERT INTO {{`+p.name+`}} (event_id) VALUES ($1)`, e.ID)}, nil
	})}.Reduce(e)
}

// TestLiveProjectionsDecodeAPayloadOnce: the live group's projections
// that read an event's payload as the same type decode it once between
// them (eventstore.Event.SharingDecodes), and each applies every event.
func TestLiveProjectionsDecodeAPayloadOnce(t *testing.T) {
	rig := startRig(t, payloadReader{"reader_a"}, payloadReader{"reader_b"})
	payloadDecodes.Store(0)
	var msgs []*sarama.ProducerMessage
	for range 10 {
		stream := "decoded-" + uuid.NewString()
		for v := int64(1); v <= 3; v++ {
			msgs = append(msgs, rig.publish(rig.record(stream, v)))
		}
	}
	apptest.Eventually(t, 30*time.Second, "both projections to apply the events", func() bool {
		return rig.passedAll("reader_a", msgs) && rig.passedAll("reader_b", msgs)
	})
	if n := rig.count(`SELECT count(*) FROM reader_a_g1 a JOIN reader_b_g1 b USING (event_id)`); n != 30 {
		t.Fatalf("%d events in both projections, want 30", n)
	}
	if n := payloadDecodes.Load(); n != 30 {
		t.Fatalf("%d payload decodes for 30 events read by two projections, want 30 (one an event)", n)
	}
	if f := rig.failures(); len(f) != 0 {
		t.Fatalf("failures %v, want none", f)
	}
}
