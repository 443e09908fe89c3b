package commands

import (
	"context"

	"github.com/platform/backend/eventstore"
)

// Store is what command handlers need of an event store: one command on
// one stream in one transaction (Execute), reads of the write side outside
// a command (a stream, its latest snapshot, stream heads) and the holders
// of unique values. *eventstore.Store is the PostgreSQL one;
// eventstore/memstore keeps streams in memory, so handlers get unit tests.
type Store interface {
	Execute(ctx context.Context, cmd eventstore.Command, decide eventstore.Decider) (eventstore.Outcome, error)
	Load(ctx context.Context, streamID string) ([]eventstore.Event, error)
	LoadLatest(ctx context.Context, streamID string, snapshotSchema int) ([]eventstore.Event, error)
	Heads(ctx context.Context, streamIDs ...string) (map[string]int64, error)
	Holder(ctx context.Context, kind, value string) (string, error)
	Taken(ctx context.Context, kind, value string) (bool, error)
}

var _ Store = (*eventstore.Store)(nil)
