package projections_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/IBM/sarama"
	"github.com/google/uuid"

	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/internal/apptest"
	"github.com/platform/backend/projections"
)

// receipts records each event's row and counts events per stream type with
// Add, so an event applied twice shows in the count; ledger.single streams
// hold one event each (OneEventStreams).
type receipts struct{}

func (receipts) Name() string       { return "ledger" }
func (receipts) Contexts() []string { return []string{"ledger"} }
func (receipts) Tables() []string   { return []string{"receipts", "receipt_counts"} }
func (receipts) Schema() []string {
	return []string{
		`CREATE TABLE IF NOT EXISTS {{receipts}} (event_id uuid PRIMARY KEY, stream_id text NOT NULL)`,
		`CREATE TABLE IF NOT EXISTS {{receipt_counts}} (stream_type text PRIMARY KEY, events bigint NOT NULL)`,
	}
}
func (receipts) Reduce(e eventstore.Event) ([]projections.Statement, error) {
	return []projections.Statement{
		projections.Insert("{{receipts}}", []string{"event_id", "stream_id"}, "ON CONFLICT DO NOTHING", e.ID, e.StreamID),
		projections.Add("{{receipt_counts}}", []string{"stream_type"}, []any{e.StreamType}, []string{"events"}, 1),
	}, nil
}
func (receipts) OneEventStreams() map[string]string {
	return map[string]string{"ledger.single": "{{receipts}}"}
}

// TestOneEventStreamsKeepNoVersionRow: events of a one-event stream type
// are applied once each without a stream version row: a copy redelivered in
// the same batch or in a later one is dropped (the event id's row is
// there), an impostor at a stream's only position (another event id than
// the event store holds) is reported, and an event of such a type at
// version 2 (the declaration is wrong) is parked. Tracked streams beside
// them keep their version rows.
func TestOneEventStreamsKeepNoVersionRow(t *testing.T) {
	rig := startRig(t, receipts{})
	ctx := context.Background()
	single := func() eventstore.Event {
		e := rig.record("single-"+uuid.NewString(), 1)
		e.StreamType = "ledger.single"
		return e
	}
	s1, s2, s3 := single(), single(), single()
	kept := "kept-" + uuid.NewString()
	k1, k2 := rig.record(kept, 1), rig.record(kept, 2)
	impostor := s3
	impostor.ID = uuid.Must(uuid.NewV7())
	wrong := rig.record("single-"+uuid.NewString(), 2)
	wrong.StreamType = "ledger.single"

	var sent []*sarama.ProducerMessage
	send := func(events ...eventstore.Event) {
		msgs := make([]*sarama.ProducerMessage, len(events))
		for i, e := range events {
			m, err := e.ToMessage(rig.topic)
			if err != nil {
				t.Fatal(err)
			}
			msgs[i] = m
		}
		if err := rig.producer.SendMessages(msgs); err != nil {
			t.Fatal(err)
		}
		sent = append(sent, msgs...)
	}
	caughtUp := func() bool {
		for _, m := range sent {
			if !rig.passed(m) {
				return false
			}
		}
		return true
	}
	send(s1, k1, s2, s1, k2, s3) // s1 again in the same batch
	apptest.Eventually(t, 30*time.Second, "the first records to be applied", caughtUp)
	send(s2, impostor, wrong, s3) // s2 and s3 again, in a later batch
	apptest.Eventually(t, 30*time.Second, "the later records to be applied", caughtUp)

	var n int
	if err := rig.pool.QueryRow(ctx, `SELECT count(*) FROM receipts_g1 WHERE event_id = ANY($1::uuid[])`,
		[]uuid.UUID{s1.ID, s2.ID, s3.ID}).Scan(&n); err != nil || n != 3 {
		t.Fatalf("%d receipts of the one-event streams (%v), want 3", n, err)
	}
	counts := map[string]int64{}
	rows, err := rig.pool.Query(ctx, `SELECT stream_type, events FROM receipt_counts_g1`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var typ string
		var c int64
		if err := rows.Scan(&typ, &c); err != nil {
			t.Fatal(err)
		}
		counts[typ] = c
	}
	if counts["ledger.single"] != 3 || counts["ledger.entry"] != 2 {
		t.Fatalf("counted %v, want each of the 3 one-event streams' events and the 2 tracked ones once", counts)
	}
	versions := map[string]int64{}
	rows, err = rig.pool.Query(ctx, `SELECT stream_id, version FROM proj_stream_versions WHERE projection='ledger'`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id string
		var v int64
		if err := rows.Scan(&id, &v); err != nil {
			t.Fatal(err)
		}
		versions[id] = v
	}
	if len(versions) != 1 || versions[k1.StreamID] != 2 {
		t.Fatalf("version rows %v, want only the tracked stream's (at 2)", versions)
	}
	fails := rig.failures() // in offset order, the two may be on different partitions
	slices.Sort(fails)
	wantFails := []string{impostor.ID.String() + ": out of order", wrong.ID.String() + ": stream type ledger.single is declared to hold one event"}
	slices.Sort(wantFails)
	if len(fails) != 2 || !strings.HasPrefix(fails[0], wantFails[0]) || !strings.HasPrefix(fails[1], wantFails[1]) {
		t.Fatalf("failures %v, want the impostor %s and the version-2 event %s", fails, impostor.ID, wrong.ID)
	}
}
