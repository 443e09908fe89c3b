package commands

import (
	"context"

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
		if model, err = load(after); err != nil {
			return nil, zero, err
		}
		return changes, answer(model), nil
	}
}
