package stripe

import (
	"bytes"
	"encoding/json"
	"time"
)

// Event is the envelope of a Stripe webhook event. The object is left as
// Stripe sent it: the gateway relays it, it does not interpret it.
type Event struct {
	ID         string // evt_...
	Type       string // "checkout.session.completed"
	Created    time.Time
	APIVersion string // the version the object is rendered in
	Livemode   bool
	// Account is the connected account the event happened in (Connect
	// webhooks); "" for the platform's own events.
	Account string
	// Object is data.object, the object the event is about.
	Object json.RawMessage
	// PreviousAttributes is data.previous_attributes on *.updated events.
	PreviousAttributes json.RawMessage
}

type eventWire struct {
	ID         string `json:"id"`
	Object     string `json:"object"`
	Type       string `json:"type"`
	Created    int64  `json:"created"`
	APIVersion string `json:"api_version"`
	Livemode   bool   `json:"livemode"`
	Account    string `json:"account"`
	Data       struct {
		Object             json.RawMessage `json:"object"`
		PreviousAttributes json.RawMessage `json:"previous_attributes"`
	} `json:"data"`
}

// parseEvent reads a verified payload: an object of type event, with an
// id, a type, a creation time and data.object.
func parseEvent(payload []byte) (*Event, error) {
	var w eventWire
	if err := json.Unmarshal(payload, &w); err != nil {
		return nil, &WebhookError{Reason: MalformedEvent, Detail: "not JSON"}
	}
	switch {
	case w.Object != "event":
		return nil, &WebhookError{Reason: MalformedEvent, Detail: "not an event"}
	case w.ID == "" || w.Type == "" || w.Created <= 0:
		return nil, &WebhookError{Reason: MalformedEvent, Detail: "id, type or created missing"}
	case !isJSONObject(w.Data.Object):
		return nil, &WebhookError{Reason: MalformedEvent, Detail: "data.object missing"}
	}
	e := &Event{ID: w.ID, Type: w.Type, Created: time.Unix(w.Created, 0).UTC(), APIVersion: w.APIVersion,
		Livemode: w.Livemode, Account: w.Account, Object: w.Data.Object}
	if len(w.Data.PreviousAttributes) > 0 && !bytes.Equal(w.Data.PreviousAttributes, []byte("null")) {
		e.PreviousAttributes = w.Data.PreviousAttributes
	}
	return e, nil
}
