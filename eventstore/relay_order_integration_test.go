package eventstore_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/IBM/sarama"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/internal/apptest"
)

// flakyBroker is a LogWriter that keeps what it "wrote" in order and fails
// chosen partitions of a call while it takes the others, as a broker whose
// partition leaders come back at different moments does.
type flakyBroker struct {
	mu    sync.Mutex
	log   []eventstore.Event
	fail  func(p int32, call int) bool
	calls int
}

// Partition puts streams A and C on partition 0, B on 1.
func (f *flakyBroker) Partition(_ string, key []byte) (int32, error) {
	if key[0] == 'B' {
		return 1, nil
	}
	return 0, nil
}

func (f *flakyBroker) Write(batches map[eventstore.TopicPartition][]*sarama.ProducerMessage) map[eventstore.TopicPartition]error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	out := map[eventstore.TopicPartition]error{}
	for tp, msgs := range batches {
		if f.fail(tp.Partition, f.calls) {
			out[tp] = errors.New("kafka: broker not available")
			continue
		}
		for _, m := range msgs {
			raw, _ := m.Value.Encode()
			e, err := eventstore.DecodeEvent(raw)
			if err != nil {
				out[tp] = err
				break
			}
			f.log = append(f.log, e)
		}
	}
	return out
}

// TestRelayKeepsStreamOrderThroughPartialSends: the broker fails partition 0
// (streams A and C) in the first send while it takes partition 1 (B). Whatever the relay sends after that, no stream's later
// version may reach the log before an earlier one, and every row ends up on
// it.
func TestRelayKeepsStreamOrderThroughPartialSends(t *testing.T) {
	relayThroughPartialSends(t, eventstore.RelayConfig{}, (*eventstore.Relay).PublishBatch, func(int32, int) bool { return false })
}

// TestRelayDrainKeepsStreamOrderThroughPartialSends: the same with Drain
// (what the leader runs), two rows a batch, so each batch is read while the
// one before it is being sent: the broker fails partition 0 in the first
// send, and again in the third, while the fourth batch is being read ahead.
// Nothing read ahead of a failed send may go out before the rows that
// failed, and Drain leaves the stored cursor over everything on the log.
func TestRelayDrainKeepsStreamOrderThroughPartialSends(t *testing.T) {
	relayThroughPartialSends(t, eventstore.RelayConfig{BatchSize: 2}, (*eventstore.Relay).Drain, func(p int32, call int) bool { return call == 3 && p == 0 })
}

func relayThroughPartialSends(t *testing.T, cfg eventstore.RelayConfig, publish func(*eventstore.Relay, context.Context) (int, error), alsoFail func(int32, int) bool) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	pool, kc := apptest.Infra(t, "relayorder", []func(context.Context, *pgxpool.Pool) error{eventstore.Migrate},
		func(eventstore.KafkaConfig) []string { return nil })
	topic := kc.Topics.ForContext("status")
	streams := []string{"A-" + uuid.NewString(), "B-" + uuid.NewString(), "C-" + uuid.NewString()}
	const versions = 4
	// Interleaved commits: A1 B1 C1 A2 B2 C2 ...
	for v := 1; v <= versions; v++ {
		for _, s := range streams {
			_, err := pool.Exec(ctx, `INSERT INTO es_events (event_id, stream_type, stream_id, stream_version, event_type, schema_version,
				organization_id, actor_id, actor_type, occurred_at, recorded_at, idempotency_key, correlation_id, causation_id, payload, topic)
				VALUES ($1,'status.incident',$2,$3,'status.incident.updated',1,'org-relay','tester','system',now(),now(),'','','','{}',$4)`,
				uuid.Must(uuid.NewV7()), s, v, topic)
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	broker := &flakyBroker{fail: func(p int32, call int) bool { return call == 1 && p == 0 || alsoFail(p, call) }}
	relay, err := eventstore.NewRelay(pool, broker, cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	// The relay's horizon is cluster-wide: a transaction of a test running
	// beside this one may hold the rows back a moment (nothing is read then).
	n, err := publish(relay, ctx)
	for deadline := time.Now().Add(15 * time.Second); n == 0 && err == nil && broker.calls == 0 && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
		n, err = publish(relay, ctx)
	}
	if err == nil {
		t.Fatalf("first batch: no error reported for a partial send (passed %d rows)", n)
	}
	if n != 0 {
		t.Fatalf("first batch moved the cursor over %d rows, want 0: its first row (A v1) is not on the log", n)
	}
	// Draining may also wait for the cluster-wide horizon: batches that
	// read nothing are retried after a pause, until a deadline.
	for attempt, deadline := 0, time.Now().Add(15*time.Second); ; attempt++ {
		if p, err := eventstore.Pending(ctx, pool); err != nil || p == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the relay does not drain the outbox")
		}
		n, err := publish(relay, ctx)
		if err != nil && !alsoFail(0, broker.calls) {
			t.Fatalf("batch %d: %v", attempt+2, err)
		}
		if n == 0 {
			time.Sleep(20 * time.Millisecond)
		}
	}

	// Per stream, the log holds every version, and never a lower one after a
	// higher one unless it is the very same event again.
	highest := map[string]int64{}
	ids := map[string]uuid.UUID{}
	for i, e := range broker.log {
		key := fmt.Sprintf("%s@%d", e.StreamID, e.StreamVersion)
		if prev, ok := ids[key]; ok && prev != e.ID {
			t.Fatalf("log[%d]: %s appears with two event ids", i, key)
		}
		ids[key] = e.ID
		if e.StreamVersion > highest[e.StreamID]+1 {
			t.Fatalf("log[%d]: %s reached the log before version %d of its stream (log order %v)", i, key, highest[e.StreamID]+1, order(broker.log))
		}
		highest[e.StreamID] = max(highest[e.StreamID], e.StreamVersion)
	}
	for _, s := range streams {
		if highest[s] != versions {
			t.Fatalf("stream %s: highest version on the log %d, want %d", s, highest[s], versions)
		}
	}
}

func order(log []eventstore.Event) []string {
	out := make([]string, len(log))
	for i, e := range log {
		out[i] = fmt.Sprintf("%s@%d", e.StreamID[:1], e.StreamVersion)
	}
	return out
}
