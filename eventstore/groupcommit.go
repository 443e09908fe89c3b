package eventstore

import (
	"context"

	"github.com/platform/backend/internal/groupcommit"
)

// GroupCommit executes the commands that concurrent callers issue in
// shared transactions (ExecuteBatch) with shared writes: Store.Execute
// already groups every command this way; a GroupCommit of its own is for
// commands whose transactions also write rows many of them change
// (SharedWrites: the gateway's settles sum the budgets once a transaction).
// While one transaction runs, the commands that arrive queue, and the next
// transaction takes them all. A caller's Execute returns once its own
// command has committed (or failed), so an answer still means durable. A
// lone command runs at once: there is no timer to wait for.
type GroupCommit struct {
	q *groupcommit.Queue[BatchItem, BatchResult]
}

// maxBatch bounds one transaction of a group commit: past it the
// transaction's locks are held for longer than the commit it saves.
const maxBatch = 64

// NewGroupCommit makes a group commit over the store; shared, when set,
// adds each transaction's shared writes (SharedWrites).
func NewGroupCommit(s *Store, shared SharedWrites) *GroupCommit {
	return &GroupCommit{q: groupcommit.New(func(ctx context.Context, items []BatchItem) []BatchResult {
		return s.ExecuteBatch(ctx, items, shared)
	}, maxBatch)}
}

// Execute runs the command in the next shared transaction and returns its
// own result, as Store.Execute would. It waits for that transaction even
// when ctx ends meanwhile: the command may be committing.
func (g *GroupCommit) Execute(ctx context.Context, cmd Command, decide Decider) (Outcome, error) {
	r, err := g.q.Do(ctx, BatchItem{Command: cmd, Decide: decide})
	if err != nil {
		return Outcome{}, err
	}
	return r.Outcome, r.Err
}
