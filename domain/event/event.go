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
