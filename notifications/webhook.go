package notifications

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/ThreeDotsLabs/watermill"
	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/ThreeDotsLabs/watermill/message/router/middleware"
	"github.com/jackc/pgx/v5/pgxpool"
)

// WebhookConfig is the delivery section of the configuration.
type WebhookConfig struct {
	URL        string        // PLATFORM_NOTIFY_URL; empty disables HTTP delivery
	Timeout    time.Duration // per attempt; default 5s
	MaxRetries int           // default 5, then the poison topic
}

// Webhook POSTs each published notification to PLATFORM_NOTIFY_URL with its
// idempotency key, so the receiver can drop a repeat.
type Webhook struct {
	Pool   *pgxpool.Pool
	Client *http.Client
	Config WebhookConfig
}

// Handle is the watermill handler of the notifications topic.
func (w *Webhook) Handle(msg *message.Message) error {
	key := msg.Metadata.Get(MetaIdempotencyKey)
	ctx := msg.Context()
	var delivered bool
	if err := w.Pool.QueryRow(ctx, `SELECT delivered_at IS NOT NULL FROM notification_deliveries WHERE idempotency_key=$1`, key).Scan(&delivered); err == nil && delivered {
		return nil // redelivered by Kafka after a crash: already done
	}
	err := w.post(ctx, key, msg)
	if err != nil {
		_, _ = w.Pool.Exec(ctx, `UPDATE notification_deliveries SET delivery_attempts = delivery_attempts + 1, last_error=$2 WHERE idempotency_key=$1`, key, err.Error())
		return err
	}
	_, err = w.Pool.Exec(ctx, `UPDATE notification_deliveries SET state='delivered', delivered_at=now(), delivery_attempts = delivery_attempts + 1, last_error=''
		WHERE idempotency_key=$1`, key)
	return err
}

func (w *Webhook) post(ctx context.Context, key string, msg *message.Message) error {
	ctx, cancel := context.WithTimeout(ctx, w.Config.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.Config.URL, bytes.NewReader(msg.Payload))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", key)
	req.Header.Set("X-Platform-Notification-Type", msg.Metadata.Get(MetaType))
	resp, err := w.Client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("notify endpoint answered %d", resp.StatusCode)
	}
	return nil
}

// NewDeliveryRouter is the shared watermill router setup: recoverer, retry
// with backoff, a per-attempt timeout and a poison queue.
func NewDeliveryRouter(w *Webhook, sub message.Subscriber, poison message.Publisher, topic, poisonTopic string, log *slog.Logger) (*message.Router, error) {
	if w.Config.Timeout == 0 {
		w.Config.Timeout = 5 * time.Second
	}
	if w.Config.MaxRetries == 0 {
		w.Config.MaxRetries = 5
	}
	if w.Client == nil {
		w.Client = &http.Client{}
	}
	logger := watermill.NewSlogLogger(log)
	r, err := message.NewRouter(message.RouterConfig{}, logger)
	if err != nil {
		return nil, err
	}
	poisonMW, err := middleware.PoisonQueue(poison, poisonTopic)
	if err != nil {
		return nil, err
	}
	r.AddMiddleware(
		middleware.Recoverer,
		poisonMW,
		middleware.Retry{MaxRetries: w.Config.MaxRetries, InitialInterval: 100 * time.Millisecond, MaxInterval: 5 * time.Second,
			Multiplier: 2, Logger: logger}.Middleware,
	)
	r.AddConsumerHandler("notify-webhook", topic, sub, w.Handle)
	return r, nil
}
