// Package event is what pure domain code emits and reads back: a type name,
// a schema version and a payload. It knows nothing of storage or transport.
package event

import "encoding/json"

// Change is a new event decided by domain code.
type Change struct {
	Type          string
	SchemaVersion int
	Payload       any
}

// Recorded is a stored event as domain code sees it when rebuilding state.
type Recorded struct {
	Type          string
	SchemaVersion int
	Version       int64 // position of the event in its stream, from 1
	Payload       json.RawMessage
}

// New builds a version-1 change.
func New(typ string, payload any) Change {
	return Change{Type: typ, SchemaVersion: 1, Payload: payload}
}

// Append returns history followed by changes as recorded events, so a
// decision's outcome can be rendered from the state after it.
func Append(history []Recorded, changes []Change) ([]Recorded, error) {
	out := append([]Recorded(nil), history...)
	for _, c := range changes {
		payload, err := json.Marshal(c.Payload)
		if err != nil {
			return nil, err
		}
		out = append(out, Recorded{Type: c.Type, SchemaVersion: max(c.SchemaVersion, 1), Version: int64(len(out) + 1), Payload: payload})
	}
	return out, nil
}
