package notifications_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/platform/backend/notifications"
)

// flakyLog is a delivery log whose database is down for the first marks.
type flakyLog struct {
	downMarks int
	marks     atomic.Int32
	delivered atomic.Bool
}

func (l *flakyLog) Claim(context.Context, string, uuid.UUID, time.Duration) (notifications.Claim, error) {
	if l.delivered.Load() {
		return notifications.Claim{State: notifications.ClaimDelivered}, nil
	}
	return notifications.Claim{State: notifications.ClaimTaken}, nil
}
func (l *flakyLog) ClaimAll(_ context.Context, keys []string, _ uuid.UUID, _ time.Duration) ([]string, error) {
	if l.delivered.Load() {
		return nil, nil
	}
	return keys, nil
}
func (l *flakyLog) Release(context.Context, uuid.UUID, map[string]string) error { return nil }
func (l *flakyLog) MarkDelivered(context.Context, ...string) error {
	if int(l.marks.Add(1)) <= l.downMarks {
		return &pgconn.PgError{Code: "57P01", Message: "terminating connection due to administrator command"}
	}
	l.delivered.Store(true)
	return nil
}

// TestWebhookRecordsDeliveryThroughDatabaseOutage: the POST succeeds while
// PostgreSQL is down; the handler waits until the delivery is recorded and
// acknowledges, so the router never POSTs the notification again, and a
// redelivery of the message finds it delivered.
func TestWebhookRecordsDeliveryThroughDatabaseOutage(t *testing.T) {
	var posts atomic.Int32
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		posts.Add(1)
		w.WriteHeader(http.StatusAccepted)
	}))
	defer receiver.Close()
	log := &flakyLog{downMarks: 3}
	wh := &notifications.Webhook{Client: receiver.Client(), Log: log,
		Config: notifications.WebhookConfig{URL: receiver.URL, Timeout: 2 * time.Second}}
	msg := message.NewMessage("n-1", []byte(`{}`))
	msg.Metadata.Set(notifications.MetaIdempotencyKey, "status:incident:x:rev:1")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	msg.SetContext(ctx)

	if err := wh.Handle(msg); err != nil {
		t.Fatalf("Handle returned %v after a successful POST: the router would POST it again", err)
	}
	if got := posts.Load(); got != 1 {
		t.Fatalf("%d POSTs, want 1", got)
	}
	if got := log.marks.Load(); got != 4 {
		t.Fatalf("%d marks, want 4 (three while the database was down, then the one that stuck)", got)
	}
	if err := wh.Handle(msg); err != nil || posts.Load() != 1 {
		t.Fatalf("redelivery: err %v, %d POSTs; want nil and still 1", err, posts.Load())
	}
}

// TestWebhookBatchRecordsDeliveryThroughDatabaseOutage: the same for a
// batch: its POSTs succeed while PostgreSQL is down, the batch waits until
// they are recorded and returns nothing left to deliver.
func TestWebhookBatchRecordsDeliveryThroughDatabaseOutage(t *testing.T) {
	var posts atomic.Int32
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		posts.Add(1)
		w.WriteHeader(http.StatusAccepted)
	}))
	defer receiver.Close()
	log := &flakyLog{downMarks: 3}
	wh := &notifications.Webhook{Client: receiver.Client(), Log: log,
		Config: notifications.WebhookConfig{URL: receiver.URL, Timeout: 2 * time.Second}}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var msgs []*message.Message
	for _, key := range []string{"status:incident:x:rev:1", "status:incident:x:rev:2", "status:incident:x:rev:3"} {
		msg := message.NewMessage(key, []byte(`{}`))
		msg.Metadata.Set(notifications.MetaIdempotencyKey, key)
		msg.SetContext(ctx)
		msgs = append(msgs, msg)
	}
	if rest := wh.DeliverBatch(ctx, msgs); len(rest) != 0 {
		t.Fatalf("%d notifications left after successful POSTs: they would be POSTed again", len(rest))
	}
	if got := posts.Load(); got != 3 {
		t.Fatalf("%d POSTs, want 3", got)
	}
	if got := log.marks.Load(); got != 4 {
		t.Fatalf("%d marks, want 4 (three while the database was down, then the one that stuck)", got)
	}
}
