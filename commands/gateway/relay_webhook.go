package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/commands/reactor"
	"github.com/platform/backend/commands/timers"
	"github.com/platform/backend/domain/event"
	domain "github.com/platform/backend/domain/gateway"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/internal/outbound"
)

// RelayReactor is the name of the reactor that relays verified webhooks
// to the owning app and applies their delivery receipts.
const RelayReactor = "gateway.webhook_relay"

// Relay is that reactor. Per received webhook it applies each delivery
// receipt to its delivery (a command per receipt, keyed by the event and
// the receipt's place), then makes the relay's first attempt; a failed
// attempt schedules the next on the webhook's stream (a durable timer, so
// a failing app never holds up the log), with backoff, until the attempts
// run out: gateway.webhook.failed.
type Relay struct{ e *Edge }

var _ reactor.Reactor = Relay{}

// Relay returns the reactor.
func (e *Edge) Relay() Relay { return Relay{e: e} }

func (Relay) Name() string       { return RelayReactor }
func (Relay) Contexts() []string { return []string{"gateway"} }
func (Relay) Types() []string    { return []string{domain.WebhookReceived} }

func (r Relay) React(ctx context.Context, ev eventstore.Event) error {
	p, err := eventstore.Decode[domain.WebhookReceivedV1](ev)
	if err != nil {
		return err
	}
	for i, rc := range p.Receipts {
		if err := r.e.applyReceipt(ctx, reactor.Meta(RelayReactor, ev, "receipt:"+strconv.Itoa(i)), p, rc); err != nil {
			return err
		}
	}
	if !p.Relay {
		return nil
	}
	return r.e.relayAttempt(ctx, reactor.Meta(RelayReactor, ev, "relay:1"), p.WebhookID, 1)
}

// fireRelay is the relay timer's command: the attempt its payload names.
func (e *Edge) fireRelay(ctx context.Context, f timers.Fire) error {
	var t domain.RelayTimer
	if err := json.Unmarshal(f.Payload, &t); err != nil {
		return err
	}
	return e.relayAttempt(ctx, f.Meta, strings.TrimPrefix(f.StreamID, "webhook:"), t.Attempt, f.Option())
}

// relayAttempt POSTs the webhook's body to the connection's current
// webhook URL through the outbound client (every tenant-supplied URL goes
// through it) and records the attempt. An attempt that is not due (done
// already: a redelivered event, a timer fired twice) posts nothing.
func (e *Edge) relayAttempt(ctx context.Context, m commands.Meta, webhookID string, n int, opts ...commands.Option) error {
	stream := domain.WebhookStreamID(webhookID)
	history, err := e.h.store.Load(ctx, stream)
	if err != nil {
		return err
	}
	w, err := domain.LoadWebhook(commands.Recorded(history))
	if err != nil {
		return err
	}
	ok, status, reason := false, 0, ""
	if w.Relay == domain.RelayPending && n == w.Attempts+1 {
		ok, status, reason, err = e.post(ctx, w.Received, n)
		if err != nil {
			return err
		}
	}
	now := e.h.now()
	next := now.Add(e.cfg.relayBackoff(n))
	_, err = commands.Run(ctx, e.h.store, m, domain.StreamWebhook, stream, func(history []event.Recorded) ([]event.Change, int, error) {
		w, err := domain.LoadWebhook(history)
		if err != nil {
			return nil, 0, err
		}
		return w.RelayAttempt(n, ok, status, reason, e.cfg.RelayAttempts, next, now), n, nil
	}, opts...)
	return err
}

// post is one relay: the provider's body as it came, the content type,
// headers naming the webhook (the app dedupes on X-Platform-Webhook-Id:
// a relay is at least once) and the signature over the body (relay_signing.go). Failures are a few words, never upstream text.
func (e *Edge) post(ctx context.Context, rec domain.WebhookReceivedV1, n int) (bool, int, string, error) {
	var target *string
	var body []byte
	var contentType string
	err := e.h.pool.QueryRow(ctx, `SELECT i.webhook_url, b.body, b.content_type FROM gateway_webhook_bodies b
		JOIN gateway_connection_index i ON i.connection_id = $2 WHERE b.webhook_id = $1`, rec.WebhookID, rec.ConnectionID).
		Scan(&target, &body, &contentType)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, 0, "webhook body missing", nil
	}
	if err != nil {
		return false, 0, "", dbError(err)
	}
	if target == nil {
		return false, 0, "no webhook URL", nil
	}
	if e.out == nil {
		return false, 0, "no outbound client", nil
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, *target, bytes.NewReader(body))
	if err != nil {
		return false, 0, string(outbound.ReasonInvalidURL), nil
	}
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("User-Agent", "platform-gateway-relay/1")
	req.Header.Set("X-Platform-Webhook-Id", rec.WebhookID)
	req.Header.Set("X-Platform-Provider", rec.Provider)
	req.Header.Set("X-Platform-Connection-Id", rec.ConnectionID)
	req.Header.Set("X-Platform-Event-Type", rec.EventType)
	req.Header.Set("X-Platform-Attempt", strconv.Itoa(n))
	if secret, ok := e.cfg.relaySecret(rec.ConnectionID); ok {
		req.Header.Set(RelaySignatureHeader, SignRelay(secret, body, e.h.now()))
	}
	resp, err := e.out.Do(req)
	if err != nil {
		if resp == nil {
			return false, 0, string(outbound.ReasonOf(err)), nil
		}
	}
	if resp.StatusCode/100 != 2 {
		return false, resp.StatusCode, "http_error", nil
	}
	return true, resp.StatusCode, "", nil
}
