package commands

import (
	"context"
	"sync"

	"github.com/platform/backend/eventstore"
)

// A request may run several commands on several streams (a suggestion per
// network, a user and its organization, an import's batches); its answer's
// position must cover every one, or a read that waits for it may miss some
// of what the request wrote. Rather than each handler gathering positions
// by hand (and one forgetting), the HTTP kernel tracks the request's
// context, and Run records every command's position on it.

type trackedKey struct{}

type tracked struct {
	mu        sync.Mutex
	positions eventstore.Positions
}

// Track returns a context on which every command run records its position,
// and a function that answers them (each stream once, at the latest
// version), in the order the streams were first appended to.
func Track(ctx context.Context) (context.Context, func() eventstore.Positions) {
	t := &tracked{}
	return context.WithValue(ctx, trackedKey{}, t), func() eventstore.Positions {
		t.mu.Lock()
		defer t.mu.Unlock()
		return append(eventstore.Positions(nil), t.positions...)
	}
}

// record notes a command's position on a tracked context (nothing without).
func record(ctx context.Context, p eventstore.Position) {
	t, ok := ctx.Value(trackedKey{}).(*tracked)
	if !ok || p.StreamID == "" {
		return
	}
	t.mu.Lock()
	t.positions = t.positions.Add(p)
	t.mu.Unlock()
}
