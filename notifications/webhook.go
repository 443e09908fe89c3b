package notifications

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/ThreeDotsLabs/watermill"
	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/ThreeDotsLabs/watermill/message/router/middleware"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/platform/backend/eventstore"
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
	// Log is the delivery log; nil: the deliveries table in Pool.
	Log DeliveryLog
}

// DeliveryLog is what the webhook reads and records per notification.
type DeliveryLog interface {
	Delivered(ctx context.Context, key string) (bool, error)
	MarkDelivered(ctx context.Context, key string) error
	RecordAttempt(ctx context.Context, key, reason string) error
}

// Handle is the watermill handler of the notifications topic. A POST that
// succeeded is recorded before the message is acknowledged, and a database
// outage is waited out in here: an error returned to the router means a new
// POST (and, after the retries, the poison topic), so only a failed POST may
// return one.
func (w *Webhook) Handle(msg *message.Message) error {
	key := msg.Metadata.Get(MetaIdempotencyKey)
	ctx := msg.Context()
	log := w.log()
	var delivered bool
	if err := w.untilRecorded(ctx, func() (err error) {
		delivered, err = log.Delivered(ctx, key)
		return err
	}); err != nil {
		return err
	}
	if delivered {
		return nil // redelivered by Kafka after a crash: already done
	}
	if err := w.post(ctx, key, msg); err != nil {
		_ = log.RecordAttempt(ctx, key, err.Error()) // bookkeeping only: the retry does not depend on it
		return err
	}
	return w.untilRecorded(ctx, func() error { return log.MarkDelivered(ctx, key) })
}

// untilRecorded runs a delivery-log statement until it succeeds, waiting out
// outages (backoff up to 5 s); only a refused statement or the end of ctx
// stops it.
func (w *Webhook) untilRecorded(ctx context.Context, do func() error) error {
	wait := 100 * time.Millisecond
	for {
		err := do()
		if err == nil || !eventstore.IsTransient(err) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
		wait = min(wait*2, 5*time.Second)
	}
}

func (w *Webhook) log() DeliveryLog {
	if w.Log != nil {
		return w.Log
	}
	return pgDeliveryLog{w.Pool}
}

// pgDeliveryLog is the delivery log in notification_deliveries.
type pgDeliveryLog struct{ pool *pgxpool.Pool }

var _ DeliveryLog = pgDeliveryLog{}

func (l pgDeliveryLog) Delivered(ctx context.Context, key string) (bool, error) {
	var delivered bool
	err := l.pool.QueryRow(ctx, `SELECT delivered_at IS NOT NULL FROM notification_deliveries WHERE idempotency_key=$1`, key).Scan(&delivered)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, nil
	}
	return delivered, err
}

func (l pgDeliveryLog) MarkDelivered(ctx context.Context, key string) error {
	_, err := l.pool.Exec(ctx, `UPDATE notification_deliveries SET state='delivered', delivered_at=now(), delivery_attempts = delivery_attempts + 1, last_error=''
		WHERE idempotency_key=$1 AND delivered_at IS NULL`, key)
	return err
}

func (l pgDeliveryLog) RecordAttempt(ctx context.Context, key, reason string) error {
	_, err := l.pool.Exec(ctx, `UPDATE notification_deliveries SET delivery_attempts = delivery_attempts + 1, last_error=$2 WHERE idempotency_key=$1`, key, reason)
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
