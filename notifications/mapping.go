package notifications

import (
	"slices"
	"time"

	"github.com/platform/backend/eventstore"
)

// Mapping is a context's notification mapping, keyed by event type: what
// each type of the context emits. A type mapped to Silent deliberately emits
// nothing; a type missing from the table is a mistake the invariant test
// (every event type handled or ignored) finds.
type Mapping map[string]Mapper

// Silent marks an event type that emits no notification.
var Silent Mapper = nil

// MapAs builds a mapper for events whose payload decodes into P.
func MapAs[P any](f func(e eventstore.Event, p P) ([]Notification, error)) Mapper {
	return func(e eventstore.Event) ([]Notification, error) {
		p, err := eventstore.Decode[P](e)
		if err != nil {
			return nil, err
		}
		return f(e, p)
	}
}

// Map applies the table: nothing for silent and unknown types.
func (m Mapping) Map(e eventstore.Event) ([]Notification, error) {
	if f := m[e.Type]; f != nil {
		return f(e)
	}
	return nil, nil
}

// Types are the table's event types, sorted.
func (m Mapping) Types() []string {
	out := make([]string, 0, len(m))
	for t := range m {
		out = append(out, t)
	}
	slices.Sort(out)
	return out
}

// One is a single notification.
func One(typ, key string, payload map[string]any) []Notification {
	return []Notification{{Type: typ, IdempotencyKey: key, Payload: payload}}
}

// Timestamp writes a contract's date-time member.
func Timestamp(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }
