package eventstore

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/IBM/sarama"
	"github.com/rcrowley/go-metrics"
)

// Sarama's own metrics (go-metrics histograms, meters and counters updated
// under locks on every request and response of every client) are read by
// nothing here: Prometheus has the platform's. Nil metrics spare their CPU
// (about 1% of the process's under the gateway's load). Set before any
// client exists; sarama documents the switch for this use.
func init() { metrics.UseNilMetrics = true }

// KafkaConfig is the broker section of the configuration.
type KafkaConfig struct {
	Brokers    []string
	ClientID   string
	Partitions int32 // partitions of each topic created at start-up
	Topics     Topics
}

// WithDefaults fills what is unset.
func (c KafkaConfig) WithDefaults() KafkaConfig {
	if c.ClientID == "" {
		c.ClientID = "platformd"
	}
	if c.Partitions == 0 {
		c.Partitions = 3
	}
	return c
}

func (c KafkaConfig) Validate() error {
	var errs []error
	if len(c.Brokers) == 0 {
		errs = append(errs, errors.New("kafka: at least one broker address is required (KAFKA_BROKERS)"))
	}
	for _, b := range c.Brokers {
		if !strings.Contains(b, ":") {
			errs = append(errs, fmt.Errorf("kafka: broker %q: want host:port", b))
		}
	}
	if c.Partitions < 1 {
		errs = append(errs, errors.New("kafka: partitions must be at least 1"))
	}
	return errors.Join(errs...)
}

// KafkaVersion is the protocol version spoken to the broker (Apache Kafka 3.9).
var KafkaVersion = sarama.V3_9_0_0

// SaramaConfig is the one client configuration every component starts from.
func (c KafkaConfig) SaramaConfig() *sarama.Config {
	cfg := sarama.NewConfig()
	cfg.Version = KafkaVersion
	cfg.ClientID = c.ClientID
	cfg.Metadata.Retry.Max = 10
	cfg.Metadata.Retry.Backoff = 500 * time.Millisecond
	return cfg
}

// ConsumerGroupConfig is the one configuration of every consumer group
// (projections, the webhook delivery): it starts at the oldest offset and
// bounds how long a group takes to find its coordinator and rejoin after the
// broker restarts. With sarama's defaults a member waited out a 10 s session
// and a 60 s rebalance: a flapping broker stopped delivery for 85 s.
func (c KafkaConfig) ConsumerGroupConfig() *sarama.Config {
	cfg := c.SaramaConfig()
	cfg.Consumer.Offsets.Initial = sarama.OffsetOldest
	cfg.Consumer.Group.Session.Timeout = 6 * time.Second
	cfg.Consumer.Group.Heartbeat.Interval = 2 * time.Second
	cfg.Consumer.Group.Rebalance.Timeout = 10 * time.Second
	cfg.Consumer.Group.Rebalance.Retry.Max = 30
	cfg.Consumer.Group.Rebalance.Retry.Backoff = time.Second
	cfg.Consumer.Retry.Backoff = 500 * time.Millisecond
	cfg.Net.DialTimeout = 3 * time.Second
	cfg.Metadata.Retry.Backoff = 250 * time.Millisecond
	return cfg
}

// ProducerConfig is idempotent with acks=all: a retried send is written once
// and a stream's order on its partition is kept.
func (c KafkaConfig) ProducerConfig() *sarama.Config {
	cfg := c.SaramaConfig()
	cfg.Producer.Idempotent = true
	cfg.Producer.RequiredAcks = sarama.WaitForAll
	cfg.Producer.Return.Successes = true
	cfg.Producer.Return.Errors = true
	cfg.Producer.Retry.Max = 10
	cfg.Producer.Retry.Backoff = 200 * time.Millisecond
	cfg.Producer.Partitioner = sarama.NewHashPartitioner
	cfg.Net.MaxOpenRequests = 1 // required by the idempotent producer
	return cfg
}

// EnsureTopics creates the topics that do not exist yet, kept forever, and
// returns once every partition of those it created takes writes.
func EnsureTopics(c KafkaConfig, topics ...string) error {
	client, err := sarama.NewClient(c.Brokers, c.SaramaConfig())
	if err != nil {
		return fmt.Errorf("kafka admin: %w", err)
	}
	admin, err := sarama.NewClusterAdminFromClient(client)
	if err != nil {
		_ = client.Close()
		return fmt.Errorf("kafka admin: %w", err)
	}
	defer admin.Close() // closes the client too
	existing, err := admin.ListTopics()
	if err != nil {
		return fmt.Errorf("kafka list topics: %w", err)
	}
	forever := "-1"
	var created []string
	for _, t := range topics {
		if _, ok := existing[t]; ok {
			continue
		}
		err := admin.CreateTopic(t, &sarama.TopicDetail{
			NumPartitions:     c.Partitions,
			ReplicationFactor: 1,
			ConfigEntries:     map[string]*string{"retention.ms": &forever, "retention.bytes": &forever},
		}, false)
		if err != nil && !errors.Is(err, sarama.ErrTopicAlreadyExists) {
			return fmt.Errorf("kafka create topic %s: %w", t, err)
		}
		created = append(created, t) // one another process just created may be as young
	}
	return awaitLeaders(client, created, topicReadyTimeout)
}

// topicReadyTimeout bounds how long EnsureTopics waits for the leaders of
// the partitions it created.
const topicReadyTimeout = 30 * time.Second

// awaitLeaders returns once each partition of topics answers a ListOffsets
// request from its leader. A new partition's leader is in the metadata
// before that broker takes requests for it (seen on Kafka 3.9 KRaft: a
// Produce right after CreateTopics answered "not the leader for some
// partition" on up to all 48 partitions of TestEnsureTopicsReturnsWritableTopics).
// ListOffsets needs the broker to lead the partition as Produce does, and
// writes nothing.
func awaitLeaders(client sarama.Client, topics []string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for _, t := range topics {
		for {
			err := leadersAnswer(client, t)
			if err == nil {
				break
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("kafka topic %s: partitions without a leader after %s: %w", t, timeout, err)
			}
			time.Sleep(50 * time.Millisecond)
			_ = client.RefreshMetadata(t) // a failure shows in the next try
		}
	}
	return nil
}

// leadersAnswer asks each partition of topic's leader for its newest offset.
func leadersAnswer(client sarama.Client, topic string) error {
	parts, err := client.Partitions(topic)
	if err != nil {
		return err
	}
	if len(parts) == 0 {
		return errors.New("no partitions in the metadata")
	}
	for _, p := range parts {
		if _, err := client.GetOffset(topic, p, sarama.OffsetNewest); err != nil {
			return fmt.Errorf("partition %d: %w", p, err)
		}
	}
	return nil
}
