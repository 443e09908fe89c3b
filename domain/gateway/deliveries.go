package gateway

import (
	"fmt"
	"slices"
	"time"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
)

// StreamDelivery is one email or instant message the gateway sent (or
// tried to): requested, then sent, failed or unknown, then the provider's
// receipts (delivered, bounced). Its id is DeliveryStreamID(delivery id);
// with an Idempotency-Key the delivery id is derived from it, so a retried
// request finds its delivery and never sends twice.
const StreamDelivery = "gateway.delivery"

// Delivery event types.
const (
	DeliveryRequested = "gateway.delivery.requested"
	DeliverySent      = "gateway.delivery.sent"
	DeliveryFailed    = "gateway.delivery.failed" // -> gateway.delivery.failed
	// DeliveryUnknown: the answer was lost after the request left, and the
	// provider honours no idempotency key: the message may have gone out.
	DeliveryUnknown = "gateway.delivery.unknown"
	// DeliveryReceipt: a provider webhook's delivered, bounced or failed
	// (bounced and failed -> gateway.delivery.failed, once per delivery).
	DeliveryReceipt = "gateway.delivery.receipt"
)

// DeliveryEventTypes are the deliveries area's event types.
var DeliveryEventTypes = []string{DeliveryRequested, DeliverySent, DeliveryFailed, DeliveryUnknown, DeliveryReceipt}

// DeliveryStreamID is the stream of a delivery.
func DeliveryStreamID(id string) string { return "delivery:" + id }

// Channels of a delivery.
const (
	ChannelEmail   = "email"
	ChannelMessage = "message"
)

// Delivery statuses.
const (
	DeliveryStatusRequested = "requested"
	DeliveryStatusSent      = "sent"
	DeliveryStatusFailed    = "failed"
	DeliveryStatusUnknown   = "unknown"
	DeliveryStatusDelivered = "delivered"
	DeliveryStatusBounced   = "bounced"
)

// DeliveryStatuses lists them (schemas).
var DeliveryStatuses = []string{DeliveryStatusRequested, DeliveryStatusSent, DeliveryStatusFailed, DeliveryStatusUnknown,
	DeliveryStatusDelivered, DeliveryStatusBounced}

// Receipt kinds (providers/delivery's, as words).
const (
	ReceiptDelivered = "delivered"
	ReceiptBounced   = "bounced"
	ReceiptFailed    = "failed"
)

// DeliveryRequestedV1 opens a round of a delivery: what is sent through
// which connection, never the message itself or its recipients' addresses.
type DeliveryRequestedV1 struct {
	DeliveryID   string    `json:"delivery_id"`
	Channel      string    `json:"channel"`
	Provider     string    `json:"provider"`
	ConnectionID string    `json:"connection_id"`
	AppID        string    `json:"app_id"`
	Recipients   int       `json:"recipients"`
	Sandbox      bool      `json:"sandbox"`
	RequestHash  string    `json:"request_hash"`
	Round        int       `json:"round"`
	At           time.Time `json:"at"`
}

// DeliveryOutcomeV1 ends a round: sent, failed or unknown.
type DeliveryOutcomeV1 struct {
	DeliveryID        string `json:"delivery_id"`
	Channel           string `json:"channel"`
	Provider          string `json:"provider"`
	ConnectionID      string `json:"connection_id"`
	AppID             string `json:"app_id"`
	MessageID         string `json:"message_id,omitempty"`
	ProviderRequestID string `json:"provider_request_id,omitempty"`
	// RequestID is the gateway's request id of the last attempt (its usage
	// event); Attempts how many attempts the round made.
	RequestID string `json:"request_id"`
	Attempts  int    `json:"attempts"`
	Outcome   string `json:"outcome"`
	// Error is a few words of ours (sensitive in the notification).
	Error string    `json:"error,omitempty"`
	At    time.Time `json:"at"`
}

// DeliveryReceiptV1 is one provider webhook's news of a sent message.
type DeliveryReceiptV1 struct {
	DeliveryID string `json:"delivery_id"`
	Channel    string `json:"channel"`
	Provider   string `json:"provider"`
	AppID      string `json:"app_id"`
	RequestID  string `json:"request_id"`
	MessageID  string `json:"message_id"`
	Kind       string `json:"kind"`
	// RecipientHash tells recipients of one message apart without their
	// addresses.
	RecipientHash string    `json:"recipient_hash"`
	Reason        string    `json:"reason,omitempty"`
	WebhookID     string    `json:"webhook_id"`
	OccurredAt    time.Time `json:"occurred_at"`
}

// DeliveryState is a delivery as its answer shows it.
type DeliveryState struct {
	DeliveryID        string    `json:"delivery_id"`
	Channel           string    `json:"channel"`
	Status            string    `json:"status"`
	Provider          string    `json:"provider"`
	ConnectionID      string    `json:"connection_id"`
	AppID             string    `json:"app_id"`
	Recipients        int       `json:"recipients"`
	Sandbox           bool      `json:"sandbox"`
	MessageID         string    `json:"message_id"`
	ProviderRequestID string    `json:"provider_request_id"`
	RequestID         string    `json:"request_id"`
	Attempts          int       `json:"attempts"`
	Outcome           string    `json:"outcome"`
	Error             string    `json:"error"`
	Round             int       `json:"round"`
	RequestHash       string    `json:"-"`
	Receipts          []string  `json:"-"` // recipient hash + kind seen
	UpdatedAt         time.Time `json:"updated_at"`
}

// Delivery is the write model of a delivery stream.
type Delivery struct {
	State DeliveryState
}

var deliveryFolds = map[string]func(d *DeliveryState, r event.Recorded) error{
	DeliveryRequested: func(d *DeliveryState, r event.Recorded) error {
		p, err := event.Decode[DeliveryRequestedV1](r)
		*d = DeliveryState{DeliveryID: p.DeliveryID, Channel: p.Channel, Status: DeliveryStatusRequested, Provider: p.Provider,
			ConnectionID: p.ConnectionID, AppID: p.AppID, Recipients: p.Recipients, Sandbox: p.Sandbox, Round: p.Round, RequestHash: p.RequestHash,
			UpdatedAt: p.At}
		return err
	},
	DeliverySent:    foldOutcome(DeliveryStatusSent),
	DeliveryFailed:  foldOutcome(DeliveryStatusFailed),
	DeliveryUnknown: foldOutcome(DeliveryStatusUnknown),
	DeliveryReceipt: func(d *DeliveryState, r event.Recorded) error {
		p, err := event.Decode[DeliveryReceiptV1](r)
		d.Receipts = append(d.Receipts, p.RecipientHash+":"+p.Kind)
		switch {
		case p.Kind == ReceiptDelivered && d.Status == DeliveryStatusSent:
			d.Status = DeliveryStatusDelivered
		case p.Kind != ReceiptDelivered:
			d.Status = DeliveryStatusBounced
		}
		d.UpdatedAt = p.OccurredAt
		return err
	},
}

func foldOutcome(status string) func(d *DeliveryState, r event.Recorded) error {
	return func(d *DeliveryState, r event.Recorded) error {
		p, err := event.Decode[DeliveryOutcomeV1](r)
		d.Status, d.MessageID, d.ProviderRequestID, d.RequestID = status, p.MessageID, p.ProviderRequestID, p.RequestID
		d.Attempts, d.Outcome, d.Error, d.UpdatedAt = p.Attempts, p.Outcome, p.Error, p.At
		return err
	}
}

// LoadDelivery folds a delivery stream.
func LoadDelivery(history []event.Recorded) (*Delivery, error) {
	d := &Delivery{}
	for _, r := range history {
		if f, ok := deliveryFolds[r.Type]; ok {
			if err := f(&d.State, r); err != nil {
				return nil, fmt.Errorf("%s: %w", r.Type, err)
			}
		}
	}
	return d, nil
}

// ErrReplay is what Request answers when the delivery already has the
// result of this very request: the caller answers it again, sends nothing.
var ErrReplay = errs.Conflict("delivery_replayed", "this request was delivered already")

// Request opens a round: a new delivery, or the retry of a failed one with
// the same request. The same request again while a round runs is 409
// delivery_in_progress; after an unknown outcome 409
// delivery_outcome_unknown (sending again could deliver twice); after a
// success ErrReplay. Another request under the same key is 422.
func (d *Delivery) Request(in DeliveryRequestedV1) ([]event.Change, error) {
	s := d.State
	if s.DeliveryID == "" {
		in.Round = 1
		return []event.Change{event.New(DeliveryRequested, in)}, nil
	}
	if s.RequestHash != in.RequestHash {
		return nil, errs.IdempotencyMismatch()
	}
	switch s.Status {
	case DeliveryStatusRequested:
		return nil, errs.Conflict("delivery_in_progress", "a request with this Idempotency-Key is being delivered; retry later for its result")
	case DeliveryStatusUnknown:
		return nil, errs.Conflict("delivery_outcome_unknown", "the provider's answer to this delivery was lost; it may have been delivered, so it is not sent again")
	case DeliveryStatusFailed:
		in.Round = s.Round + 1
		return []event.Change{event.New(DeliveryRequested, in)}, nil
	}
	return nil, ErrReplay
}

// Finish ends the running round with its outcome.
func (d *Delivery) Finish(status string, out DeliveryOutcomeV1) ([]event.Change, error) {
	if d.State.Status != DeliveryStatusRequested {
		return nil, nil // a repeat of the finish (its command retried)
	}
	typ, ok := map[string]string{DeliveryStatusSent: DeliverySent, DeliveryStatusFailed: DeliveryFailed, DeliveryStatusUnknown: DeliveryUnknown}[status]
	if !ok {
		return nil, fmt.Errorf("delivery: no outcome %q", status)
	}
	s := d.State
	out.DeliveryID, out.Channel, out.Provider, out.ConnectionID, out.AppID = s.DeliveryID, s.Channel, s.Provider, s.ConnectionID, s.AppID
	return []event.Change{event.New(typ, out)}, nil
}

// Receive records a provider receipt of a sent message, once per
// recipient and kind (webhooks are retried and replayed).
func (d *Delivery) Receive(r DeliveryReceiptV1) []event.Change {
	s := d.State
	if s.MessageID == "" || slices.Contains(s.Receipts, r.RecipientHash+":"+r.Kind) {
		return nil
	}
	r.DeliveryID, r.Channel, r.Provider, r.AppID, r.RequestID, r.MessageID = s.DeliveryID, s.Channel, s.Provider, s.AppID, s.RequestID, s.MessageID
	return []event.Change{event.New(DeliveryReceipt, r)}
}
