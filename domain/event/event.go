// Package event is what pure domain code emits and reads back: a type name,
// a schema version and a payload. It knows nothing of storage or transport.
package event

import (
	"encoding/json"
	"fmt"
	"time"
)

// Change is a new event decided by domain code.
type Change struct {
	Type          string
	SchemaVersion int
	Payload       any
	// Unique claims or releases values that must be unique across streams
	// (an organization slug, a user's email). The event store enforces them
	// in the command's transaction; a taken value fails the command with a
	// conflict whose code is "<kind>_taken".
	Unique []Unique
	// Timers schedule, move or cancel commands at a time (durable timers).
	// They ride on an event, like unique claims, so the log explains every
	// timer; the event store writes them in the command's transaction.
	Timers []Timer
}

// Timer is "at At, issue the command of Kind" (a kind registered with the
// timer scheduler). Name identifies the timer within the stream that
// schedules it: a later Timer of the same name moves it (new time, kind or
// payload), one with Cancel removes it. Only that stream can touch it.
type Timer struct {
	Name    string
	Kind    string
	At      time.Time
	Payload any // the kind's input, encoded as JSON; nil for none
	Cancel  bool
}

// ScheduleTimer builds a Timer that fires at.
func ScheduleTimer(name, kind string, at time.Time, payload any) Timer {
	return Timer{Name: name, Kind: kind, At: at, Payload: payload}
}

// CancelTimer builds a Timer that cancels the stream's timer of that name
// (nothing when there is none or it fired already).
func CancelTimer(name string) Timer { return Timer{Name: name, Cancel: true} }

// Unique is one claim on a value of a kind (for example kind "slug").
// Release frees a value the stream holds (rename, permanent delete).
type Unique struct {
	Kind    string
	Value   string
	Release bool
}

// SnapshotType marks a Recorded that is not an event but a write model's
// saved state at Version: loaders that support snapshots start from it.
const SnapshotType = "$snapshot"

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
	version := int64(0)
	if len(history) > 0 {
		version = history[len(history)-1].Version // a snapshot stands for the events up to its version
	}
	for _, c := range changes {
		payload, err := json.Marshal(c.Payload)
		if err != nil {
			return nil, err
		}
		version++
		out = append(out, Recorded{Type: c.Type, SchemaVersion: max(c.SchemaVersion, 1), Version: version, Payload: payload})
	}
	return out, nil
}

// Decode reads a recorded event's payload into its typed struct: the one
// way write models read a payload.
func Decode[T any](r Recorded) (T, error) {
	var p T
	if err := json.Unmarshal(r.Payload, &p); err != nil {
		return p, fmt.Errorf("decode %s payload: %w", r.Type, err)
	}
	return p, nil
}
