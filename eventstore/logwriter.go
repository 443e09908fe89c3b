package eventstore

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/IBM/sarama"
)

// TopicPartition names one partition of a topic.
type TopicPartition struct {
	Topic     string
	Partition int32
}

// LogWriter appends records to the log so that what one call writes to a
// partition is one record batch: the broker appends it whole or not at all.
// That is what keeps a stream's order through a broker failure: a stream's
// records of one call share a batch, so none of them lands without the
// earlier ones.
type LogWriter interface {
	// Partition is the partition a record key belongs to (stable: a stream
	// always maps to the same partition).
	Partition(topic string, key []byte) (int32, error)
	// Write appends each partition's records in order, one batch per
	// partition, and reports per partition: nil when its batch is on the log.
	Write(batches map[TopicPartition][]*sarama.ProducerMessage) map[TopicPartition]error
}

// MaxBatchBytes bounds one partition's record batch (the broker refuses a
// batch above message.max.bytes, 1 MiB by default).
const MaxBatchBytes = 900 << 10

// KafkaLogWriter writes record batches with sarama's Produce request to the
// partition leaders, acks=all. It is not idempotent in Kafka's sense: a
// batch the broker wrote but did not acknowledge is written again by the
// relay's next try, and readers drop the duplicates by event id.
type KafkaLogWriter struct {
	client  sarama.Client
	timeout time.Duration

	mu         sync.Mutex
	partitions map[string]int32
}

var _ LogWriter = (*KafkaLogWriter)(nil)

// NewKafkaLogWriter connects to the brokers.
func NewKafkaLogWriter(c KafkaConfig) (*KafkaLogWriter, error) {
	client, err := sarama.NewClient(c.Brokers, c.SaramaConfig())
	if err != nil {
		return nil, fmt.Errorf("kafka log writer: %w", err)
	}
	return &KafkaLogWriter{client: client, timeout: 10 * time.Second, partitions: map[string]int32{}}, nil
}

// Close releases the connections.
func (w *KafkaLogWriter) Close() error { return w.client.Close() }

// Partition is sarama's hash partitioner's choice (NewHashPartitioner), the
// one every record of the event topics was partitioned with so far, computed
// by HashPartition: sarama's needs a ProducerMessage a record and shares one
// hasher between its callers.
func (w *KafkaLogWriter) Partition(topic string, key []byte) (int32, error) {
	w.mu.Lock()
	n, ok := w.partitions[topic]
	w.mu.Unlock()
	if !ok {
		parts, err := w.client.Partitions(topic)
		if err != nil {
			return 0, err
		}
		if len(parts) == 0 {
			return 0, fmt.Errorf("topic %s has no partitions", topic)
		}
		n = int32(len(parts))
		w.mu.Lock()
		w.partitions[topic] = n
		w.mu.Unlock()
	}
	if key == nil { // sarama's partitioner picks at random; the relay and the dispatcher always key
		return sarama.NewHashPartitioner(topic).Partition(&sarama.ProducerMessage{Topic: topic}, n)
	}
	return HashPartition(key, n), nil
}

// HashPartition is the partition of n that sarama's hash partitioner
// (NewHashPartitioner) gives a non-nil key: FNV-1a of the key, 32 bits, as
// a signed remainder made positive.
func HashPartition(key []byte, n int32) int32 {
	h := uint32(2166136261)
	for _, c := range key {
		h ^= uint32(c)
		h *= 16777619
	}
	p := int32(h) % n
	if p < 0 {
		p = -p
	}
	return p
}

// Write sends one Produce request per leader, in parallel.
func (w *KafkaLogWriter) Write(batches map[TopicPartition][]*sarama.ProducerMessage) map[TopicPartition]error {
	result := make(map[TopicPartition]error, len(batches))
	requests := map[*sarama.Broker]*sarama.ProduceRequest{}
	sent := map[*sarama.Broker][]TopicPartition{}
	for tp, msgs := range batches {
		leader, err := w.client.Leader(tp.Topic, tp.Partition)
		if err != nil {
			result[tp] = err
			continue
		}
		batch, err := recordBatch(msgs)
		if err != nil {
			result[tp] = err
			continue
		}
		req := requests[leader]
		if req == nil {
			req = &sarama.ProduceRequest{Version: 7, RequiredAcks: sarama.WaitForAll, Timeout: int32(w.timeout / time.Millisecond)}
			requests[leader] = req
		}
		req.AddBatch(tp.Topic, tp.Partition, batch)
		sent[leader] = append(sent[leader], tp)
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for leader, req := range requests {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := leader.Produce(req)
			mu.Lock()
			defer mu.Unlock()
			for _, tp := range sent[leader] {
				switch {
				case err != nil:
					result[tp] = err
				case res.GetBlock(tp.Topic, tp.Partition) == nil:
					result[tp] = errors.New("kafka: no answer for the partition")
				case !errors.Is(res.GetBlock(tp.Topic, tp.Partition).Err, sarama.ErrNoError):
					result[tp] = res.GetBlock(tp.Topic, tp.Partition).Err
				default:
					result[tp] = nil
				}
			}
			if err != nil {
				_ = leader.Close() // the next Leader call opens a fresh connection
			}
		}()
	}
	wg.Wait()
	var stale []string
	for tp, err := range result {
		if err != nil {
			stale = append(stale, tp.Topic)
		}
	}
	if len(stale) > 0 {
		_ = w.client.RefreshMetadata(stale...) // leaders may have moved; a failure shows in the next Write
	}
	return result
}

// Batches gathers records, in the order they come, into one record batch
// per partition for one LogWriter.Write. It is full for a record when that
// record's partition batch would pass MaxBatchBytes: the record, and every
// one after it (they may share its partition, and must stay behind it),
// goes in a later write. The relay and the notification dispatcher cut
// their batches with it.
type Batches struct {
	Groups map[TopicPartition][]*sarama.ProducerMessage
	bytes  map[TopicPartition]int
}

func NewBatches() *Batches {
	return &Batches{Groups: map[TopicPartition][]*sarama.ProducerMessage{}, bytes: map[TopicPartition]int{}}
}

// Add puts msg, partitioned by key, in its partition's batch and returns
// the partition; ok is false, and nothing is added, when the batch is full.
// A partition's first record is always taken, whatever its size.
func (b *Batches) Add(w LogWriter, msg *sarama.ProducerMessage, key []byte) (tp TopicPartition, ok bool, err error) {
	p, err := w.Partition(msg.Topic, key)
	if err != nil {
		return TopicPartition{}, false, err
	}
	tp = TopicPartition{Topic: msg.Topic, Partition: p}
	size := recordSize(msg)
	if len(b.Groups[tp]) > 0 && b.bytes[tp]+size > MaxBatchBytes {
		return tp, false, nil
	}
	b.bytes[tp] += size
	b.Groups[tp] = append(b.Groups[tp], msg)
	return tp, true, nil
}

// recordBatch is one partition's records as a Kafka record batch (magic 2).
// The records, their pointers and their header pointers are three
// allocations a batch (it was six a record of the relay's, whose records
// carry eight headers: the record, its header pointers grown by append, its
// key copied from a StringEncoder; ToMessage's key is a ByteEncoder now).
func recordBatch(msgs []*sarama.ProducerMessage) (*sarama.RecordBatch, error) {
	now := time.Now().Truncate(time.Millisecond)
	b := &sarama.RecordBatch{Version: 2, FirstTimestamp: now, MaxTimestamp: now, ProducerID: -1, ProducerEpoch: -1, FirstSequence: -1}
	headers := 0
	for _, m := range msgs {
		headers += len(m.Headers)
	}
	records := make([]sarama.Record, len(msgs))
	pointers := make([]*sarama.RecordHeader, 0, headers)
	b.Records = make([]*sarama.Record, len(msgs))
	for i, m := range msgs {
		rec := &records[i]
		rec.OffsetDelta = int64(i)
		var err error
		if m.Key != nil {
			if rec.Key, err = m.Key.Encode(); err != nil {
				return nil, err
			}
		}
		if m.Value != nil {
			if rec.Value, err = m.Value.Encode(); err != nil {
				return nil, err
			}
		}
		start := len(pointers)
		for j := range m.Headers {
			pointers = append(pointers, &m.Headers[j])
		}
		rec.Headers = pointers[start:len(pointers):len(pointers)]
		b.Records[i] = rec
	}
	b.LastOffsetDelta = int32(len(msgs) - 1)
	return b, nil
}

// recordSize is a conservative estimate of a record's bytes in a batch.
func recordSize(m *sarama.ProducerMessage) int {
	n := 64 + m.Key.Length() + m.Value.Length()
	for _, h := range m.Headers {
		n += len(h.Key) + len(h.Value) + 10
	}
	return n
}
