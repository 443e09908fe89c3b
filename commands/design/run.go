package design

import (
	"context"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/eventstore"
)

// object is one command on one object of a workspace: its stream, its
// write model, the registry check (guard) and what the registry records
// after (writes, from the answer).
type object[M, T any] struct {
	streamType, id, what string
	guard                *guard
	load                 func([]event.Recorded) (M, error)
	answer               func(M) T
	writes               func(T) []eventstore.Write
}

// run decides with the write model once the guard has read the registry
// in the command's transaction.
func (o object[M, T]) run(ctx context.Context, h *Handlers, m commands.Meta, act func(M) ([]event.Change, error)) (commands.Result[T], error) {
	opts := []commands.Option{commands.Prepared(o.guard.prepare)}
	if o.writes != nil {
		opts = append(opts, commands.Also(o.writes))
	}
	res, err := commands.Execute(ctx, h.store, m, o.streamType, o.id, o.load, act, o.answer, opts...)
	// Another organization's stream ("design.design not found") is
	// answered as an id that exists nowhere.
	if e, ok := errs.As(err); ok && e.Kind == errs.KindNotFound && e.Message == o.streamType+" not found" {
		return res, errs.NotFound(o.what)
	}
	return res, err
}
