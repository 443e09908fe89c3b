package projections_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/IBM/sarama"
	"github.com/google/uuid"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/internal/apptest"
	"github.com/platform/backend/projections"
)

// mirror is a second projection of the ledger context's topic, beside
// ledger: it counts the events it reduces, divides by zero (an error of the
// database, which fails the whole transaction) on the events poison names,
// and takes its time when slow says so.
type mirror struct {
	reduced *atomic.Int32
	poison  func(e eventstore.Event) bool
	slow    time.Duration // slept in every Reduce
}

func (mirror) Name() string       { return "mirror" }
func (mirror) Contexts() []string { return []string{"ledger"} }
func (mirror) Tables() []string   { return []string{"mirror"} }
func (mirror) Schema() []string {
	return []string{`CREATE TABLE IF NOT EXISTS {{mirror}} (event_id uuid PRIMARY KEY, stream_id text, version bigint)`}
}
func (m mirror) Reduce(e eventstore.Event) ([]projections.Statement, error) {
	if m.reduced != nil {
		m.reduced.Add(1)
	}
	time.Sleep(m.slow)
	if m.poison != nil && m.poison(e) {
		return []projections.Statement{projections.Exec(`SELECT 1/0`)}, nil
	}
	return []projections.Statement{projections.Exec(`INSERT INTO {{mirror}} (event_id, stream_id, version) VALUES ($1, $2, $3)`,
		e.ID, e.StreamID, e.StreamVersion)}, nil
}

func (r *ledgerRig) passedBy(projection string, msg *sarama.ProducerMessage) bool {
	var next int64
	err := r.pool.QueryRow(context.Background(), `SELECT next_offset FROM proj_checkpoints WHERE projection=$1 AND generation=1 AND topic=$2 AND partition=$3`,
		projection, msg.Topic, msg.Partition).Scan(&next)
	return err == nil && next > msg.Offset
}

// publishEach puts events on the log in the given order and returns their
// records (on the partitions of their streams).
func (r *ledgerRig) publishEach(events ...eventstore.Event) []*sarama.ProducerMessage {
	r.t.Helper()
	out := make([]*sarama.ProducerMessage, len(events))
	for i, e := range events {
		out[i] = r.publish(e)
	}
	return out
}

// passedAll reports whether the projection's checkpoints passed every record.
func (r *ledgerRig) passedAll(projection string, msgs []*sarama.ProducerMessage) bool {
	for _, m := range msgs {
		if !r.passedBy(projection, m) {
			return false
		}
	}
	return true
}

func sharedBatchFallbacks() float64 {
	mfs, _ := prometheus.DefaultGatherer.Gather()
	for _, mf := range mfs {
		if mf.GetName() == "platform_projection_shared_batch_fallbacks_total" {
			return mf.GetMetric()[0].GetCounter().GetValue()
		}
	}
	return 0
}

func (r *ledgerRig) count(sql string, args ...any) int {
	r.t.Helper()
	var n int
	if err := r.pool.QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		r.t.Fatalf("%s: %v", sql, err)
	}
	return n
}

// TestLiveProjectionsShareATransaction: two live projections of one topic
// apply each batch in one transaction (one commit, one WAL flush for both):
// every event's rows in the two projections were written by the same
// transaction id.
func TestLiveProjectionsShareATransaction(t *testing.T) {
	rig := startRig(t, ledger{}, mirror{})
	var msgs []*sarama.ProducerMessage
	for range 20 {
		stream := "shared-" + uuid.NewString()
		for v := int64(1); v <= 3; v++ {
			msgs = append(msgs, rig.publish(rig.record(stream, v)))
		}
	}
	apptest.Eventually(t, 30*time.Second, "both projections to apply the events", func() bool {
		return rig.passedAll("ledger", msgs) && rig.passedAll("mirror", msgs)
	})
	if n := rig.count(`SELECT count(*) FROM ledger_g1 l JOIN mirror_g1 m USING (event_id)`); n != 60 {
		t.Fatalf("%d events in both projections, want 60", n)
	}
	if n := rig.count(`SELECT count(*) FROM ledger_g1 l JOIN mirror_g1 m USING (event_id) WHERE l.xmin::text <> m.xmin::text`); n != 0 {
		t.Fatalf("%d events written by different transactions in the two projections, want 0", n)
	}
	if f := rig.failures(); len(f) != 0 {
		t.Fatalf("failures %v, want none", f)
	}
}

// TestSharedBatchStoresStreamVersionsInOneStatement: the stream versions a
// shared batch applied are stored, for every projection of the
// transaction, by one statement (each projection wrote its own before): a
// stream's version rows of the two projections carry the same transaction
// and command id.
func TestSharedBatchStoresStreamVersionsInOneStatement(t *testing.T) {
	rig := startRig(t, ledger{}, mirror{})
	var msgs []*sarama.ProducerMessage
	var streams []string
	for range 20 {
		stream := "versions-" + uuid.NewString()
		streams = append(streams, stream)
		for v := int64(1); v <= 3; v++ {
			msgs = append(msgs, rig.publish(rig.record(stream, v)))
		}
	}
	apptest.Eventually(t, 30*time.Second, "both projections to apply the events", func() bool {
		return rig.passedAll("ledger", msgs) && rig.passedAll("mirror", msgs)
	})
	const pairs = `FROM proj_stream_versions l JOIN proj_stream_versions m USING (generation, stream_id)
		WHERE l.projection = 'ledger' AND m.projection = 'mirror' AND stream_id = ANY($1) AND l.version = 3 AND m.version = 3`
	if n := rig.count(`SELECT count(*) `+pairs, streams); n != 20 {
		t.Fatalf("%d streams at version 3 in both projections, want 20", n)
	}
	if n := rig.count(`SELECT count(*) `+pairs+` AND (l.xmin::text, l.cmin::text) <> (m.xmin::text, m.cmin::text)`, streams); n != 0 {
		t.Fatalf("%d streams' versions stored by different statements for the two projections, want 0", n)
	}
	if f := rig.failures(); len(f) != 0 {
		t.Fatalf("failures %v, want none", f)
	}
}

// TestSharedBatchFailureParksOnlyTheFailingProjection: an event one
// projection cannot apply (its statement fails, which fails the shared
// transaction) is parked for that projection alone; the other projection
// applies every event, the failing one every other event.
func TestSharedBatchFailureParksOnlyTheFailingProjection(t *testing.T) {
	rig := newRig(t)
	var bad eventstore.Event
	var events []eventstore.Event
	for i := range 6 {
		stream := "poison-" + uuid.NewString()
		for v := int64(1); v <= 2; v++ {
			e := rig.record(stream, v)
			if i == 3 && v == 2 {
				bad = e
			}
			events = append(events, e)
		}
	}
	msgs := rig.publishEach(events...) // one backlog: the events come in shared batches
	fallbacks := sharedBatchFallbacks()
	t.Cleanup(rig.run(ledger{}, mirror{poison: func(e eventstore.Event) bool { return e.ID == bad.ID }}))
	apptest.Eventually(t, 60*time.Second, "both projections to pass the events", func() bool {
		return rig.passedAll("ledger", msgs) && rig.passedAll("mirror", msgs)
	})
	if n := rig.count(`SELECT count(*) FROM ledger_g1`); n != len(events) {
		t.Fatalf("ledger applied %d events, want all %d", n, len(events))
	}
	if n := rig.count(`SELECT count(*) FROM mirror_g1`); n != len(events)-1 {
		t.Fatalf("mirror applied %d events, want %d (all but the poisoned one); failures %v", n, len(events)-1, rig.failures())
	}
	if n := rig.count(`SELECT count(*) FROM proj_failures WHERE projection='mirror' AND event_id=$1`, bad.ID.String()); n != 1 {
		t.Fatalf("the poisoned event parked %d times for mirror, want 1", n)
	}
	if n := rig.count(`SELECT count(*) FROM proj_failures`); n != 1 {
		t.Fatalf("%d failures recorded, want 1 (%v): ledger's events are not parked for mirror's", n, rig.failures())
	}
	if sharedBatchFallbacks() <= fallbacks {
		t.Fatal("platform_projection_shared_batch_fallbacks_total did not count the shared batch that failed")
	}
}

// TestGroupMemberStartsAtItsOwnCheckpoint: a projection added beside one
// that has applied part of the log starts from the log's beginning, and
// the one that applied part of it is given only what it has not applied.
func TestGroupMemberStartsAtItsOwnCheckpoint(t *testing.T) {
	rig := newRig(t)
	stream := "joined-" + uuid.NewString()
	e1, e2, e3 := rig.record(stream, 1), rig.record(stream, 2), rig.record(stream, 3)
	var first atomic.Int32
	stop := rig.run(mirror{reduced: &first})
	m3 := rig.publish(e1, e2, e3)
	apptest.Eventually(t, 30*time.Second, "mirror to apply the first events", func() bool { return rig.passedBy("mirror", m3) })
	stop()

	e4, e5 := rig.record(stream, 4), rig.record(stream, 5)
	m5 := rig.publish(e4, e5)
	var second atomic.Int32
	dropped := pitDupDropped("mirror")
	t.Cleanup(rig.run(ledger{}, mirror{reduced: &second}))
	apptest.Eventually(t, 30*time.Second, "both projections to apply every event", func() bool {
		return rig.passedBy("ledger", m5) && rig.passedBy("mirror", m5)
	})
	if got := rig.applied(stream); !equal(got, want(e1, e2, e3, e4, e5)) {
		t.Fatalf("ledger applied %v, want %v", got, want(e1, e2, e3, e4, e5))
	}
	if n := rig.count(`SELECT count(*) FROM mirror_g1 WHERE stream_id=$1`, stream); n != 5 {
		t.Fatalf("mirror holds %d events, want 5", n)
	}
	if n := second.Load(); n != 2 {
		t.Fatalf("mirror reduced %d events after the restart, want 2: the events past its checkpoint only", n)
	}
	if n := pitDupDropped("mirror") - dropped; n != 0 {
		t.Fatalf("mirror was given %v events it had applied (dropped as duplicates), want 0: the group starts each member at its checkpoint", n)
	}
}

// TestActivatedGenerationJoinsTheLiveGroup: a rebuilt generation that goes
// live is consumed with the other live projections from then on (the live
// group starts again with it), and the projection beside it keeps applying.
func TestActivatedGenerationJoinsTheLiveGroup(t *testing.T) {
	rig := startRig(t, ledger{}, mirror{})
	ctx := context.Background()
	stream := "rebuilt-" + uuid.NewString()
	e1, e2 := rig.record(stream, 1), rig.record(stream, 2)
	m2 := rig.publish(e1, e2)
	apptest.Eventually(t, 30*time.Second, "both projections to apply the first events", func() bool {
		return rig.passedBy("ledger", m2) && rig.passedBy("mirror", m2)
	})
	gen, err := projections.RequestRebuild(ctx, rig.pool, "mirror")
	if err != nil || gen != 2 {
		t.Fatalf("rebuild: generation %d, %v", gen, err)
	}
	apptest.Eventually(t, 60*time.Second, "mirror g2 to go live", func() bool {
		return rig.count(`SELECT count(*) FROM proj_generations WHERE projection='mirror' AND generation=2 AND state='active'`) == 1
	})
	// Its rebuild's own consumer stops at the next reconciliation: from then
	// on only the live group can apply it.
	admin, err := sarama.NewClusterAdmin(rig.kc.Brokers, rig.kc.SaramaConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	rebuildGroup := rig.kc.Topics.Group("projection.mirror.g2")
	apptest.Eventually(t, 30*time.Second, "the rebuild's consumer group to empty", func() bool {
		groups, err := admin.DescribeConsumerGroups([]string{rebuildGroup})
		return err == nil && len(groups) == 1 && len(groups[0].Members) == 0
	})
	e3, e4 := rig.record(stream, 3), rig.record(stream, 4)
	rig.publish(e3, e4)
	apptest.Eventually(t, 30*time.Second, "the live generations to apply the later events", func() bool {
		return rig.count(`SELECT count(*) FROM mirror_g2 WHERE stream_id=$1`, stream) == 4 &&
			len(rig.applied(stream)) == 4
	})
	if got := rig.applied(stream); !equal(got, want(e1, e2, e3, e4)) {
		t.Fatalf("ledger applied %v, want %v", got, want(e1, e2, e3, e4))
	}
	if f := rig.failures(); len(f) != 0 {
		t.Fatalf("failures %v, want none", f)
	}
}

// TestNewProjectionCatchesUpAlone: a projection added to a running
// platform reads the log from its start; while it catches up, the live
// projections beside it keep applying new events at once (they are not
// held back behind its backlog), and once it has caught up it joins them.
func TestNewProjectionCatchesUpAlone(t *testing.T) {
	rig := newRig(t)
	stream := "backlog-" + uuid.NewString()
	stop := rig.run(ledger{})
	var backlog []*sarama.ProducerMessage
	events := make([]eventstore.Event, 2500) // more than the slack a live member may lag (a batch)
	for i := range events {
		events[i] = rig.event(stream, int64(i+1))
	}
	backlog = rig.publishBatch(events...)
	last := backlog[len(backlog)-1]
	apptest.Eventually(t, 60*time.Second, "ledger to apply the backlog", func() bool { return rig.passedBy("ledger", last) })
	stop()

	t.Cleanup(rig.run(ledger{}, mirror{slow: 2 * time.Millisecond})) // ~5 s to catch up
	fresh := rig.event(stream, int64(len(events)+1))
	m := rig.publish(fresh)
	apptest.Eventually(t, 20*time.Second, "ledger to apply the new event", func() bool { return rig.passedBy("ledger", m) })
	if rig.passedBy("mirror", last) {
		t.Fatal("ledger applied the new event only once mirror had caught up: held back behind the new projection's backlog (or mirror too fast for the test to tell)")
	}
	apptest.Eventually(t, 60*time.Second, "mirror to catch up", func() bool { return rig.passedBy("mirror", m) })
	later := rig.publish(rig.event(stream, int64(len(events)+2)))
	apptest.Eventually(t, 30*time.Second, "both to apply the next event", func() bool {
		return rig.passedBy("ledger", later) && rig.passedBy("mirror", later)
	})
	if n := rig.count(`SELECT count(*) FROM mirror_g1 WHERE stream_id=$1`, stream); n != len(events)+2 {
		t.Fatalf("mirror holds %d events, want %d", n, len(events)+2)
	}
	if n := rig.count(`SELECT count(*) FROM ledger_g1 WHERE stream_id=$1`, stream); n != len(events)+2 {
		t.Fatalf("ledger holds %d events, want %d", n, len(events)+2)
	}
}

// event makes an event of the stream without recording it in the event
// store (a stream applied in order never needs it there).
func (r *ledgerRig) event(stream string, version int64) eventstore.Event {
	e := eventstore.Event{ID: uuid.Must(uuid.NewV7()), Type: "ledger.entry.added", SchemaVersion: 1, StreamType: "ledger.entry",
		StreamID: stream, StreamVersion: version, OrganizationID: "org-ledger", Payload: []byte(`{}`)}
	e.Actor.ID, e.Actor.Type = "tester", "system"
	e.OccurredAt, e.RecordedAt = time.Now().UTC(), time.Now().UTC()
	return e
}

// publishBatch puts events on the log in one request and returns their records.
func (r *ledgerRig) publishBatch(events ...eventstore.Event) []*sarama.ProducerMessage {
	r.t.Helper()
	msgs := make([]*sarama.ProducerMessage, len(events))
	for i, e := range events {
		m, err := e.ToMessage(r.topic)
		if err != nil {
			r.t.Fatal(err)
		}
		msgs[i] = m
	}
	if err := r.producer.SendMessages(msgs); err != nil {
		r.t.Fatal(err)
	}
	return msgs
}
