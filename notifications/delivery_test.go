package notifications

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/google/uuid"

	"github.com/platform/backend/eventstore"
)

// takenLog claims every key and records nothing.
type takenLog struct{}

func (takenLog) Claim(context.Context, string, uuid.UUID, time.Duration) (Claim, error) {
	return Claim{State: ClaimTaken}, nil
}
func (takenLog) ClaimAll(_ context.Context, keys []string, _ uuid.UUID, _ time.Duration) ([]string, error) {
	return keys, nil
}
func (takenLog) MarkDelivered(context.Context, ...string) error              { return nil }
func (takenLog) Release(context.Context, uuid.UUID, map[string]string) error { return nil }

// poisonRecorder records what is published to it.
type poisonRecorder struct {
	mu   sync.Mutex
	msgs []*message.Message
}

func (p *poisonRecorder) Publish(_ string, msgs ...*message.Message) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.msgs = append(p.msgs, msgs...)
	return nil
}
func (p *poisonRecorder) Close() error { return nil }

// TestShutdownDoesNotPoison: a delivery under way when the process shuts
// down (its POST cut off by the end of the delivery's context) is left for
// the partition's next owner, not sent to the poison topic as a failure;
// a POST that fails every retry still is.
func TestShutdownDoesNotPoison(t *testing.T) {
	fail := make(chan struct{})
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		select {
		case <-fail:
			w.WriteHeader(http.StatusServiceUnavailable)
		case <-r.Context().Done(): // hangs until the client gives up
		}
	}))
	defer receiver.Close()
	poison := &poisonRecorder{}
	d := &Delivery{Webhook: &Webhook{Log: takenLog{}, Client: receiver.Client(),
		Config: WebhookConfig{URL: receiver.URL, Timeout: 5 * time.Second, MaxRetries: 1}.WithDefaults()},
		Kafka: eventstore.KafkaConfig{}.WithDefaults(), Poison: poison, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}

	ctx, cancel := context.WithCancel(context.Background())
	handle, err := d.handler(ctx)
	if err != nil {
		t.Fatal(err)
	}
	msg := message.NewMessage("k", []byte(`{}`))
	msg.Metadata.Set(MetaIdempotencyKey, "status:incident:x:rev:1")
	msg.SetContext(ctx)
	time.AfterFunc(200*time.Millisecond, cancel)
	_, _ = handle(msg)
	if len(poison.msgs) != 0 {
		t.Fatalf("a delivery cut off by the shutdown went to the poison topic")
	}

	close(fail)
	ctx = context.Background()
	handle, _ = d.handler(ctx)
	msg.SetContext(ctx)
	if _, err := handle(msg); err != nil {
		t.Fatal(err)
	}
	if len(poison.msgs) != 1 {
		t.Fatalf("%d poison messages after every retry failed, want 1", len(poison.msgs))
	}
}
