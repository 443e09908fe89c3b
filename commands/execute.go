package commands

import (
	"context"
	"encoding/json"

	"github.com/platform/backend/domain/event"
)

// Execute is the usual shape of a command on one stream: load the write
// model from the stream's history, let it act, and answer from the model
// as the new events leave it, so a replayed idempotent request answers
// exactly as the first one did. Commands of another shape (several
// streams, an answer that is not the model's) call Run with a Decide of
// their own.
func Execute[M, T any](ctx context.Context, store Store, m Meta, streamType, streamID string,
	load func([]event.Recorded) (M, error), act func(M) ([]event.Change, error), answer func(M) T, opts ...Option) (Result[T], error) {
	return Run(ctx, store, m, streamType, streamID, decision(load, act, answer), opts...)
}

// decision is Execute's Decide: pure, so the store may run it again.
func decision[M, T any](load func([]event.Recorded) (M, error), act func(M) ([]event.Change, error), answer func(M) T) Decide[T] {
	return func(history []event.Recorded) ([]event.Change, T, error) {
		var zero T
		model, err := load(history)
		if err != nil {
			return nil, zero, err
		}
		changes, err := act(model)
		if err != nil {
			return nil, zero, err
		}
		after, err := event.Append(history, changes)
		if err != nil {
			return nil, zero, err
		}
		if c, ok := any(model).(Continuable); ok {
			err = c.Continue(after[len(history):])
		} else {
			model, err = load(after)
		}
		if err != nil {
			return nil, zero, err
		}
		return encoded(changes, after[len(history):]), answer(model), nil
	}
}

// Continuable is a write model that folds more of its stream onto itself,
// its loader's fold continued: Execute answers from the model it acted on
// with the new events folded in, instead of loading the whole history again
// (the snapshot decoded twice a command). A model that implements it must
// come out of act as it went in: act decides, only events change the model
// (TestContinuedModelAnswersAsReloaded).
type Continuable interface {
	Continue(more []event.Recorded) error
}

// encoded is changes with each payload replaced by its encoding, which
// event.Append just made: the store writes it as it is (a json.RawMessage
// encodes to itself) instead of encoding the payload a second time.
func encoded(changes []event.Change, recorded []event.Recorded) []event.Change {
	out := make([]event.Change, len(changes))
	for i, c := range changes {
		c.Payload = json.RawMessage(recorded[i].Payload)
		out[i] = c
	}
	return out
}
