package bench

import (
	"context"
	"crypto/rand"
	"fmt"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/IBM/sarama"
	"github.com/jackc/pgx/v5"

	"github.com/platform/backend/eventstore"
)

// BenchmarkRawKafkaProduce is the broker's ceiling for the relay: a bare
// SyncProducer with the relay's ProducerConfig (idempotent, acks=all, one
// request in flight) sending ~400-byte values, keyed over 2,000 stream ids,
// in SendMessages batches of 500 to a fresh 3-partition topic.
func BenchmarkRawKafkaProduce(b *testing.B) {
	cfg := kafkaConfig(b, "braw")
	topic := cfg.Topics.ForContext("raw")
	must(b, eventstore.EnsureTopics(cfg, topic))
	p := newProducer(b, cfg)
	value := make([]byte, rawKafkaValue)
	_, _ = rand.Read(value)
	must(b, p.SendMessages([]*sarama.ProducerMessage{{Topic: topic, Value: sarama.ByteEncoder(value)}})) // warm up
	var rate float64
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		msgs := make([]*sarama.ProducerMessage, rawKafkaEvents)
		for i := range msgs {
			msgs[i] = &sarama.ProducerMessage{Topic: topic, Key: sarama.StringEncoder(fmt.Sprint("stream-", i%2000)),
				Value: sarama.ByteEncoder(value)}
		}
		b.StartTimer()
		rate = float64(rawKafkaEvents) / sendAll(b, p, msgs).Seconds()
	}
	b.ReportMetric(rate, "events/s")
	b.Logf("raw sarama SyncProducer (relay config), %d x %d-byte values in batches of %d: %.0f events/s",
		rawKafkaEvents, rawKafkaValue, kafkaBatch, rate)
}

// timedWriter accounts the time the relay spends writing to the broker, to
// split the relay's time between the broker and PostgreSQL.
type timedWriter struct {
	eventstore.LogWriter
	mu     sync.Mutex
	send   time.Duration
	writes []time.Duration
	rows   int
}

func (p *timedWriter) Write(batches map[eventstore.TopicPartition][]*sarama.ProducerMessage) map[eventstore.TopicPartition]error {
	t := time.Now()
	res := p.LogWriter.Write(batches)
	d := time.Since(t)
	p.mu.Lock()
	p.send += d
	p.writes = append(p.writes, d)
	for _, m := range batches {
		p.rows += len(m)
	}
	p.mu.Unlock()
	return res
}

// BenchmarkRelay times eventstore.Relay.Drain (what the relay's leader runs)
// draining an outbox of relayEvents unpublished status events (a fresh
// database, filled with COPY outside the timer) until nothing is pending. The ceiling, measured in the
// same benchmark just before, is the raw SyncProducer sending the very same
// envelopes (same keys, values and headers) in batches of 500.
func BenchmarkRelay(b *testing.B) {
	ctx := context.Background()
	cfg := kafkaConfig(b, "brelay")
	topic := cfg.Topics.ForContext("status")
	must(b, eventstore.EnsureTopics(cfg, topic))
	var rate, raw float64
	var sendShare float64
	var firstWrite, lastWrite time.Duration
	var batches int
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		events := statusEvents("org-bench", relayEvents, replayIncidents)
		rawBefore := rawKafkaRate(b, cfg, events)

		pool := newPool(b, 8)
		must(b, eventstore.Migrate(ctx, pool))
		rows := make([][]any, len(events))
		for i, e := range events {
			rows[i] = []any{e.ID, e.StreamType, e.StreamID, e.StreamVersion, e.Type, e.SchemaVersion, e.OrganizationID,
				e.Actor.ID, e.Actor.Type, e.OccurredAt, e.RecordedAt, e.IdempotencyKey, e.CorrelationID, e.CausationID, e.Payload, topic}
		}
		_, err := pool.CopyFrom(ctx, pgx.Identifier{"es_events"}, []string{"event_id", "stream_type", "stream_id", "stream_version",
			"event_type", "schema_version", "organization_id", "actor_id", "actor_type", "occurred_at", "recorded_at",
			"idempotency_key", "correlation_id", "causation_id", "payload", "topic"}, pgx.CopyFromRows(rows))
		must(b, err)
		_, err = pool.Exec(ctx, `ANALYZE es_events`)
		must(b, err)
		writer, err := eventstore.NewKafkaLogWriter(cfg)
		must(b, err)
		b.Cleanup(func() { writer.Close() })
		producer := &timedWriter{LogWriter: writer}
		relayBatch, _ := strconv.Atoi(os.Getenv("BENCH_RELAY_BATCH"))
		relay, err := eventstore.NewRelay(pool, producer, eventstore.RelayConfig{BatchSize: relayBatch}, discardLog)
		must(b, err)
		// Warm the writer (metadata, connection) as a running relay's is.
		warm, _ := events[0].ToMessage(topic)
		p, err := writer.Partition(topic, []byte(events[0].StreamID))
		must(b, err)
		for tp, err := range writer.Write(map[eventstore.TopicPartition][]*sarama.ProducerMessage{{Topic: topic, Partition: p}: {warm}}) {
			if err != nil {
				b.Fatalf("warm %v: %v", tp, err)
			}
		}

		b.StartTimer()
		cpu0 := sampleCPU(pool.Config().ConnConfig.Database)
		start := time.Now()
		published := 0
		for {
			n, err := relay.Drain(ctx)
			if err != nil {
				b.Fatalf("publish: %v", err)
			}
			if n == 0 {
				break
			}
			published += n
		}
		elapsed := time.Since(start)
		cpu := cpu0.to(sampleCPU(pool.Config().ConnConfig.Database))
		b.StopTimer()

		// The ceiling is the better of two raw runs, before and after, as
		// other load on the machine comes and goes.
		rawAfter := rawKafkaRate(b, cfg, events)
		raw = max(rawBefore, rawAfter)
		b.Logf("raw producer, same envelopes: %.0f events/s before the relay run, %.0f after", rawBefore, rawAfter)
		pending, err := eventstore.Pending(ctx, pool)
		must(b, err)
		if published != len(events) || pending != 0 {
			b.Fatalf("published %d of %d, %d still pending", published, len(events), pending)
		}
		rate = float64(published) / elapsed.Seconds()
		sendShare = producer.send.Seconds() / elapsed.Seconds()
		writes := producer.writes[1:] // the first is the warm-up
		batches = len(writes)
		firstWrite, lastWrite = avg(writes[:min(5, len(writes))]), avg(writes[max(0, len(writes)-5):])
		b.Logf("relay: %d events in %d writes (avg %.0f events), %.2fs: %.0f events/s; %.0f%% of the time in writes to the broker (the next batch is read meanwhile)",
			published, batches, float64(producer.rows-1)/float64(batches), elapsed.Seconds(), rate, 100*sendShare)
		b.Logf("relay: avg write %.1f ms over the first 5 batches, %.1f ms over the last 5; message size ~%.0f bytes",
			ms(firstWrite), ms(lastWrite), messageBytes(events[:200]))
		b.Logf("relay: %s; the database's own backends %.1f µs an event", cpu.perOp(published, "event"), cpu.backendsPerOp(published))
	}
	b.ReportMetric(rate, "events/s")
	b.ReportMetric(raw, "raw-events/s")
	b.ReportMetric(rate/raw, "ratio")
	b.ReportMetric(sendShare, "kafka-share")
	b.Logf("relay %.0f events/s vs raw producer %.0f events/s (same envelopes): ratio %.2f", rate, raw, rate/raw)
}

func avg(d []time.Duration) time.Duration {
	if len(d) == 0 {
		return 0
	}
	var t time.Duration
	for _, x := range d {
		t += x
	}
	return t / time.Duration(len(d))
}
