package gateway

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	domain "github.com/platform/backend/domain/gateway"
	"github.com/platform/backend/domain/text"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/providers/message/whatsapp"
)

// InboundWebhook is one provider webhook as its route read it: the path's
// provider segment and connection, the headers and the raw body.
type InboundWebhook struct {
	Segment      string
	ConnectionID string
	Header       http.Header
	Body         []byte
}

// WebhookAnswer is what the provider is answered.
type WebhookAnswer struct {
	WebhookID string `json:"webhook_id"`
	Duplicate bool   `json:"duplicate"`
}

var webhookSpace = uuid.MustParse("4a7e0c9b-2d13-4f8e-8b6a-1c5e9f2d7a34")

// ReceiveWebhook verifies an inbound webhook with its connection's secret
// and records it once: an unverified one (missing, wrong or stale
// signature; no secret on the connection) is 400 and nothing is stored;
// a repeat of a recorded one (the provider's retry, a replay within the
// tolerance) is answered as a duplicate and records nothing. The body is
// kept apart for the relay; the event holds its digest and the receipts.
func (e *Edge) ReceiveWebhook(ctx context.Context, in InboundWebhook) (WebhookAnswer, error) {
	r, secrets, err := e.webhookConnection(ctx, in.Segment, in.ConnectionID)
	if err != nil {
		return WebhookAnswer{}, err
	}
	v, err := verifiers[r.Provider](secrets, in.Header, in.Body, e.cfg.WebhookTolerance, e.h.now)
	if err != nil {
		return WebhookAnswer{}, unverified(err)
	}
	eventID := firstOf(v.EventID, digest(in.Body))
	id := uuid.NewSHA1(webhookSpace, []byte(r.ID+"\x00"+eventID)).String()
	now := e.h.now()
	rec := domain.WebhookReceivedV1{WebhookID: id, ConnectionID: r.ID, Provider: r.Provider, ProviderEventID: truncate(eventID, 255),
		EventType: v.EventType, BodySHA256: digest(in.Body), Size: len(in.Body), Relay: r.WebhookURL != nil, ReceivedAt: now}
	for _, ev := range v.Receipts {
		rec.Receipts = append(rec.Receipts, domain.Receipt{MessageID: truncate(ev.MessageID, 255), Kind: string(ev.Kind),
			RecipientHash: recipientHash(r.ID, ev.Recipient), Reason: truncate(ev.Reason, 64), OccurredAt: ev.OccurredAt})
	}
	contentType := firstOf(in.Header.Get("Content-Type"), "application/json")
	m := commands.Meta{OrganizationID: r.Org, Actor: eventstore.Actor{ID: "webhook:" + r.Provider, Type: "system"}, CorrelationID: id}
	res, err := commands.Run(ctx, e.h.store, m, domain.StreamWebhook, domain.WebhookStreamID(id),
		func(history []event.Recorded) ([]event.Change, bool, error) {
			w, err := domain.LoadWebhook(history)
			if err != nil {
				return nil, false, err
			}
			changes := w.Receive(rec)
			return changes, len(changes) > 0, nil
		},
		commands.Also(func(bool) []eventstore.Write {
			return []eventstore.Write{{SQL: `INSERT INTO gateway_webhook_bodies (webhook_id, organization_id, content_type, body, received_at)
				VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING`, Args: []any{id, r.Org, truncate(contentType, 255), in.Body, now}}}
		}))
	if err != nil {
		return WebhookAnswer{}, err
	}
	return WebhookAnswer{WebhookID: id, Duplicate: !res.Value}, nil
}

// SubscribeWebhook answers WhatsApp's GET handshake with the connection's
// verify token: the challenge to echo, or 400.
func (e *Edge) SubscribeWebhook(ctx context.Context, segment, connectionID string, q url.Values) (string, error) {
	if segment != domain.ConnectionProviders[domain.ProviderMessageA].Webhook {
		return "", errs.NotFound("webhook route") // only WhatsApp has a handshake
	}
	_, secrets, err := e.webhookConnection(ctx, segment, connectionID)
	if err != nil {
		return "", err
	}
	challenge, err := whatsapp.Webhook{VerifyToken: secrets["verify_token"]}.Subscribe(q)
	if err != nil || len(challenge) > 1024 {
		return "", unverified(err)
	}
	return challenge, nil
}

// webhookConnection finds the active connection a webhook route names, of
// the provider its path names, and opens its secrets.
func (e *Edge) webhookConnection(ctx context.Context, segment, connectionID string) (connectionRow, Secrets, error) {
	provider, ok := domain.WebhookProvider(segment)
	if !ok {
		return connectionRow{}, nil, errs.NotFound("webhook route")
	}
	r, found, err := e.connectionByID(ctx, connectionID)
	if err != nil {
		return r, nil, err
	}
	if !found || r.Provider != provider || r.Status != domain.StatusActive {
		return r, nil, errs.NotFound("connection")
	}
	secrets, err := e.open(r.Credential)
	if err != nil {
		// Our key ring's fault, not the provider's: it retries later.
		return r, nil, errs.Unavailable("the connection's credential cannot be decrypted", nil)
	}
	return r, secrets, nil
}

// truncate bounds a provider's token for the log: valid UTF-8, no control
// character (PostgreSQL's jsonb refuses NUL), at most n bytes.
func truncate(s string, n int) string {
	s = strings.Map(func(r rune) rune {
		if text.Control(r) {
			return -1
		}
		return r
	}, strings.ToValidUTF8(s, ""))
	for len(s) > n {
		_, size := utf8.DecodeLastRuneInString(s)
		s = s[:len(s)-size]
	}
	return s
}
