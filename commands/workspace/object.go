package workspace

import (
	"context"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/eventstore"
)

// Object is one command on one object of a workspace: its stream, its
// write model, what the registry must say first (the guard), and what the
// registry records after (Writes, from the answer).
type Object[M, T any] struct {
	StreamType, ID string
	// What names the object in a 404 ("composition version").
	What   string
	Guard  *Guard
	Load   func([]event.Recorded) (M, error)
	Answer func(M) T
	Writes func(T) []eventstore.Write
}

// Run decides with the write model once the guard has read the registry
// in the command's transaction (commands.Execute): the guard's Check, then
// act, then the guard's Refused.
func (o Object[M, T]) Run(ctx context.Context, store commands.Store, m commands.Meta, act func(M) ([]event.Change, error)) (commands.Result[T], error) {
	opts := []commands.Option{commands.Prepared(o.Guard.Prepare)}
	if o.Writes != nil {
		opts = append(opts, commands.Also(o.Writes))
	}
	res, err := commands.Execute(ctx, store, m, o.StreamType, o.ID, o.Load, func(model M) ([]event.Change, error) {
		if err := o.Guard.Check(o.What); err != nil {
			return nil, err
		}
		changes, err := act(model)
		if err != nil {
			return nil, err
		}
		if err := o.Guard.Refused(); err != nil {
			return nil, err
		}
		return changes, nil
	}, o.Answer, opts...)
	return res, o.missing(err)
}

// missing makes the event store's "not found" of another organization's
// stream ("studio.project not found") the answer the guard gives an id
// that exists nowhere (the project first when one is named), so no answer
// tells another organization's id from a missing one.
func (o Object[M, T]) missing(err error) error {
	if e, ok := errs.As(err); ok && e.Kind == errs.KindNotFound && e.Message == o.StreamType+" not found" {
		if o.Guard.Project != "" {
			return errs.NotFound("project")
		}
		return errs.NotFound(o.What)
	}
	return err
}

// WithWrites is the object with what the registry records after the
// command (from its answer).
func (o Object[M, T]) WithWrites(writes func(T) []eventstore.Write) Object[M, T] {
	o.Writes = writes
	return o
}
