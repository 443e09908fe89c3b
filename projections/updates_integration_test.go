package projections_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/IBM/sarama"
	"github.com/google/uuid"

	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/internal/apptest"
	"github.com/platform/backend/projections"
)

// latest keeps each stream's row at its last version with Update; a
// trigger counts the row writes the UPDATEs make.
type latest struct{}

func (latest) Name() string       { return "ledger" }
func (latest) Contexts() []string { return []string{"ledger"} }
func (latest) Tables() []string   { return []string{"latest", "latest_writes"} }
func (latest) Schema() []string {
	return []string{
		`CREATE TABLE IF NOT EXISTS {{latest}} (id text PRIMARY KEY, revision bigint NOT NULL, note text NOT NULL)`,
		`CREATE TABLE IF NOT EXISTS {{latest_writes}} (id text NOT NULL)`,
		`CREATE OR REPLACE FUNCTION {{latest}}_count() RETURNS trigger LANGUAGE plpgsql AS
			$$ BEGIN INSERT INTO {{latest_writes}} VALUES (NEW.id); RETURN NEW; END $$`,
		`CREATE OR REPLACE TRIGGER {{latest}}_count AFTER UPDATE ON {{latest}} FOR EACH ROW EXECUTE FUNCTION {{latest}}_count()`,
	}
}

var latestColumns = []string{"note"}

func (latest) Reduce(e eventstore.Event) ([]projections.Statement, error) {
	note := fmt.Sprintf("v%d", e.StreamVersion)
	if e.StreamVersion == 1 {
		return []projections.Statement{projections.Exec(`INSERT INTO {{latest}} (id, revision, note) VALUES ($1, 1, $2)`, e.StreamID, note)}, nil
	}
	return []projections.Statement{projections.Update("{{latest}}", "id", "revision", latestColumns, e.StreamID, e.StreamVersion, note)}, nil
}

// TestUpdatesOfABatchWriteEachRowOnce: a stream created and updated five
// times, sent at once (one batch, or few), ends at its last version with
// fewer row writes than updates: the batch's Updates of the row are one
// write, at the highest version, after the row's INSERT of the same batch.
func TestUpdatesOfABatchWriteEachRowOnce(t *testing.T) {
	rig := startRig(t, latest{})
	stream := "row-" + uuid.NewString()
	msgs := make([]*sarama.ProducerMessage, 0, 6)
	for v := int64(1); v <= 6; v++ {
		m, err := rig.record(stream, v).ToMessage(rig.topic)
		if err != nil {
			t.Fatal(err)
		}
		msgs = append(msgs, m)
	}
	if err := rig.producer.SendMessages(msgs); err != nil {
		t.Fatal(err)
	}
	apptest.Eventually(t, 30*time.Second, "the stream to be applied", func() bool { return rig.passed(msgs[len(msgs)-1]) })
	var revision, writes int64
	var note string
	ctx := context.Background()
	if err := rig.pool.QueryRow(ctx, `SELECT revision, note, (SELECT count(*) FROM latest_writes_g1 w WHERE w.id = l.id) FROM latest_g1 l WHERE id=$1`,
		stream).Scan(&revision, &note, &writes); err != nil {
		t.Fatal(err)
	}
	if revision != 6 || note != "v6" {
		t.Fatalf("row at %d (%s), want the last version, 6", revision, note)
	}
	if writes < 1 || writes >= 5 {
		t.Fatalf("%d row writes for 5 updates sent together, want them merged", writes)
	}
	if len(rig.failures()) != 0 {
		t.Fatalf("failures: %v", rig.failures())
	}
}
