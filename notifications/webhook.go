package notifications

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"

	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/internal/retry"
)

// deliveries counts POSTs to PLATFORM_NOTIFY_URL by outcome (a failed one
// is retried, so failures can outnumber notifications).
var deliveries = promauto.NewCounterVec(prometheus.CounterOpts{
	Name: "platform_notifications_deliveries_total",
	Help: "POSTs of notifications to PLATFORM_NOTIFY_URL by outcome (delivered, failed; a failed one is retried).",
}, []string{"outcome"})

func init() {
	for _, o := range []string{"delivered", "failed"} {
		deliveries.WithLabelValues(o) // at 0 from the start, for alerts over a window
	}
}

// WebhookConfig is the delivery section of the configuration.
type WebhookConfig struct {
	URL        string        // PLATFORM_NOTIFY_URL; empty disables HTTP delivery
	Timeout    time.Duration // per attempt; default 5s
	MaxRetries int           // default 5, then the poison topic
	// Lease is how long a claim on a key keeps other handlers from POSTing
	// it; a claim its holder never recorded (a crash mid-POST) is taken
	// over after it. Default 3 x Timeout: longer than one attempt and its
	// record.
	Lease time.Duration
	// Concurrency is how many notifications of one partition are POSTed at
	// once (PLATFORM_NOTIFY_CONCURRENCY); default 16.
	Concurrency int
}

// WithDefaults fills what is unset.
func (c WebhookConfig) WithDefaults() WebhookConfig {
	if c.Timeout <= 0 {
		c.Timeout = 5 * time.Second
	}
	if c.MaxRetries == 0 {
		c.MaxRetries = 5
	}
	if c.Lease <= 0 {
		c.Lease = 3 * c.Timeout
	}
	if c.Concurrency == 0 {
		c.Concurrency = 16
	}
	return c
}

// Validate fails on what the defaults do not fill.
func (c WebhookConfig) Validate() error {
	var errs []error
	if c.Concurrency < 0 || c.Concurrency > 256 {
		errs = append(errs, fmt.Errorf("notify: PLATFORM_NOTIFY_CONCURRENCY %d: want 1..256", c.Concurrency))
	}
	if d := c.WithDefaults(); d.Lease <= d.Timeout {
		errs = append(errs, fmt.Errorf("notify: a claim's lease (%s) must outlast a POST (%s)", d.Lease, d.Timeout))
	}
	return errors.Join(errs...)
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

// Claim is what a handler learnt when it tried to claim a key.
type Claim struct {
	State ClaimState
	// Held is how long another handler's claim still runs (ClaimHeld).
	Held time.Duration
}

// ClaimState is the outcome of a claim.
type ClaimState int

const (
	// ClaimTaken: the key is this handler's to POST until the lease ends.
	ClaimTaken ClaimState = iota
	// ClaimDelivered: a POST of the key was recorded; nothing to do.
	ClaimDelivered
	// ClaimHeld: another handler holds a live claim (it is POSTing).
	ClaimHeld
	// ClaimUnlogged: the key is not in the delivery log (it was published
	// by hand or the log was restored from before it): POSTed unclaimed,
	// as there is nothing to record.
	ClaimUnlogged
)

// DeliveryLog is what the webhook reads and records per notification.
type DeliveryLog interface {
	// Claim takes key for holder for lease, atomically: of two handlers
	// claiming one key at once, one gets ClaimTaken. A holder may renew its
	// own claim; an expired claim may be taken by anyone.
	Claim(ctx context.Context, key string, holder uuid.UUID, lease time.Duration) (Claim, error)
	// ClaimAll claims for holder, at once, every key of keys Claim would
	// give it, and returns those; why the others were not is Claim's to say.
	ClaimAll(ctx context.Context, keys []string, holder uuid.UUID, lease time.Duration) ([]string, error)
	// MarkDelivered records the POSTs of keys and ends their claims.
	MarkDelivered(ctx context.Context, keys ...string) error
	// Release records failed attempts (the reason by key) and gives up
	// holder's claims on them, so a retry (or another handler) claims them
	// at once.
	Release(ctx context.Context, holder uuid.UUID, reasons map[string]string) error
}

// heldPoll bounds how long a handler waits before it looks again at a key
// another handler holds: the holder may record it delivered well before its
// lease ends.
const heldPoll = 500 * time.Millisecond

// Handle is the watermill handler of the notifications topic. It claims the
// key before the POST, so two copies of a message (a dispatcher's re-publish,
// a redelivery, another process) are POSTed once: a copy whose key is held
// waits until the holder records it (then acknowledges) or its lease ends
// (then takes it over: the holder crashed). A POST that succeeded is
// recorded before the message is acknowledged, and a database outage is
// waited out in here: an error returned to the router means a new POST (and,
// after the retries, the poison topic), so only a failed POST may return one.
func (w *Webhook) Handle(msg *message.Message) error {
	key := msg.Metadata.Get(MetaIdempotencyKey)
	ctx := msg.Context()
	log := w.log()
	holder := uuid.New()
	cfg := w.Config.WithDefaults()
	for {
		var c Claim
		if err := w.untilRecorded(ctx, func() (err error) {
			c, err = log.Claim(ctx, key, holder, cfg.Lease)
			return err
		}); err != nil {
			return err
		}
		if c.State == ClaimDelivered {
			return nil // a copy, or redelivered by Kafka after a crash: already done
		}
		if c.State != ClaimHeld {
			break
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(min(max(c.Held, 10*time.Millisecond), heldPoll)):
		}
	}
	if err := w.post(ctx, cfg.Timeout, key, msg); err != nil {
		// The retry claims the key again at once; an outage is waited out
		// (else the retry would wait for the lease), a shutdown is not.
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cfg.Timeout)
		defer cancel()
		_ = w.untilRecorded(rctx, func() error { return log.Release(rctx, holder, map[string]string{key: err.Error()}) })
		return err
	}
	return w.untilRecorded(ctx, func() error { return log.MarkDelivered(ctx, key) })
}

// DeliverBatch POSTs a batch of notifications (Concurrency at a time) with
// one claim and one record for all of them: two statements per notification
// made the database the delivery's bottleneck. What it did not deliver it
// returns, for Handle (through the retries): a key it could not claim (held
// by another handler, not in the log, a second copy in the batch), a failed
// POST (recorded, its claim released), a delivery it could not record.
func (w *Webhook) DeliverBatch(ctx context.Context, msgs []*message.Message) []*message.Message {
	cfg := w.Config.WithDefaults()
	log := w.log()
	byKey := make(map[string]*message.Message, len(msgs))
	var keys []string
	var rest []*message.Message
	for _, m := range msgs {
		key := m.Metadata.Get(MetaIdempotencyKey)
		if _, seen := byKey[key]; seen || key == "" {
			rest = append(rest, m)
			continue
		}
		byKey[key] = m
		keys = append(keys, key)
	}
	holder := uuid.New()
	// The claims must outlast every round of POSTs of the batch.
	lease := cfg.Lease * time.Duration((len(keys)+cfg.Concurrency-1)/cfg.Concurrency)
	var claimed []string
	if err := w.untilRecorded(ctx, func() (err error) {
		claimed, err = log.ClaimAll(ctx, keys, holder, lease)
		return err
	}); err != nil {
		return msgs
	}
	mine := make(map[string]bool, len(claimed))
	for _, key := range claimed {
		mine[key] = true
	}
	for _, key := range keys {
		if !mine[key] {
			rest = append(rest, byKey[key])
		}
	}
	var (
		mu        sync.Mutex
		delivered []string
		failed    = map[string]string{}
		wg        sync.WaitGroup
	)
	slots := make(chan struct{}, cfg.Concurrency)
	for _, key := range claimed {
		slots <- struct{}{}
		wg.Go(func() {
			defer func() { <-slots }()
			err := w.post(ctx, cfg.Timeout, key, byKey[key])
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				failed[key] = err.Error()
			} else {
				delivered = append(delivered, key)
			}
		})
	}
	wg.Wait()
	if len(delivered) > 0 {
		if err := w.untilRecorded(ctx, func() error { return log.MarkDelivered(ctx, delivered...) }); err != nil {
			for _, key := range delivered {
				rest = append(rest, byKey[key])
			}
		}
	}
	if len(failed) > 0 {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cfg.Timeout)
		defer cancel()
		_ = w.untilRecorded(rctx, func() error { return log.Release(rctx, holder, failed) })
		for key := range failed {
			rest = append(rest, byKey[key])
		}
		retry.Sleep(ctx, 100*time.Millisecond) // the retries' first pause
	}
	return rest
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

// Claim is one UPDATE: the row lock serializes two claimers, and the loser
// re-reads the winner's claim (READ COMMITTED re-checks the WHERE on the
// updated row) and updates nothing. Only then is the row read to tell why.
func (l pgDeliveryLog) Claim(ctx context.Context, key string, holder uuid.UUID, lease time.Duration) (Claim, error) {
	tag, err := l.pool.Exec(ctx, `UPDATE notification_deliveries SET claimed_by=$2, claimed_until=now() + $3::bigint * interval '1 microsecond'
		WHERE idempotency_key=$1 AND delivered_at IS NULL
		AND (claimed_until IS NULL OR claimed_until <= now() OR claimed_by=$2)`, key, holder, lease.Microseconds())
	if err != nil {
		return Claim{}, err
	}
	if tag.RowsAffected() == 1 {
		return Claim{State: ClaimTaken}, nil
	}
	var delivered bool
	var heldSeconds float64
	err = l.pool.QueryRow(ctx, `SELECT delivered_at IS NOT NULL, COALESCE(extract(epoch FROM claimed_until - now()), 0)::float8
		FROM notification_deliveries WHERE idempotency_key=$1`, key).Scan(&delivered, &heldSeconds)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return Claim{State: ClaimUnlogged}, nil
	case err != nil:
		return Claim{}, err
	case delivered:
		return Claim{State: ClaimDelivered}, nil
	}
	// Held, or expired between the two statements: either way, look again.
	return Claim{State: ClaimHeld, Held: time.Duration(max(heldSeconds, 0) * float64(time.Second))}, nil
}

func (l pgDeliveryLog) ClaimAll(ctx context.Context, keys []string, holder uuid.UUID, lease time.Duration) ([]string, error) {
	rows, err := l.pool.Query(ctx, `UPDATE notification_deliveries SET claimed_by=$2, claimed_until=now() + $3::bigint * interval '1 microsecond'
		WHERE idempotency_key = ANY($1) AND delivered_at IS NULL
		AND (claimed_until IS NULL OR claimed_until <= now() OR claimed_by=$2)
		RETURNING idempotency_key`, keys, holder, lease.Microseconds())
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

func (l pgDeliveryLog) MarkDelivered(ctx context.Context, keys ...string) error {
	_, err := l.pool.Exec(ctx, `UPDATE notification_deliveries SET state='delivered', delivered_at=now(), delivery_attempts = delivery_attempts + 1, last_error='',
		claimed_by=NULL, claimed_until=NULL
		WHERE idempotency_key = ANY($1) AND delivered_at IS NULL`, keys)
	return err
}

func (l pgDeliveryLog) Release(ctx context.Context, holder uuid.UUID, reasons map[string]string) error {
	keys := make([]string, 0, len(reasons))
	why := make([]string, 0, len(reasons))
	for key, reason := range reasons {
		keys, why = append(keys, key), append(why, reason)
	}
	_, err := l.pool.Exec(ctx, `UPDATE notification_deliveries d SET delivery_attempts = delivery_attempts + 1, last_error=f.reason,
		claimed_by = CASE WHEN claimed_by=$3 THEN NULL ELSE claimed_by END,
		claimed_until = CASE WHEN claimed_by=$3 THEN NULL ELSE claimed_until END
		FROM unnest($1::text[], $2::text[]) AS f(key, reason) WHERE d.idempotency_key=f.key`, keys, why, holder)
	return err
}

func (w *Webhook) post(ctx context.Context, timeout time.Duration, key string, msg *message.Message) (err error) {
	defer func() {
		outcome := "delivered"
		if err != nil {
			outcome = "failed"
		}
		deliveries.WithLabelValues(outcome).Inc()
	}()
	ctx, cancel := context.WithTimeout(ctx, timeout)
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
