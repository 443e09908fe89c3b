package eventstore_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/IBM/sarama"
	"github.com/google/uuid"

	"github.com/platform/backend/eventstore"
)

// The log writer partitions as sarama's hash partitioner did: a stream's
// records written before and after must share a partition.
func TestHashPartitionIsSaramas(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	keys := [][]byte{{}, []byte("s1"), []byte(uuid.NewString())}
	for range 20000 {
		k := make([]byte, rng.IntN(40))
		for i := range k {
			k[i] = byte(rng.UintN(256))
		}
		keys = append(keys, k)
	}
	for _, n := range []int32{1, 2, 3, 7, 12, 48, 1000} {
		sp := sarama.NewHashPartitioner("t")
		for _, k := range keys {
			want, err := sp.Partition(&sarama.ProducerMessage{Topic: "t", Key: sarama.ByteEncoder(k)}, n)
			if err != nil {
				t.Fatal(err)
			}
			if got := eventstore.HashPartition(k, n); got != want {
				t.Fatalf("key %x over %d partitions: %d, sarama says %d", k, n, got, want)
			}
		}
	}
}

func relayMessages(t testing.TB, n int) []*sarama.ProducerMessage {
	var msgs []*sarama.ProducerMessage
	for i := range n {
		e := eventstore.Event{ID: uuid.Must(uuid.NewV7()), Type: "status.incident.updated", SchemaVersion: 1, StreamType: "status.incident",
			StreamID: fmt.Sprintf("inc-%d", i), StreamVersion: int64(i + 1), OrganizationID: "o1", Actor: eventstore.Actor{ID: "a", Type: "user"},
			OccurredAt: time.Unix(10, 0).UTC(), RecordedAt: time.Unix(11, 0).UTC(), CorrelationID: "c", Payload: json.RawMessage(`{"x":1}`)}
		msg, err := e.ToMessage("topic")
		if err != nil {
			t.Fatal(err)
		}
		msgs = append(msgs, msg)
	}
	return msgs
}

// A record batch carries each message's key, value and headers, in order.
func TestRecordBatchCarriesTheMessages(t *testing.T) {
	msgs := relayMessages(t, 5)
	b, err := eventstore.RecordBatch(msgs)
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Records) != len(msgs) || b.LastOffsetDelta != int32(len(msgs)-1) || b.Version != 2 {
		t.Fatalf("%d records, last offset delta %d, version %d", len(b.Records), b.LastOffsetDelta, b.Version)
	}
	for i, m := range msgs {
		r := b.Records[i]
		key, _ := m.Key.Encode()
		value, _ := m.Value.Encode()
		if r.OffsetDelta != int64(i) || string(r.Key) != fmt.Sprintf("inc-%d", i) || string(r.Key) != string(key) || string(r.Value) != string(value) {
			t.Fatalf("record %d: offset delta %d, key %q, value %q", i, r.OffsetDelta, r.Key, r.Value)
		}
		if len(r.Headers) != len(m.Headers) {
			t.Fatalf("record %d: %d headers, want %d", i, len(r.Headers), len(m.Headers))
		}
		for j, h := range r.Headers {
			if !slices.Equal(h.Key, m.Headers[j].Key) || !slices.Equal(h.Value, m.Headers[j].Value) {
				t.Fatalf("record %d header %d: %s=%s, want %s=%s", i, j, h.Key, h.Value, m.Headers[j].Key, m.Headers[j].Value)
			}
		}
	}
}

// A record batch costs a few allocations, whatever its records: it was six
// a record of the relay's (1,210 for these 200).
func TestRecordBatchAllocatesPerBatch(t *testing.T) {
	msgs := relayMessages(t, 200)
	allocs := testing.AllocsPerRun(20, func() {
		if _, err := eventstore.RecordBatch(msgs); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 5 {
		t.Fatalf("%.0f allocations for a batch of %d records", allocs, len(msgs))
	}
}
