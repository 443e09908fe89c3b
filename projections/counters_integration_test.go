package projections_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/projections"
)

// tally counts the ledger's events per stream group (the stream id's part
// before ":") with Add: a count and the sum of the versions.
type tally struct{}

func (tally) Name() string       { return "tally" }
func (tally) Contexts() []string { return []string{"ledger"} }
func (tally) Tables() []string   { return []string{"tally"} }
func (tally) Schema() []string {
	return []string{`CREATE TABLE IF NOT EXISTS {{tally}} (grp text PRIMARY KEY, events bigint NOT NULL, versions bigint NOT NULL)`}
}
func (tally) Reduce(e eventstore.Event) ([]projections.Statement, error) {
	grp, _, _ := strings.Cut(e.StreamID, ":")
	return []projections.Statement{projections.Add("{{tally}}", []string{"grp"}, []any{grp}, []string{"events", "versions"}, 1, e.StreamVersion)}, nil
}

// Adds of a batch are summed per row and written once, and each event is
// counted once: events of several groups, a burst that arrives as one
// batch, and a redelivered duplicate that the runner drops.
func TestAddSumsCountersOncePerEvent(t *testing.T) {
	rig := startRig(t, tally{})
	a, b := "a"+uuid.NewString()[:8], "b"+uuid.NewString()[:8]
	var events []eventstore.Event
	for i := range 20 {
		grp := a
		if i%4 == 0 {
			grp = b
		}
		stream := grp + ":" + uuid.NewString()
		events = append(events, rig.record(stream, 1), rig.record(stream, 2))
	}
	// The events spread over partitions: wait until each partition's
	// checkpoint is past the last record published to it (the duplicates'
	// included), not only the last record's partition.
	lastOffsets := map[int32]int64{}
	for _, e := range append(events, events[3], events[10]) { // redelivered: counted once
		m := rig.publish(e)
		lastOffsets[m.Partition] = max(lastOffsets[m.Partition], m.Offset)
	}
	deadline := time.Now().Add(30 * time.Second)
	passed := func() bool {
		for partition, offset := range lastOffsets {
			var next int64
			err := rig.pool.QueryRow(context.Background(), `SELECT next_offset FROM proj_checkpoints WHERE projection='tally' AND generation=1
				AND topic=$1 AND partition=$2`, rig.topic, partition).Scan(&next)
			if err != nil || next <= offset {
				return false
			}
		}
		return true
	}
	for !passed() {
		if time.Now().After(deadline) {
			t.Fatal("the tally never caught up")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if f := rig.failures(); len(f) > 0 {
		t.Fatalf("parked: %v", f)
	}
	for grp, want := range map[string][2]int64{a: {30, 45}, b: {10, 15}} {
		var n, versions int64
		if err := rig.pool.QueryRow(context.Background(), `SELECT events, versions FROM tally_g1 WHERE grp = $1`, grp).Scan(&n, &versions); err != nil {
			t.Fatal(err)
		}
		if n != want[0] || versions != want[1] {
			t.Fatalf("group %s: %d events, versions summing to %d; want %d and %d", grp, n, versions, want[0], want[1])
		}
	}
}
