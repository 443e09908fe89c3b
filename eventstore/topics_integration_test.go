package eventstore_test

import (
	"fmt"
	"testing"

	"github.com/IBM/sarama"

	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/internal/testenv"
)

// TestEnsureTopicsReturnsWritableTopics: a topic EnsureTopics has just
// created takes a record batch on every partition at once. The broker names
// a new partition's leader in its metadata before it takes writes for it, and
// a Produce in that window answers "not the leader for some partition": a
// relay started on a fresh cluster lost its first term to it, and tests that
// wrote at once failed under load (TestRelayPublishesLateCommits).
func TestEnsureTopicsReturnsWritableTopics(t *testing.T) {
	brokers := testenv.KafkaBrokers(t)
	kc := eventstore.KafkaConfig{Brokers: brokers, Partitions: 16,
		Topics: eventstore.Topics{Prefix: testenv.TopicPrefix(t, brokers, "ensure")}}.WithDefaults()
	writer, err := eventstore.NewKafkaLogWriter(kc)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { writer.Close() })
	topics := []string{kc.Topics.ForContext("a"), kc.Topics.ForContext("b"), kc.Topics.ForContext("c")}
	if err := eventstore.EnsureTopics(kc, topics...); err != nil {
		t.Fatal(err)
	}
	batches := map[eventstore.TopicPartition][]*sarama.ProducerMessage{}
	for _, topic := range topics {
		for p := range kc.Partitions {
			batches[eventstore.TopicPartition{Topic: topic, Partition: p}] = []*sarama.ProducerMessage{
				{Topic: topic, Key: sarama.StringEncoder(fmt.Sprint(p)), Value: sarama.StringEncoder("{}")}}
		}
	}
	for tp, err := range writer.Write(batches) {
		if err != nil {
			t.Errorf("%s/%d right after EnsureTopics: %v", tp.Topic, tp.Partition, err)
		}
	}
	// Existing topics are left as they are, and answer at once.
	if err := eventstore.EnsureTopics(kc, topics...); err != nil {
		t.Fatal(err)
	}
}
