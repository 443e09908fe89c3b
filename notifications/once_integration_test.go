package notifications_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/IBM/sarama"
	"github.com/ThreeDotsLabs/watermill-kafka/v3/pkg/kafka"
	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	domain "github.com/platform/backend/domain/status"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/internal/apptest"
	"github.com/platform/backend/notifications"
	"github.com/platform/backend/notifications/contracts"
	statusmap "github.com/platform/backend/notifications/status"
)

// onceReceiver is a webhook receiver that counts POSTs per Idempotency-Key
// and holds each for hold, so two handlers POSTing one key would overlap.
type onceReceiver struct {
	*httptest.Server
	mu    sync.Mutex
	posts map[string]int
}

func newOnceReceiver(t *testing.T, hold time.Duration) *onceReceiver {
	r := &onceReceiver{posts: map[string]int{}}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		_, _ = io.Copy(io.Discard, req.Body)
		r.mu.Lock()
		r.posts[req.Header.Get("Idempotency-Key")]++
		r.mu.Unlock()
		time.Sleep(hold)
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(r.Close)
	return r
}

func (r *onceReceiver) Posts(key string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.posts[key]
}

// onceLogIncidents writes n incident notifications into the delivery log as
// the projection does (through db: the pool, or a transaction left open)
// and returns their keys.
func onceLogIncidents(t *testing.T, db interface {
	Exec(context.Context, string, ...any) (pgconn.CommandTag, error)
}, n int) []string {
	t.Helper()
	reg, err := contracts.Load()
	if err != nil {
		t.Fatal(err)
	}
	p := &notifications.Projection{Registry: reg, Mappers: map[string]notifications.Mapper{"status": statusmap.Mapping.Map}}
	at := time.Now().UTC().Truncate(time.Microsecond)
	var keys []string
	for range n {
		id := uuid.NewString()
		payload, _ := json.Marshal(domain.IncidentCreatedV1{IncidentID: id, Title: "Errors", Message: "Looking", Severity: "major",
			Status: domain.Investigating, Revision: 1, OccurredAt: at})
		stmts, err := p.Reduce(eventstore.Event{ID: uuid.Must(uuid.NewV7()), Type: domain.IncidentCreated, SchemaVersion: 1,
			StreamType: domain.StreamIncident, StreamID: id, StreamVersion: 1, OrganizationID: "org-once", RecordedAt: at, OccurredAt: at, Payload: payload})
		if err != nil || len(stmts) != 1 {
			t.Fatalf("reduce: %d statements, %v", len(stmts), err)
		}
		if _, err := db.Exec(context.Background(), stmts[0].SQL, stmts[0].Args...); err != nil {
			t.Fatal(err)
		}
		keys = append(keys, "status:incident:"+id+":rev:1")
	}
	return keys
}

// onceMessage is the message the dispatcher publishes for a logged key.
func onceMessage(t *testing.T, pool *pgxpool.Pool, key string) *message.Message {
	t.Helper()
	var typ, org string
	var env []byte
	if err := pool.QueryRow(context.Background(), `SELECT type, organization_id, envelope FROM notification_deliveries WHERE idempotency_key=$1`, key).
		Scan(&typ, &org, &env); err != nil {
		t.Fatal(err)
	}
	msg := message.NewMessage(key, env)
	msg.Metadata.Set(notifications.MetaType, typ)
	msg.Metadata.Set(notifications.MetaIdempotencyKey, key)
	msg.Metadata.Set(notifications.MetaOrganization, org)
	return msg
}

func onceTopics(kc eventstore.KafkaConfig) []string {
	return []string{kc.Topics.Notifications(), kc.Topics.DeadLetter(), kc.Topics.NotificationsPoison()}
}

// TestNotificationCopiesOnTwoPartitionsPostedOnce (issue 18): the same
// notification on two partitions of the topic, as an unkeyed re-publish
// after a broker restart put it, is handled by two consumers at once (the
// delivery runs each partition on its own); the receiver holds each POST,
// so both handlers are past their "delivered?" read before either records.
// The key is POSTed once, and both messages are acknowledged.
func TestNotificationCopiesOnTwoPartitionsPostedOnce(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	pool, kc := apptest.Infra(t, "once", []func(context.Context, *pgxpool.Pool) error{notifications.Migrate}, onceTopics)
	key := onceLogIncidents(t, pool, 1)[0]
	receiver := newOnceReceiver(t, 500*time.Millisecond)

	// The two copies, on partitions 0 and 1.
	pcfg := kc.ProducerConfig()
	pcfg.Producer.Partitioner = sarama.NewManualPartitioner
	producer, err := sarama.NewSyncProducer(kc.Brokers, pcfg)
	if err != nil {
		t.Fatal(err)
	}
	defer producer.Close()
	topic := kc.Topics.Notifications()
	for _, partition := range []int32{0, 1} {
		pm, err := kafka.DefaultMarshaler{}.Marshal(topic, onceMessage(t, pool, key))
		if err != nil {
			t.Fatal(err)
		}
		pm.Partition = partition
		if _, _, err := producer.SendMessage(pm); err != nil {
			t.Fatal(err)
		}
	}

	poison, err := notifications.NewPublisher(kc)
	if err != nil {
		t.Fatal(err)
	}
	defer poison.Close()
	delivery := &notifications.Delivery{Webhook: &notifications.Webhook{Pool: pool, Config: notifications.WebhookConfig{URL: receiver.URL}},
		Kafka: kc, Poison: poison, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	done := make(chan error, 1)
	go func() { done <- delivery.Run(ctx) }()
	defer func() {
		cancel()
		<-done
	}()
	group := kc.Topics.Group("notify-webhook")

	// Both copies handled: the group's committed offsets cover both.
	admin, err := sarama.NewClusterAdmin(kc.Brokers, kc.SaramaConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	apptest.Eventually(t, 60*time.Second, "both copies acknowledged", func() bool {
		offsets, err := admin.ListConsumerGroupOffsets(group, map[string][]int32{topic: {0, 1}})
		if err != nil {
			return false
		}
		for _, p := range []int32{0, 1} {
			if b := offsets.GetBlock(topic, p); b == nil || b.Offset < 1 {
				return false
			}
		}
		return true
	})
	if n := receiver.Posts(key); n != 1 {
		t.Fatalf("%s was POSTed %d times from two partitions, want 1", key, n)
	}
	if n := nitCount(t, pool, `SELECT count(*) FROM notification_deliveries WHERE idempotency_key=$1 AND state='delivered' AND claimed_by IS NULL`, key); n != 1 {
		t.Fatalf("the key is not recorded delivered with its claim ended")
	}
}

// TestTwoWebhookProcessesPostOnce: two webhook handlers (two processes, or
// a redelivery beside the first delivery) handle the same message at once;
// one claims the key and POSTs, the other waits until it is recorded and
// acknowledges without a POST. Many keys, so an unlucky interleaving shows.
func TestTwoWebhookProcessesPostOnce(t *testing.T) {
	pool, _ := apptest.Infra(t, "once2", []func(context.Context, *pgxpool.Pool) error{notifications.Migrate}, onceTopics)
	keys := onceLogIncidents(t, pool, 20)
	receiver := newOnceReceiver(t, 50*time.Millisecond)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	processes := []*notifications.Webhook{
		{Pool: pool, Client: &http.Client{}, Config: notifications.WebhookConfig{URL: receiver.URL}},
		{Pool: pool, Client: &http.Client{}, Config: notifications.WebhookConfig{URL: receiver.URL}},
	}
	var wg sync.WaitGroup
	errs := make(chan error, len(keys)*len(processes))
	for _, key := range keys {
		for _, wh := range processes {
			msg := onceMessage(t, pool, key)
			msg.SetContext(ctx)
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs <- wh.Handle(msg)
			}()
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("Handle: %v", err)
		}
	}
	for _, key := range keys {
		if n := receiver.Posts(key); n != 1 {
			t.Errorf("%s was POSTed %d times by two handlers, want 1", key, n)
		}
	}
	if n := nitCount(t, pool, `SELECT count(*) FROM notification_deliveries WHERE state='delivered' AND delivery_attempts=1`); n != int64(len(keys)) {
		t.Fatalf("%d of %d keys recorded delivered after one attempt", n, len(keys))
	}
}

// TestClaimLeftByCrashIsDelivered: a handler claimed a key and died before
// it recorded anything (kill -9 mid-POST). The redelivered message waits
// for the claim's lease to end, then POSTs the key: late, never lost.
func TestClaimLeftByCrashIsDelivered(t *testing.T) {
	pool, _ := apptest.Infra(t, "once3", []func(context.Context, *pgxpool.Pool) error{notifications.Migrate}, onceTopics)
	key := onceLogIncidents(t, pool, 1)[0]
	receiver := newOnceReceiver(t, 0)
	const left = 2 * time.Second
	if _, err := pool.Exec(context.Background(), `UPDATE notification_deliveries SET claimed_by=$2, claimed_until=now() + $3::bigint * interval '1 millisecond'
		WHERE idempotency_key=$1`, key, uuid.New(), left.Milliseconds()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	msg := onceMessage(t, pool, key)
	msg.SetContext(ctx)
	wh := &notifications.Webhook{Pool: pool, Client: &http.Client{}, Config: notifications.WebhookConfig{URL: receiver.URL}}
	start := time.Now()
	if err := wh.Handle(msg); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took < left-200*time.Millisecond {
		t.Fatalf("POSTed after %s, while the crashed handler's claim still ran (%s)", took, left)
	}
	if n := receiver.Posts(key); n != 1 {
		t.Fatalf("%d POSTs after the lease, want 1", n)
	}
	if n := nitCount(t, pool, `SELECT count(*) FROM notification_deliveries WHERE idempotency_key=$1 AND state='delivered'`, key); n != 1 {
		t.Fatal("not recorded delivered")
	}
}

// TestDispatcherKeysCopiesOntoOnePartition: every copy of a key the
// dispatcher publishes (here: the cursor put back and the rows dispatched
// again, as after a publish the broker wrote without acknowledging, or a
// crash before the cursor's save) lands on the key's partition.
func TestDispatcherKeysCopiesOntoOnePartition(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	pool, kc := apptest.Infra(t, "once4", []func(context.Context, *pgxpool.Pool) error{notifications.Migrate}, onceTopics)
	keys := onceLogIncidents(t, pool, 12)
	d := &notifications.Dispatcher{Pool: pool, Writer: dispatchWriter(t, kc), Topics: kc.Topics, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	for round := range 2 {
		if n := dispatchN(t, d, len(keys)); n != len(keys) {
			t.Fatalf("dispatch %d: %d", round, n)
		}
		if _, err := pool.Exec(ctx, `UPDATE notification_dispatch_cursor SET tx_id = '0', seq = 0`); err != nil {
			t.Fatal(err)
		}
	}
	partitions := map[string]map[int32]bool{}
	for _, m := range apptest.ReadTopic(t, kc.Brokers, kc.Topics.Notifications(), 20*time.Second) {
		key := nitHeader(m, notifications.MetaIdempotencyKey)
		if string(m.Key) != key {
			t.Errorf("record key %q, want the idempotency key %q", m.Key, key)
		}
		if partitions[key] == nil {
			partitions[key] = map[int32]bool{}
		}
		partitions[key][m.Partition] = true
	}
	if len(partitions) != len(keys) {
		t.Fatalf("%d keys on the topic, want %d", len(partitions), len(keys))
	}
	for key, on := range partitions {
		if len(on) != 1 {
			t.Errorf("%s: copies on partitions %v, want one", key, on)
		}
	}
}

// TestConcurrentDeliveryPostsEachKeyOnce: the delivery POSTs several
// notifications of a partition at once; three copies of every key (keyed,
// so on one partition, and often in one batch) still make one POST each,
// every key is recorded delivered, and the group's offsets move past all.
func TestConcurrentDeliveryPostsEachKeyOnce(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	pool, kc := apptest.Infra(t, "once5", []func(context.Context, *pgxpool.Pool) error{notifications.Migrate}, onceTopics)
	keys := onceLogIncidents(t, pool, 60)
	receiver := newOnceReceiver(t, 20*time.Millisecond)
	publisher, err := notifications.NewPublisher(kc)
	if err != nil {
		t.Fatal(err)
	}
	defer publisher.Close()
	for range 3 {
		var msgs []*message.Message
		for _, key := range keys {
			msgs = append(msgs, onceMessage(t, pool, key))
		}
		if err := publisher.Publish(kc.Topics.Notifications(), msgs...); err != nil {
			t.Fatal(err)
		}
	}
	delivery := &notifications.Delivery{Webhook: &notifications.Webhook{Pool: pool, Config: notifications.WebhookConfig{URL: receiver.URL, Concurrency: 8}},
		Kafka: kc, Poison: publisher, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	done := make(chan error, 1)
	start := time.Now()
	go func() { done <- delivery.Run(ctx) }()
	defer func() {
		cancel()
		<-done
	}()
	apptest.Eventually(t, 60*time.Second, "every key delivered", func() bool {
		return nitCount(t, pool, `SELECT count(*) FROM notification_deliveries WHERE state='delivered'`) == int64(len(keys))
	})
	took := time.Since(start)
	admin, err := sarama.NewClusterAdmin(kc.Brokers, kc.SaramaConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	topic := kc.Topics.Notifications()
	apptest.Eventually(t, 30*time.Second, "every copy acknowledged", func() bool {
		offsets, err := admin.ListConsumerGroupOffsets(kc.Topics.Group("notify-webhook"), map[string][]int32{topic: {0, 1, 2}})
		if err != nil {
			return false
		}
		var committed int64
		for p := range int32(3) {
			if b := offsets.GetBlock(topic, p); b != nil && b.Offset > 0 {
				committed += b.Offset
			}
		}
		return committed == int64(3*len(keys))
	})
	for _, key := range keys {
		if n := receiver.Posts(key); n != 1 {
			t.Errorf("%s POSTed %d times, want 1", key, n)
		}
	}
	t.Logf("60 keys in 3 copies delivered in %s", took.Round(time.Millisecond))
}
