package projections

import (
	"maps"
	"slices"

	"github.com/platform/backend/eventstore"
)

// Reducer turns one event into the writes it asks for.
type Reducer func(e eventstore.Event) ([]Statement, error)

// Reducers is a declarative projection's table, keyed by event type: what
// each type of the contexts it reads does. A type mapped to Ignore is
// deliberately without effect; a type missing from the table is a
// mistake the invariant test (every event type handled or ignored) finds.
type Reducers map[string]Reducer

// Ignore marks an event type a projection deliberately does not apply.
var Ignore Reducer = nil

// On builds a reducer for events whose payload decodes into P.
func On[P any](f func(e eventstore.Event, p P) ([]Statement, error)) Reducer {
	return func(e eventstore.Event) ([]Statement, error) {
		p, err := eventstore.Decode[P](e)
		if err != nil {
			return nil, err
		}
		return f(e, p)
	}
}

// Ignoring is the table with each of types the table does not name mapped
// to Ignore: a group of types every read model of a context passes over,
// declared once.
func (r Reducers) Ignoring(types ...string) Reducers {
	out := maps.Clone(r)
	for _, t := range types {
		if _, named := out[t]; !named {
			out[t] = Ignore
		}
	}
	return out
}

// Reduce applies the table: nil for ignored and unknown types.
func (r Reducers) Reduce(e eventstore.Event) ([]Statement, error) {
	if f := r[e.Type]; f != nil {
		return f(e)
	}
	return nil, nil
}

// Types are the table's event types, sorted.
func (r Reducers) Types() []string {
	out := make([]string, 0, len(r))
	for t := range r {
		out = append(out, t)
	}
	slices.Sort(out)
	return out
}

// Declared is a projection that declares its reducers as a table, so the
// invariant tests can check it against the domain's event types.
type Declared interface {
	Projection
	Reducers() Reducers
}

// EveryType is a projection that applies every event of its contexts the
// same way (the audit history), so it needs no table.
type EveryType interface {
	Projection
	HandlesEveryType()
}
