package gateway

import (
	"context"
	"errors"

	"github.com/google/uuid"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	domain "github.com/platform/backend/domain/gateway"
	"github.com/platform/backend/domain/gateway/prices"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/internal/retry"
	"github.com/platform/backend/providers/delivery"
	"github.com/platform/backend/providers/outcome"
)

// send is one email or instant message, ready to go: where, on whose
// behalf, what it is worth, and the provider call itself.
type send struct {
	Channel    string
	Action     string // email.send, instant_message.send
	Model      string // what the usage event names: email, text, template
	Operation  string // prices.OpEmail, prices.OpMessage
	Link       Link
	Caller     Caller
	Recipients int
	Estimate   prices.Units
	// RetrySafe: the provider honours an idempotency key, so an answer lost
	// after the request left may be retried without sending twice.
	RetrySafe bool
	Do        func(ctx context.Context) (delivery.Receipt, error)
}

var deliverySpace = uuid.MustParse("0b8f6d0e-6a41-4c55-9a8e-7d2f5c3b1a60")

// deliveryID is a send's delivery id: from the request's Idempotency-Key
// (scoped to the organization and the action), so a retry finds its
// delivery; a fresh one without a key.
func deliveryID(m commands.Meta, action string) string {
	if m.IdempotencyKey == "" {
		return uuid.Must(uuid.NewV7()).String()
	}
	return uuid.NewSHA1(deliverySpace, []byte(m.OrganizationID+"\x00"+action+"\x00"+m.IdempotencyKey)).String()
}

// deliver runs a send through its delivery stream: a round is opened
// (or the first result answered again, or refused while one runs), each
// attempt goes through the metered path (its own usage event), provider
// faults and rate limits are tried again a few times with backoff, and the
// round ends sent, failed (terminal: the provider refused it for good, or
// the retries ran out -> gateway.delivery.failed) or unknown (the answer
// was lost and a retry could send twice). A failed round answers its
// problem; the key then admits a new round.
func (e *Edge) deliver(ctx context.Context, m commands.Meta, s send) (commands.Result[domain.DeliveryState], error) {
	id := deliveryID(m, s.Action)
	inner := m
	inner.IdempotencyKey, inner.RequestHash = "", ""
	now := e.h.now()
	requested := domain.DeliveryRequestedV1{DeliveryID: id, Channel: s.Channel, Provider: s.Link.Provider, ConnectionID: s.Link.ConnectionID,
		AppID: s.Caller.AppID, Recipients: s.Recipients, Sandbox: s.Link.Sandbox, RequestHash: m.RequestHash, At: now}
	opened, err := e.deliveryCommand(ctx, inner, id, func(d *domain.Delivery) ([]event.Change, error) { return d.Request(requested) })
	if errors.Is(err, domain.ErrReplay) {
		return e.replayDelivery(ctx, id)
	}
	if err != nil {
		return opened, err
	}
	out, failure := e.attempts(ctx, s)
	out.At = e.h.now()
	status := domain.DeliveryStatusSent
	switch {
	case failure == nil:
	case failure.unknown:
		status = domain.DeliveryStatusUnknown
	default:
		status = domain.DeliveryStatusFailed
	}
	// The round is closed even when the caller left: its outcome is the record.
	bg := context.WithoutCancel(ctx)
	res, err := e.deliveryCommand(bg, inner, id, func(d *domain.Delivery) ([]event.Change, error) { return d.Finish(status, out) },
		indexDelivery(m.OrganizationID, s.Link.Provider, out.MessageID, id))
	if err != nil {
		return res, err
	}
	if failure != nil {
		if failure.attempt.Outcome == domain.OutcomeUnauthorized && s.Link.BYOK {
			e.deauthorizeRefused(bg, s.Link, s.Caller.CorrelationID)
		}
		return res, withDelivery(failure.err, id)
	}
	return res, nil
}

// roundFailure is how a round ended without a send.
type roundFailure struct {
	err     error
	attempt Attempt
	unknown bool
}

// attempts makes the round's attempts: each metered, retried while the
// failure is worth another try and attempts are left.
func (e *Edge) attempts(ctx context.Context, s send) (domain.DeliveryOutcomeV1, *roundFailure) {
	out := domain.DeliveryOutcomeV1{}
	call := Call{Caller: s.Caller, Action: s.Action, Provider: s.Link.Provider, Model: s.Model, Operation: s.Operation,
		ConnectionID: s.Link.ConnectionID, BYOK: s.Link.BYOK, Estimate: s.Estimate}
	for n := 1; ; n++ {
		var derr *delivery.Error
		var rcpt delivery.Receipt
		receipt, a, err := e.h.Metered(ctx, call, func(ctx context.Context) Attempt {
			var err error
			rcpt, err = s.Do(ctx)
			var attempt Attempt
			attempt, derr = deliveryAttempt(rcpt, err)
			return attempt
		})
		if err != nil {
			// Refused before any provider was contacted (a spend cap, the
			// budget store down): nothing was attempted.
			out.Outcome, out.Error, out.Attempts = "refused", "refused before sending", n-1
			return out, &roundFailure{err: err}
		}
		out.RequestID, out.Attempts, out.Outcome, out.Error = receipt.RequestID, n, a.Outcome, a.Error
		out.ProviderRequestID = a.ProviderRequestID
		if a.Outcome == domain.OutcomeOK {
			out.MessageID = rcpt.MessageID
			return out, nil
		}
		f := &roundFailure{err: Problem(receipt, a), attempt: a}
		maybeSent := derr != nil && derr.MaybeDelivered && !s.RetrySafe
		retryable := derr != nil && derr.Kind.Retryable() && !maybeSent
		if a.Outcome == domain.OutcomeCallerCanceled {
			f.unknown = derr != nil && derr.MaybeDelivered
			return out, f
		}
		if maybeSent {
			f.unknown = true
			return out, f
		}
		if !retryable || n >= e.cfg.DeliveryAttempts {
			if retryable && out.Error != "" {
				out.Error = "retries ran out: " + out.Error
			}
			return out, f
		}
		wait := retry.Backoff(e.cfg.DeliveryBackoff, n, 8*e.cfg.DeliveryBackoff)
		if a.RetryAfter > 0 {
			if a.RetryAfter > e.cfg.MaxRetryAfter {
				return out, f
			}
			wait = max(wait, a.RetryAfter)
		}
		if !retry.Sleep(ctx, wait) {
			return out, f
		}
	}
}

// deliveryAttempt classifies a provider's answer for the metered path.
func deliveryAttempt(r delivery.Receipt, err error) (Attempt, *delivery.Error) {
	if err == nil {
		return Attempt{Outcome: domain.OutcomeOK, ProviderRequestID: r.RequestID,
			Units: prices.Units{Messages: int64(r.Units.Messages), Characters: int64(r.Units.Characters)}}, nil
	}
	var e *delivery.Error
	if !errors.As(err, &e) {
		e = &delivery.Error{Kind: outcome.ProviderFault, Reason: "provider error"}
	}
	a := Attempt{ProviderRequestID: e.RequestID, Error: e.Reason, RetryAfter: e.RetryAfter}
	if e.Code != "" {
		a.Error += " (code " + e.Code + ")"
	}
	a.Outcome = outcomeOf(e.Kind, e.Timeout)
	return a, e
}

// deliveryCommand runs one command on a delivery stream.
func (e *Edge) deliveryCommand(ctx context.Context, m commands.Meta, id string, act func(*domain.Delivery) ([]event.Change, error),
	opts ...commands.Option) (commands.Result[domain.DeliveryState], error) {
	return commands.Execute(ctx, e.h.store, m, domain.StreamDelivery, domain.DeliveryStreamID(id), domain.LoadDelivery, act,
		func(d *domain.Delivery) domain.DeliveryState { return d.State }, opts...)
}

// replayDelivery answers a delivered request again from its stream.
func (e *Edge) replayDelivery(ctx context.Context, id string) (commands.Result[domain.DeliveryState], error) {
	history, err := e.h.store.Load(ctx, domain.DeliveryStreamID(id))
	if err != nil {
		return commands.Result[domain.DeliveryState]{}, err
	}
	d, err := domain.LoadDelivery(commands.Recorded(history))
	if err != nil {
		return commands.Result[domain.DeliveryState]{}, err
	}
	return commands.Result[domain.DeliveryState]{Value: d.State, Replayed: true,
		Position: eventstore.Position{StreamID: domain.DeliveryStreamID(id), Version: int64(len(history))}}, nil
}

// indexDelivery maps the provider's message id to the delivery, for the
// receipts webhooks bring.
func indexDelivery(org, provider, messageID, id string) commands.Option {
	return commands.Also(func(domain.DeliveryState) []eventstore.Write {
		if messageID == "" {
			return nil
		}
		return []eventstore.Write{{SQL: `INSERT INTO gateway_delivery_index (provider, message_id, delivery_id, organization_id)
			VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING`, Args: []any{provider, messageID, id, org}}}
	})
}

// withDelivery names the delivery in a failed send's problem.
func withDelivery(err error, id string) error {
	var e *errs.Error
	if !errors.As(err, &e) {
		return err
	}
	if e.Extensions == nil {
		e.Extensions = map[string]any{}
	}
	e.Extensions["delivery_id"] = id
	return e
}

// deauthorizeRefused: the provider refused an organization's own
// credential (401/403): the connection is deauthorized (the 401 belongs to
// its lifecycle, not to the provider's health) until new credentials come.
func (e *Edge) deauthorizeRefused(ctx context.Context, l Link, correlation string) {
	reason := "the provider refused the connection's credential"
	m := commands.Meta{OrganizationID: l.OrganizationID, Actor: eventstore.Actor{ID: "gateway.edge", Type: "system"}, CorrelationID: correlation}
	if _, err := e.Deauthorize(ctx, m, ChangeConnectionStatus{ConnectionID: l.ConnectionID, Reason: &reason}); err != nil {
		e.log.Warn("gateway: connection not deauthorized after a refused credential", "connection_id", l.ConnectionID, "err", err)
	}
}
