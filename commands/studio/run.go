package studio

import (
	"context"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/eventstore"
)

// object is one command on one of a workspace's objects: its stream, its
// write model, what the registry must say first (the guard), and what the
// registry records after (writes, from the answer).
type object[M, T any] struct {
	streamType, id, what string
	guard                *guard
	load                 func([]event.Recorded) (M, error)
	answer               func(M) T
	writes               func(T) []eventstore.Write
}

// run decides with the write model once the guard has checked the registry
// in the command's transaction (commands.Execute).
func (o object[M, T]) run(ctx context.Context, h *Handlers, m commands.Meta, act func(M) ([]event.Change, error)) (commands.Result[T], error) {
	opts := []commands.Option{commands.Prepared(o.guard.prepare)}
	if o.writes != nil {
		opts = append(opts, commands.Also(o.writes))
	}
	res, err := commands.Execute(ctx, h.store, m, o.streamType, o.id, o.load, func(model M) ([]event.Change, error) {
		if err := o.guard.check(o.what); err != nil {
			return nil, err
		}
		changes, err := act(model)
		if err != nil {
			return nil, err
		}
		// What the input names is checked once the input itself passed.
		if err := o.guard.missing(); err != nil {
			return nil, err
		}
		return changes, nil
	}, o.answer, opts...)
	return res, o.missing(err)
}

// missing makes the event store's "not found" of another organization's
// stream ("studio.project not found") the answer the guard gives an id that
// exists nowhere (the project first when one is named), so no answer tells
// another organization's id from a missing one.
func (o object[M, T]) missing(err error) error {
	if e, ok := errs.As(err); ok && e.Kind == errs.KindNotFound && e.Message == o.streamType+" not found" {
		if o.guard.project != "" {
			return errs.NotFound("project")
		}
		return errs.NotFound(o.what)
	}
	return err
}
