package apptest

import (
	"testing"
	"time"

	"github.com/IBM/sarama"

	"github.com/platform/backend/eventstore"
)

// ReadTopic reads every record of a topic from the oldest offset up to the
// high-water mark seen when it starts, failing the test after timeout.
func ReadTopic(t testing.TB, brokers []string, topic string, timeout time.Duration) []*sarama.ConsumerMessage {
	t.Helper()
	client, err := sarama.NewClient(brokers, eventstore.KafkaConfig{Brokers: brokers}.SaramaConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	consumer, err := sarama.NewConsumerFromClient(client)
	if err != nil {
		t.Fatal(err)
	}
	defer consumer.Close()
	parts, err := client.Partitions(topic)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.After(timeout)
	var out []*sarama.ConsumerMessage
	for _, p := range parts {
		hw, err := client.GetOffset(topic, p, sarama.OffsetNewest)
		if err != nil {
			t.Fatal(err)
		}
		if hw == 0 {
			continue
		}
		pc, err := consumer.ConsumePartition(topic, p, sarama.OffsetOldest)
		if err != nil {
			t.Fatal(err)
		}
		for done := false; !done; {
			select {
			case msg := <-pc.Messages():
				out = append(out, msg)
				done = msg.Offset >= hw-1
			case <-deadline:
				pc.Close()
				t.Fatalf("timed out reading %s/%d up to offset %d", topic, p, hw)
			}
		}
		pc.Close()
	}
	return out
}
