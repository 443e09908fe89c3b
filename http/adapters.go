package httpapi

import (
	"context"
	"reflect"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/principal"
)

// Command binds an action to a command handler: the call's input is decoded
// into In, the handler runs with the caller's meta, and its result is
// answered with the position of its events (read-your-writes). The action
// records In, so the invariant tests check its input schema against it.
func Command[In, Out any](a Action, f func(context.Context, commands.Meta, In) (commands.Result[Out], error)) Action {
	a.Handle = func(ctx context.Context, c *Call) (Reply, error) {
		var in In
		if err := c.Decode(&in); err != nil {
			return Reply{}, err
		}
		return FromResult(f(ctx, c.Meta, in))
	}
	a.inputType = reflect.TypeFor[In]()
	return a
}

// Query binds an action to a query on behalf of the caller: the input is
// decoded into In and the answer encoded as it is.
func Query[In, Out any](a Action, f func(context.Context, principal.Principal, In) (Out, error)) Action {
	a.Handle = func(ctx context.Context, c *Call) (Reply, error) {
		var in In
		if err := c.Decode(&in); err != nil {
			return Reply{}, err
		}
		out, err := f(ctx, c.Principal, in)
		if err != nil {
			return Reply{}, err
		}
		return OK(out), nil
	}
	a.inputType = reflect.TypeFor[In]()
	return a
}

// Streamed binds an action whose answer or body is not one JSON value (a file
// in, a file out): the input (path and query) is decoded into In, and f
// reads the call's Body or answers a Reply.Stream itself.
func Streamed[In any](a Action, f func(ctx context.Context, c *Call, in In) (Reply, error)) Action {
	a.Handle = func(ctx context.Context, c *Call) (Reply, error) {
		var in In
		if err := c.Decode(&in); err != nil {
			return Reply{}, err
		}
		return f(ctx, c, in)
	}
	a.inputType = reflect.TypeFor[In]()
	return a
}

// InputType is the Go type the action decodes its input into, when it is
// bound with Command or Query (nil for a handler written by hand).
func (a Action) InputType() reflect.Type { return a.inputType }
