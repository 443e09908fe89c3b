package eventstore

import (
	"encoding/json"
	"fmt"
	"sync"
)

// An Upcaster turns the payload of one schema version of an event type into
// the next version's. Old versions stay on the log forever; readers only ever
// see the newest shape.
type Upcaster func(payload json.RawMessage) (json.RawMessage, error)

type upcastKey struct {
	eventType string
	from      int
}

var (
	upcastMu  sync.RWMutex
	upcasters = map[upcastKey]Upcaster{}
)

// RegisterUpcaster registers the step from version `from` to `from+1`.
// Domain packages call it from init, next to their event constants.
func RegisterUpcaster(eventType string, from int, up Upcaster) {
	upcastMu.Lock()
	defer upcastMu.Unlock()
	upcasters[upcastKey{eventType, from}] = up
}

// Upcast applies every registered step from the event's version upward.
func Upcast(e Event) (Event, error) {
	upcastMu.RLock()
	defer upcastMu.RUnlock()
	for {
		up, ok := upcasters[upcastKey{e.Type, e.SchemaVersion}]
		if !ok {
			return e, nil
		}
		payload, err := up(e.Payload)
		if err != nil {
			return Event{}, fmt.Errorf("upcast %s v%d: %w", e.Type, e.SchemaVersion, err)
		}
		e.Payload = payload
		e.SchemaVersion++
	}
}
