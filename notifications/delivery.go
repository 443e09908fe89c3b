package notifications

import (
	"context"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/IBM/sarama"
	"github.com/ThreeDotsLabs/watermill"
	"github.com/ThreeDotsLabs/watermill-kafka/v3/pkg/kafka"
	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/ThreeDotsLabs/watermill/message/router/middleware"

	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/internal/retry"
)

// Delivery runs the webhook over the notifications topic, in the consumer
// group notify-webhook: what platformd runs when PLATFORM_NOTIFY_URL is set.
//
// Each claimed partition is read in batches (eventstore.BatchReader) whose
// notifications are claimed at once, POSTed Concurrency at a time and
// recorded at once (Webhook.DeliverBatch); what that did not deliver goes
// through Webhook.Handle inside watermill's middleware (recoverer, retry
// with backoff, the poison topic), Concurrency at a time. The partition's
// offset moves past a batch once every one of its notifications is
// delivered or parked. One message at a time per partition (watermill's
// subscriber) delivered a backlog of 14k notifications in ~80 s.
// Concurrency keeps "once" per key: a key's copies share a partition, and
// of two copies under way at once the key's claim lets one POST.
type Delivery struct {
	Webhook *Webhook
	Kafka   eventstore.KafkaConfig
	// Poison receives what failed every retry (NewPublisher).
	Poison message.Publisher
	Log    *slog.Logger
}

// Run delivers until ctx ends.
func (d *Delivery) Run(ctx context.Context) error {
	w := d.Webhook
	w.Config = w.Config.WithDefaults()
	if w.Client == nil {
		// Room for every POST under way to keep its connection.
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.MaxIdleConnsPerHost = w.Config.Concurrency * int(d.Kafka.WithDefaults().Partitions)
		w.Client = &http.Client{Transport: t}
	}
	handle, err := d.handler(ctx)
	if err != nil {
		return err
	}
	groupID := d.Kafka.Topics.Group("notify-webhook")
	group, err := sarama.NewConsumerGroup(d.Kafka.Brokers, groupID, d.Kafka.ConsumerGroupConfig())
	for err != nil {
		// The broker may be down at start: try again rather than give up.
		d.Log.Warn("notify-webhook: consumer group", "err", err)
		if !retry.Sleep(ctx, 5*time.Second) {
			return nil
		}
		group, err = sarama.NewConsumerGroup(d.Kafka.Brokers, groupID, d.Kafka.ConsumerGroupConfig())
	}
	defer group.Close()
	h := &deliveryClaims{ctx: ctx, webhook: w, handle: handle, log: d.Log}
	topics := []string{d.Kafka.Topics.Notifications()}
	for ctx.Err() == nil {
		if err := group.Consume(ctx, topics, h); err != nil && ctx.Err() == nil {
			d.Log.Warn("notify-webhook: consume", "err", err)
			retry.Sleep(ctx, time.Second)
		}
	}
	return nil
}

// handler is Webhook.Handle inside watermill's middleware: recoverer, the
// poison topic after the retries, retry with backoff. A delivery cut short
// by the end of ctx (shutdown) is not poisoned: the next owner of the
// partition delivers it.
func (d *Delivery) handler(ctx context.Context) (message.HandlerFunc, error) {
	cfg := d.Webhook.Config
	poison, err := middleware.PoisonQueueWithFilter(d.Poison, d.Kafka.Topics.NotificationsPoison(), func(error) bool { return ctx.Err() == nil })
	if err != nil {
		return nil, err
	}
	logger := watermill.NewSlogLogger(d.Log)
	h := middleware.Retry{MaxRetries: cfg.MaxRetries, InitialInterval: 100 * time.Millisecond, MaxInterval: 5 * time.Second,
		Multiplier: 2, Logger: logger}.Middleware(func(m *message.Message) ([]*message.Message, error) { return nil, d.Webhook.Handle(m) })
	return middleware.Recoverer(poison(h)), nil
}

// deliveryClaims is the consumer group handler of the delivery.
type deliveryClaims struct {
	// ctx is the delivery's, not the session's: a POST under way when the
	// group rebalances is finished and recorded, not cut off (sarama waits
	// for ConsumeClaim to return before the partition moves).
	ctx     context.Context
	webhook *Webhook
	handle  message.HandlerFunc
	log     *slog.Logger
}

func (*deliveryClaims) Setup(sarama.ConsumerGroupSession) error   { return nil }
func (*deliveryClaims) Cleanup(sarama.ConsumerGroupSession) error { return nil }

func (h *deliveryClaims) ConsumeClaim(sess sarama.ConsumerGroupSession, claim sarama.ConsumerGroupClaim) error {
	// Two rounds of POSTs per batch: the batch's claims last two leases.
	reader := &eventstore.BatchReader{Claim: claim, Size: 2 * h.webhook.Config.Concurrency}
	slots := make(chan struct{}, h.webhook.Config.Concurrency)
	for {
		batch := reader.Next(sess.Context())
		if batch == nil {
			return nil
		}
		msgs := make([]*message.Message, 0, len(batch))
		for _, record := range batch {
			msg, err := kafka.DefaultMarshaler{}.Unmarshal(record)
			if err != nil { // DefaultMarshaler reads any record; kept for another one
				h.log.Error("notify-webhook: unreadable record", "partition", record.Partition, "offset", record.Offset, "err", err)
				continue
			}
			msg.SetContext(h.ctx)
			msgs = append(msgs, msg)
		}
		var wg sync.WaitGroup
		for _, msg := range h.webhook.DeliverBatch(h.ctx, msgs) {
			slots <- struct{}{}
			wg.Go(func() {
				defer func() { <-slots }()
				h.deliver(msg)
			})
		}
		wg.Wait()
		if h.ctx.Err() != nil {
			return nil // not marked: the batch is delivered again (delivered keys are skipped)
		}
		sess.MarkMessage(batch[len(batch)-1], "")
	}
}

// deliver runs the handler until it has delivered or parked the message:
// it fails only when the poison topic could not take it (the broker is
// down), and then it is tried again, as watermill's subscriber resends a
// message its handler failed.
func (h *deliveryClaims) deliver(msg *message.Message) {
	wait := 100 * time.Millisecond
	for {
		_, err := h.handle(msg)
		if err == nil || h.ctx.Err() != nil {
			return
		}
		h.log.Warn("notify-webhook: not delivered nor parked, trying again", "key", msg.Metadata.Get(MetaIdempotencyKey), "err", err)
		if !retry.Sleep(h.ctx, wait) {
			return
		}
		wait = min(2*wait, 5*time.Second)
	}
}
