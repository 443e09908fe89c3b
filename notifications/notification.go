// Package notifications turns domain events into the versioned contract
// notifications of the seeds: mapping, schema check, a delivery log that
// emits each idempotency key once, publication to the notifications topic and
// delivery to PLATFORM_NOTIFY_URL.
package notifications

import (
	"encoding/json"
	"time"

	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/notifications/contracts"
)

// Notification is a mapped, not yet validated, contract notification.
type Notification struct {
	Type           string
	IdempotencyKey string
	Payload        map[string]any
}

// Envelope is what is published and POSTed: the payload and its contract's
// descriptor, so a receiver knows whom it is for and what is sensitive.
type Envelope struct {
	Type               string          `json:"type"`
	Version            int             `json:"version"`
	IdempotencyKey     string          `json:"idempotency_key"`
	OrganizationID     string          `json:"organization_id"`
	Recipients         Recipients      `json:"recipients"`
	DataClassification string          `json:"data_classification"`
	SensitiveFields    []string        `json:"sensitive_fields"`
	SourceEventID      string          `json:"source_event_id"`
	EmittedAt          time.Time       `json:"emitted_at"`
	Payload            json.RawMessage `json:"payload"`
}

type Recipients struct {
	Mode              string `json:"mode"`
	ExternalAddresses string `json:"external_addresses"`
}

// Mapper maps one domain event to the notifications it causes (often none).
type Mapper func(e eventstore.Event) ([]Notification, error)

// envelope wraps n in its contract's descriptor and encodes it, the
// payload encoded once, inside it, then checks the payload against the
// contract (verr): a notification that fails it is recorded invalid, never
// sent. A payload that does not encode fails too, with an empty envelope.
// raw is json.Marshal's bytes (appendEnvelope writes them): the projection
// stores it as projections.EncodedJSON.
func envelope(reg *contracts.Registry, e eventstore.Event, sourceEventID string, n Notification) (raw []byte, version int, verr, err error) {
	env := Envelope{Type: n.Type, IdempotencyKey: n.IdempotencyKey, OrganizationID: e.OrganizationID,
		SourceEventID: sourceEventID, EmittedAt: e.RecordedAt}
	if c, ok := reg.Get(n.Type); ok {
		env.Version, env.DataClassification, env.SensitiveFields = c.Version, c.DataClassification, c.SensitiveFields
		env.Recipients = Recipients{Mode: c.RecipientsMode, ExternalAddresses: c.ExternalAddresses}
	}
	if env.SensitiveFields == nil {
		env.SensitiveFields = []string{}
	}
	raw, verr = appendEnvelope(make([]byte, 0, envelopeSize), &env, n.Payload)
	if verr != nil {
		// The reference encoding gives the verdict and the error.
		raw, verr = json.Marshal(outgoing{Envelope: env, Payload: n.Payload})
	}
	if verr != nil {
		raw, err = json.Marshal(Envelope{})
		return raw, 0, verr, err
	}
	return raw, env.Version, reg.ValidateValue(n.Type, n.IdempotencyKey, n.Payload), nil
}

// envelopeSize is room for most envelopes (an incident update's: ~600
// bytes) in one allocation.
const envelopeSize = 1024

// outgoing encodes as an Envelope whose payload is n.Payload: its Payload
// member, shallower than the embedded one, takes the name "payload", and
// comes last, as the Envelope's does.
type outgoing struct {
	Envelope
	Payload map[string]any `json:"payload"`
}
