package bench

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/IBM/sarama"
	"github.com/ThreeDotsLabs/watermill/message"
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
//
// Ceiling: the same number of bare POSTs with the delivery's headers and
// bodies, by as many clients as the delivery may have POSTs under way
// (concurrency x partitions), to a receiver answering the same way,
// measured just before.
func BenchmarkNotificationDelivery(b *testing.B) {
	for _, hold := range []time.Duration{0, 5 * time.Millisecond} {
		b.Run(fmt.Sprintf("receiver %s", hold), func(b *testing.B) {
			var r deliveryRun
			for range b.N {
				r = deliverBacklog(b, hold)
			}
			b.ReportMetric(r.rate, "notifications/s")
			b.ReportMetric(r.raw, "raw-posts/s")
			b.ReportMetric(r.rate/r.raw, "ratio")
			b.Logf("webhook delivery of %d notifications, receiver answering after %s: %.0f notifications/s, raw POSTs %.0f/s, ratio %.2f; the dispatcher published them at %.0f/s",
				notifyBacklog, hold, r.rate, r.raw, r.rate/r.raw, r.dispatch)
			b.Logf("delivery: %s", r.cpu)
		})
	}
}

type deliveryRun struct {
	rate, raw, dispatch float64
	cpu                 string
}

// receiver counts POSTs per Idempotency-Key and answers after hold.
func receiver(hold time.Duration) (*httptest.Server, func() map[string]int) {
	var mu sync.Mutex
	posts := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		mu.Lock()
		posts[r.Header.Get("Idempotency-Key")]++
		mu.Unlock()
		time.Sleep(hold)
		w.WriteHeader(http.StatusNoContent)
	}))
	return srv, func() map[string]int {
		mu.Lock()
		defer mu.Unlock()
		return maps.Clone(posts)
	}
}

// rawPosts is the ceiling: n POSTs of body by clients goroutines on one
// keep-alive client.
func rawPosts(b *testing.B, url string, body []byte, n, clients int) float64 {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = clients
	client := &http.Client{Transport: t}
	var next atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	for range clients {
		wg.Go(func() {
			for i := next.Add(1); i <= int64(n); i = next.Add(1) {
				req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
				must(b, err)
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Idempotency-Key", fmt.Sprint("raw-", i))
				resp, err := client.Do(req)
				must(b, err)
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		})
	}
	wg.Wait()
	return float64(n) / time.Since(start).Seconds()
}

// BenchmarkNotificationDispatch times the dispatcher (as platformd runs
// it) publishing a backlog of notifyBacklog pending deliveries from the
// delivery log to the notifications topic, and its CPU a notification.
//
// Ceiling: the same records (key, headers, envelope) sent by a bare
// SyncProducer with the relay's ProducerConfig in SendMessages of the
// dispatcher's batch size, to the same topic, measured just before: the
// broker's pace with no database read and no cursor.
func BenchmarkNotificationDispatch(b *testing.B) {
	var rate, raw float64
	var cpu string
	for range b.N {
		b.StopTimer()
		ctx := context.Background()
		pool, kc := notifyInfra(b)
		fillDeliveries(b, pool, notifyBacklog)
		raw = rawDispatchRate(b, pool, kc)
		d := &notifications.Dispatcher{Pool: pool, Writer: dispatchWriter(b, kc), Topics: kc.Topics, Log: discardLog}
		cpu0 := sampleCPU(pool.Config().ConnConfig.Database)
		b.StartTimer()
		rate = dispatchAll(b, ctx, d, notifyBacklog)
		b.StopTimer()
		cpu = cpu0.to(sampleCPU(pool.Config().ConnConfig.Database)).perOp(notifyBacklog, "notification")
	}
	b.ReportMetric(rate, "notifications/s")
	b.ReportMetric(rate/raw, "ratio")
	b.Logf("dispatch of %d notifications: %.0f/s, raw producer %.0f/s, ratio %.2f; %s", notifyBacklog, rate, raw, rate/raw, cpu)
}

// notifyInfra is a database with the delivery log and the notification topics.
func notifyInfra(b *testing.B) (*pgxpool.Pool, eventstore.KafkaConfig) {
	return apptest.Infra(b, "bnotify", []func(context.Context, *pgxpool.Pool) error{notifications.Migrate},
		func(kc eventstore.KafkaConfig) []string {
			return []string{kc.Topics.Notifications(), kc.Topics.DeadLetter(), kc.Topics.NotificationsPoison()}
		})
}

// fillDeliveries writes n pending deliveries of ~400-byte envelopes.
func fillDeliveries(b *testing.B, pool *pgxpool.Pool, n int) {
	_, err := pool.Exec(context.Background(), `INSERT INTO notification_deliveries (idempotency_key, type, version, organization_id, source_event_id, envelope, state)
		SELECT 'status:incident:bench-' || i || ':rev:1', 'status.incident.created', 1, 'org-bench', gen_random_uuid()::text,
			jsonb_build_object('type', 'status.incident.created', 'idempotency_key', 'status:incident:bench-' || i || ':rev:1',
				'payload', jsonb_build_object('title', 'Errors', 'message', repeat('x', 200))), 'pending'
		FROM generate_series(1, $1) i`, n)
	must(b, err)
}

// dispatchAll runs the dispatcher's batches until n rows are published and
// returns the rate. A batch may come back empty while rows wait for an older
// transaction (of any database of the server) to end.
func dispatchAll(b *testing.B, ctx context.Context, d *notifications.Dispatcher, n int) float64 {
	start := time.Now()
	for published := 0; published < n; {
		got, err := d.DispatchBatch(ctx)
		must(b, err)
		if published += got; got == 0 {
			time.Sleep(time.Millisecond)
		}
	}
	return float64(n) / time.Since(start).Seconds()
}

// dispatchWriter is a dispatcher's own log writer, as platformd gives it.
func dispatchWriter(b *testing.B, kc eventstore.KafkaConfig) *eventstore.KafkaLogWriter {
	w, err := eventstore.NewKafkaLogWriter(kc)
	must(b, err)
	b.Cleanup(func() { _ = w.Close() })
	return w
}

// rawDispatchRate sends the deliveries' records with a bare SyncProducer
// (what the dispatcher's rows become, built before the clock starts).
func rawDispatchRate(b *testing.B, pool *pgxpool.Pool, kc eventstore.KafkaConfig) float64 {
	rows, err := pool.Query(context.Background(), `SELECT idempotency_key, type, organization_id, envelope::text FROM notification_deliveries`)
	must(b, err)
	var msgs []*sarama.ProducerMessage
	for rows.Next() {
		var key, typ, org string
		var envelope []byte
		must(b, rows.Scan(&key, &typ, &org, &envelope))
		msg := message.NewMessage(key, envelope)
		msg.Metadata.Set(notifications.MetaType, typ)
		msg.Metadata.Set(notifications.MetaIdempotencyKey, key)
		msg.Metadata.Set(notifications.MetaOrganization, org)
		pm, err := notifications.Marshaler{}.Marshal(kc.Topics.Notifications(), msg)
		must(b, err)
		msgs = append(msgs, pm)
	}
	must(b, rows.Err())
	p := newProducer(b, kc)
	start := time.Now()
	for i := 0; i < len(msgs); i += 200 {
		must(b, p.SendMessages(msgs[i:min(i+200, len(msgs))]))
	}
	return float64(len(msgs)) / time.Since(start).Seconds()
}

func deliverBacklog(b *testing.B, hold time.Duration) (r deliveryRun) {
	b.StopTimer()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pool, kc := notifyInfra(b)
	fillDeliveries(b, pool, notifyBacklog)
	var body []byte
	must(b, pool.QueryRow(ctx, `SELECT envelope::text FROM notification_deliveries LIMIT 1`).Scan(&body))
	cfg := notifications.WebhookConfig{}.WithDefaults()

	raw, _ := receiver(hold)
	r.raw = rawPosts(b, raw.URL, body, notifyBacklog, cfg.Concurrency*int(kc.Partitions))
	raw.Close()

	publisher, err := notifications.NewPublisher(kc)
	must(b, err)
	defer publisher.Close()
	d := &notifications.Dispatcher{Pool: pool, Writer: dispatchWriter(b, kc), Topics: kc.Topics, Log: discardLog}
	r.dispatch = dispatchAll(b, ctx, d, notifyBacklog)

	srv, posts := receiver(hold)
	defer srv.Close()
	delivery := &notifications.Delivery{Webhook: &notifications.Webhook{Pool: pool, Config: notifications.WebhookConfig{URL: srv.URL}},
		Kafka: kc, Poison: publisher, Log: discardLog}
	done := make(chan error, 1)
	cpu0 := sampleCPU(pool.Config().ConnConfig.Database)
	b.StartTimer()
	start := time.Now()
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
	r.rate = float64(notifyBacklog) / time.Since(start).Seconds()
	b.StopTimer()
	r.cpu = cpu0.to(sampleCPU(pool.Config().ConnConfig.Database)).perOp(notifyBacklog, "notification")
	cancel()
	<-done
	got := posts()
	if len(got) != notifyBacklog {
		b.Fatalf("%d keys POSTed, want %d", len(got), notifyBacklog)
	}
	for key, n := range got {
		if n != 1 {
			b.Fatalf("%s POSTed %d times", key, n)
		}
	}
	return r
}
