package event

import "encoding/json"

// Fold is a write model's table, keyed by event type: what each type of
// its stream does to the model M (a pointer to it). It is the one way a
// write model is rebuilt from its history. A type the table does not name
// leaves the model as it is: a stream may carry events that only another
// model reads. A model that supports snapshots names SnapshotType too: the
// snapshot is then folded like the first event of the history.
type Fold[M any] map[string]Step[M]

// Step folds one recorded event into the model.
type Step[M any] func(m M, r Recorded) error

// Apply builds a step for events whose payload decodes into P.
func Apply[M, P any](f func(m M, p P)) Step[M] {
	return func(m M, r Recorded) error {
		p, err := Decode[P](r)
		if err != nil {
			return err
		}
		f(m, p)
		return nil
	}
}

// Mark builds a step for events whose type says everything the model
// needs (consumed, revoked): their payload is not read.
func Mark[M any](f func(m M)) Step[M] {
	return func(m M, _ Recorded) error {
		f(m)
		return nil
	}
}

// Load folds a history into m, in order, and returns it (the zero M with
// the first error).
func (f Fold[M]) Load(m M, history []Recorded) (M, error) {
	for _, r := range history {
		if err := f.apply(m, r); err != nil {
			var zero M
			return zero, err
		}
	}
	return m, nil
}

// ApplyChanges folds decided changes into m as the event store will record
// them (payloads through JSON), so a decision made of two steps can take
// the second from the state after the first.
func (f Fold[M]) ApplyChanges(m M, changes []Change) error {
	for _, c := range changes {
		payload, err := json.Marshal(c.Payload)
		if err != nil {
			return err
		}
		if err := f.apply(m, Recorded{Type: c.Type, SchemaVersion: max(c.SchemaVersion, 1), Payload: payload}); err != nil {
			return err
		}
	}
	return nil
}

// With is one table of f's steps and more's, for a model folded by tables
// kept in two files: a type both name runs f's step, then more's.
func (f Fold[M]) With(more Fold[M]) Fold[M] {
	out := make(Fold[M], len(f)+len(more))
	for typ, step := range f {
		out[typ] = step
	}
	for typ, step := range more {
		if first, ok := out[typ]; ok {
			out[typ] = func(m M, r Recorded) error {
				if err := first(m, r); err != nil {
					return err
				}
				return step(m, r)
			}
			continue
		}
		out[typ] = step
	}
	return out
}

func (f Fold[M]) apply(m M, r Recorded) error {
	if step := f[r.Type]; step != nil {
		return step(m, r)
	}
	return nil
}
