// Package erasure is an organization's erasure of what one context holds
// (organizations.data.erase: the studio's, seed 002, and the design
// service's): the write model of the context's organization stream. It
// checks the confirmation and records each erasure, even of nothing (the
// request was made), in the context's own event: its type and payload are
// the context's (the design service counts files, the studio asset
// objects), the rule is one. commands/workspace.Erase runs it. Pure Go.
package erasure

import (
	"time"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
)

// Confirmation is the literal an erasure needs (seed 002).
const Confirmation = "ERASE"

// Payload is a context's record of an erasure: the objects its registry
// forgot, those of them with stored bytes (files), and when.
type Payload func(organizationID string, objects, files int, at time.Time) any

// Kind is one context's erasures: the event type that records them and its
// payload.
type Kind struct {
	eventType string
	payload   Payload
	fold      event.Fold[*Model]
}

// New is the erasures of a context recorded as eventType events.
func New(eventType string, payload Payload) *Kind {
	return &Kind{eventType: eventType, payload: payload, fold: event.Fold[*Model]{
		eventType: event.Mark(func(m *Model) { m.erasures++ }),
	}}
}

// Model is the write model of a context's organization stream.
type Model struct {
	kind     *Kind
	erasures int
}

// Load folds a context's organization stream.
func (k *Kind) Load(history []event.Recorded) (*Model, error) {
	return k.fold.Load(&Model{kind: k}, history)
}

// Erasures counts the organization's erasures.
func (m *Model) Erasures() int { return m.erasures }

// Erase records an erasure: the caller forgot the objects in the same
// transaction and deletes their files after it commits.
func (m *Model) Erase(organizationID, confirmation string, objects, files int, now time.Time) ([]event.Change, error) {
	if confirmation != Confirmation {
		return nil, errs.InvalidField("/confirmation", "must be the literal ERASE")
	}
	return []event.Change{event.New(m.kind.eventType, m.kind.payload(organizationID, objects, files, now))}, nil
}
