package httpapi

import (
	"context"
	"net/http"
	"reflect"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/principal"
)

// Command binds an action to a command handler: the call's input is decoded
// into In, the handler runs with the caller's meta, and its result is
// answered with the position of its events (read-your-writes). The action
// records In, so the invariant tests check its input schema against it.
func Command[In, Out any](a Action, f func(context.Context, commands.Meta, In) (commands.Result[Out], error)) Action {
	return bind(a, func(ctx context.Context, c *Call, in In) (Reply, error) {
		return FromResult(f(ctx, c.Meta, in))
	})
}

// CommandAs binds an action to a command handler that authorizes the caller
// itself (runtime authorization): it gets the caller's principal beside
// the meta, and is answered as Command answers.
func CommandAs[In, Out any](a Action, f func(context.Context, commands.Meta, principal.Principal, In) (commands.Result[Out], error)) Action {
	return bind(a, func(ctx context.Context, c *Call, in In) (Reply, error) {
		return FromResult(f(ctx, c.Meta, c.Principal, in))
	})
}

// Perform binds an action to a handler that acts for the caller and
// answers a value, without a position to wait for: its answer must not tell
// what it wrote (a sign-up mail, an invitation or an account), or it writes
// nothing a read model shows (a second factor, a session). It gets the meta
// (idempotency key) and the principal. (A command that writes several
// streams answers them all: the kernel tracks them, commands.Track.)
func Perform[In, Out any](a Action, f func(context.Context, commands.Meta, principal.Principal, In) (Out, error)) Action {
	return bind(a, func(ctx context.Context, c *Call, in In) (Reply, error) {
		out, err := f(ctx, c.Meta, c.Principal, in)
		if err != nil {
			return Reply{}, err
		}
		return OK(out), nil
	})
}

// Decoded binds an action whose answer is its own (a session with its
// cookie, a replay that must not show a position) to a handler that gets
// the call and its input decoded into In; the action records In like the
// other adapters.
func Decoded[In any](a Action, answer func(context.Context, *Call, In) (Reply, error)) Action {
	return bind(a, answer)
}

// NoInput is the input of an action bound with an adapter that takes
// nothing: its schema admits no member.
type NoInput struct{}

// NoStore marks an action whose answers show a secret (a new API key's
// token, an enrollment's seed; shown once): no browser or proxy cache may
// keep them.
func NoStore(a Action) Action {
	handle := a.Handle
	a.Handle = func(ctx context.Context, c *Call) (Reply, error) {
		r, err := handle(ctx, c)
		if err != nil {
			return r, err
		}
		if r.Header == nil {
			r.Header = http.Header{}
		}
		r.Header.Set("Cache-Control", "no-store")
		return r, nil
	}
	return a
}

// Query binds an action to a query on behalf of the caller: the input is
// decoded into In and the answer encoded as it is.
func Query[In, Out any](a Action, f func(context.Context, principal.Principal, In) (Out, error)) Action {
	return bind(a, func(ctx context.Context, c *Call, in In) (Reply, error) {
		out, err := f(ctx, c.Principal, in)
		if err != nil {
			return Reply{}, err
		}
		return OK(out), nil
	})
}

// bind is what every adapter does: decode the call's input into In, hand
// it to answer, and record In so the invariant tests check the action's
// input schema against it.
func bind[In any](a Action, answer func(context.Context, *Call, In) (Reply, error)) Action {
	a.Handle = func(ctx context.Context, c *Call) (Reply, error) {
		var in In
		if err := c.Decode(&in); err != nil {
			return Reply{}, err
		}
		return answer(ctx, c, in)
	}
	a.inputType = reflect.TypeFor[In]()
	return a
}

// Bytes binds an action whose body or answer is bytes, not one JSON value
// (a file in, a file out): the input (path and query) is decoded into In,
// and f reads the call's Body or answers a Reply.Content itself.
func Bytes[In any](a Action, f func(ctx context.Context, c *Call, in In) (Reply, error)) Action {
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
