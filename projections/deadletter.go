package projections

import (
	"context"
	"strconv"

	"github.com/IBM/sarama"
	"github.com/ThreeDotsLabs/watermill/message"
)

// DeadLetterTopic parks events on a Kafka topic through a watermill
// publisher; the original value is kept and the reason is in the metadata.
type DeadLetterTopic struct {
	Publisher message.Publisher
	Topic     string
}

var _ DeadLetters = DeadLetterTopic{}

func (d DeadLetterTopic) Park(_ context.Context, projection string, msg *sarama.ConsumerMessage, reason string) error {
	id := headerValue(msg, "event_id")
	if id == "" {
		id = msg.Topic + "/" + strconv.Itoa(int(msg.Partition)) + "/" + strconv.FormatInt(msg.Offset, 10)
	}
	m := message.NewMessage(id, msg.Value)
	m.Metadata.Set("projection", projection)
	m.Metadata.Set("reason", reason)
	m.Metadata.Set("source_topic", msg.Topic)
	m.Metadata.Set("source_partition", strconv.Itoa(int(msg.Partition)))
	m.Metadata.Set("source_offset", strconv.FormatInt(msg.Offset, 10))
	return d.Publisher.Publish(d.Topic, m)
}
