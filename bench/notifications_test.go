package bench

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/ThreeDotsLabs/watermill"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/platform/backend/eventstore"

	"github.com/platform/backend/internal/apptest"
	"github.com/platform/backend/notifications"
)

const notifyBacklog = 6_000 // BenchmarkNotificationDelivery

// BenchmarkNotificationDelivery times the webhook delivery (the Delivery
// platformd runs) draining a backlog of notifyBacklog published
// notifications to a local receiver, from its start until every key is
// recorded delivered; the receiver answers at once, or after 5 ms as a real
// one might. It checks each key was POSTed exactly once. Filling the log and
// publishing it (the dispatcher) is outside the timer, reported beside it.
func BenchmarkNotificationDelivery(b *testing.B) {
	for _, hold := range []time.Duration{0, 5 * time.Millisecond} {
		b.Run(fmt.Sprintf("receiver %s", hold), func(b *testing.B) {
			var rate, dispatch float64
			for range b.N {
				rate, dispatch = deliverBacklog(b, hold)
			}
			b.ReportMetric(rate, "notifications/s")
			b.Logf("webhook delivery of %d notifications, receiver answering after %s: %.0f notifications/s (dispatcher published them at %.0f/s)",
				notifyBacklog, hold, rate, dispatch)
		})
	}
}

func deliverBacklog(b *testing.B, hold time.Duration) (rate, dispatch float64) {
	b.StopTimer()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pool, kc := apptest.Infra(b, "bnotify", []func(context.Context, *pgxpool.Pool) error{notifications.Migrate},
		func(kc eventstore.KafkaConfig) []string {
			return []string{kc.Topics.Notifications(), kc.Topics.DeadLetter(), kc.Topics.NotificationsPoison()}
		})
	var mu sync.Mutex
	posts := map[string]int{}
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		mu.Lock()
		posts[r.Header.Get("Idempotency-Key")]++
		mu.Unlock()
		time.Sleep(hold)
		w.WriteHeader(http.StatusNoContent)
	}))
	defer receiver.Close()

	_, err := pool.Exec(ctx, `INSERT INTO notification_deliveries (idempotency_key, type, version, organization_id, source_event_id, envelope, state)
		SELECT 'status:incident:bench-' || i || ':rev:1', 'status.incident.created', 1, 'org-bench', gen_random_uuid()::text,
			jsonb_build_object('type', 'status.incident.created', 'idempotency_key', 'status:incident:bench-' || i || ':rev:1',
				'payload', jsonb_build_object('title', 'Errors', 'message', repeat('x', 200))), 'pending'
		FROM generate_series(1, $1) i`, notifyBacklog)
	must(b, err)
	publisher, err := notifications.NewPublisher(kc, watermill.NopLogger{})
	must(b, err)
	defer publisher.Close()
	d := &notifications.Dispatcher{Pool: pool, Publisher: publisher, Topics: kc.Topics, Log: discardLog}
	start := time.Now()
	for {
		n, err := d.DispatchBatch(ctx)
		must(b, err)
		if n == 0 {
			break
		}
	}
	dispatch = float64(notifyBacklog) / time.Since(start).Seconds()

	delivery := &notifications.Delivery{Webhook: &notifications.Webhook{Pool: pool, Config: notifications.WebhookConfig{URL: receiver.URL}},
		Kafka: kc, Poison: publisher, Log: discardLog}
	done := make(chan error, 1)
	b.StartTimer()
	start = time.Now()
	go func() { done <- delivery.Run(ctx) }()
	deadline := time.Now().Add(5 * time.Minute)
	for {
		var delivered int
		must(b, pool.QueryRow(ctx, `SELECT count(*) FROM notification_deliveries WHERE state='delivered'`).Scan(&delivered))
		if delivered == notifyBacklog {
			break
		}
		if time.Now().After(deadline) {
			b.Fatalf("%d of %d delivered after 5 minutes", delivered, notifyBacklog)
		}
		time.Sleep(20 * time.Millisecond)
	}
	rate = float64(notifyBacklog) / time.Since(start).Seconds()
	b.StopTimer()
	cancel()
	<-done
	mu.Lock()
	defer mu.Unlock()
	if len(posts) != notifyBacklog {
		b.Fatalf("%d keys POSTed, want %d", len(posts), notifyBacklog)
	}
	for key, n := range posts {
		if n != 1 {
			b.Fatalf("%s POSTed %d times", key, n)
		}
	}
	return rate, dispatch
}
