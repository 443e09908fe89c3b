package contacts

import (
	"encoding/json"

	"github.com/platform/backend/domain/event"
)

type eventChange = event.Change

// applyChange folds a decided change as if it had been recorded.
func (s *ImportState) applyChange(c event.Change) error {
	raw, err := json.Marshal(c.Payload)
	if err != nil {
		return err
	}
	return s.apply(event.Recorded{Type: c.Type, SchemaVersion: 1, Payload: raw})
}
