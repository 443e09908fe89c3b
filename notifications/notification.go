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

// envelope validates n against its contract and wraps it.
func envelope(reg *contracts.Registry, e eventstore.Event, n Notification) (Envelope, error) {
	payload, err := json.Marshal(n.Payload)
	if err != nil {
		return Envelope{}, err
	}
	env := Envelope{Type: n.Type, IdempotencyKey: n.IdempotencyKey, OrganizationID: e.OrganizationID,
		SourceEventID: e.ID.String(), EmittedAt: e.RecordedAt, Payload: payload}
	if c, ok := reg.Get(n.Type); ok {
		env.Version, env.DataClassification, env.SensitiveFields = c.Version, c.DataClassification, c.SensitiveFields
		env.Recipients = Recipients{Mode: c.RecipientsMode, ExternalAddresses: c.ExternalAddresses}
	}
	if env.SensitiveFields == nil {
		env.SensitiveFields = []string{}
	}
	return env, reg.Validate(n.Type, n.IdempotencyKey, payload)
}
