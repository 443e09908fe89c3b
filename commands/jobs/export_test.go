package jobs

import (
	"context"

	domain "github.com/platform/backend/domain/jobs"
)

// SetGroup puts a worker in a consumer group of its own (tests: two
// groups deliver every job to both workers).
func (w *Worker) SetGroup(suffix string) { w.group = suffix }

// ClaimAsDeadWorker claims a queued job's next attempt as a worker that then
// dies would: the lease runs, nobody heartbeats or records.
func ClaimAsDeadWorker(ctx context.Context, k Kind, organizationID, id string) (int, error) {
	j, err := k.kind().cmds.load(ctx, organizationID, k.Name(), id)
	if err != nil {
		return 0, err
	}
	a, err := k.kind().cmds.claim(ctx, k.kind(), j, j.Version(), "")
	if err != nil || a == nil {
		return 0, err
	}
	return a.number, nil
}

// LoadForTest reads a job from the write side.
func (c *Commands) LoadForTest(ctx context.Context, organizationID, kind, id string) (domain.Job, error) {
	return c.load(ctx, organizationID, kind, id)
}
