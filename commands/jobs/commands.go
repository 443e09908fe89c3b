package jobs

import (
	"context"
	"strconv"
	"sync"
	"time"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	domain "github.com/platform/backend/domain/jobs"
	"github.com/platform/backend/eventstore"
)

type eventChange = event.Change

// Commands are the commands on job streams, for every kind: the platform
// makes one (module.Platform.Jobs) and kinds are defined on it.
type Commands struct {
	store commands.Store
	now   func() time.Time

	mu sync.RWMutex
	// queued are the local workers by context: a job this process leaves
	// queued goes to its worker here at once, besides the log (the first
	// claim holds; the others find the version moved on).
	queued map[string]func(domain.Job, int64)
}

// NewCommands makes the job commands over an event store; now is the
// clock (nil: time.Now).
func NewCommands(store commands.Store, now func() time.Time) *Commands {
	return &Commands{store: store, now: commands.Clock(now), queued: map[string]func(domain.Job, int64){}}
}

// onQueued makes f the local worker of a context's queued jobs.
func (c *Commands) onQueued(context string, f func(domain.Job, int64)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.queued[context] = f
}

// execute runs a decision on a job's stream and answers the job after it.
func (c *Commands) execute(ctx context.Context, m commands.Meta, kind, id string, act func(*domain.Job) ([]event.Change, error),
	opts ...commands.Option) (commands.Result[domain.Job], error) {
	res, err := commands.Execute(ctx, c.store, m, domain.StreamType(domain.ContextOf(kind)), domain.StreamID(kind, id), domain.Load,
		act, func(j *domain.Job) domain.Job { return *j }, opts...)
	if err == nil && res.Value.State == domain.Queued && !res.Replayed {
		c.mu.RLock()
		f := c.queued[domain.ContextOf(kind)]
		c.mu.RUnlock()
		if f != nil {
			f(res.Value, res.Position.Version)
		}
	}
	return res, err
}

// head is a job stream's version (0: none).
func (c *Commands) head(ctx context.Context, streamID string) (int64, error) {
	heads, err := c.store.Heads(ctx, streamID)
	return heads[streamID], err
}

func (c *Commands) load(ctx context.Context, organizationID, kind, id string) (domain.Job, error) {
	history, err := c.store.Load(ctx, domain.StreamID(kind, id))
	if err != nil {
		return domain.Job{}, err
	}
	if len(history) == 0 || history[0].OrganizationID != organizationID {
		return domain.Job{}, errs.NotFound("job")
	}
	j, err := domain.Load(commands.Recorded(history))
	if err != nil {
		return domain.Job{}, err
	}
	return *j, nil
}

// systemMeta is the meta of the kernel's own commands on a job.
func systemMeta(j domain.Job, key, causation string) commands.Meta {
	m := commands.Meta{OrganizationID: j.OrganizationID, Actor: eventstore.Actor{ID: "jobs:" + j.Kind, Type: "system"},
		CorrelationID: domain.StreamID(j.Kind, j.ID), CausationID: causation}
	if key != "" {
		m.IdempotencyKey, m.RequestHash = key, eventstore.HashRequest([]byte(key))
	}
	return m
}

// claim starts the next attempt of a job a worker saw queued at version
// (the event it read, causation): 0 when nothing was claimed (the job moved
// on, or another worker claimed it from the same event: the same key).
func (c *Commands) claim(ctx context.Context, k *kind, seen domain.Job, version int64, causation string) (*attempt, error) {
	number := 0
	key := domain.StreamID(seen.Kind, seen.ID) + ":claim:v" + strconv.FormatInt(version, 10)
	res, err := c.execute(ctx, systemMeta(seen, key, causation), seen.Kind, seen.ID, func(j *domain.Job) ([]event.Change, error) {
		var changes []event.Change
		changes, number = j.Claim(version, k.lease, c.now())
		return changes, nil
	})
	if err != nil || res.Replayed || number == 0 {
		return nil, err
	}
	return &attempt{job: res.Value, number: number, claimedAt: *res.Value.ClaimedAt}, nil
}

// heartbeat records progress and extends the lease; mine is false once the
// attempt is no longer the job's running one.
func (c *Commands) heartbeat(ctx context.Context, k *kind, a *attempt, progress int, leaseUntil time.Time) (bool, error) {
	mine := false
	_, err := c.execute(ctx, systemMeta(a.job, "", ""), a.job.Kind, a.job.ID, func(j *domain.Job) ([]event.Change, error) {
		var changes []event.Change
		changes, mine = j.Heartbeat(a.number, progress, leaseUntil, c.now())
		return changes, nil
	})
	return mine, err
}

// record settles an attempt with its outcome.
func (c *Commands) record(ctx context.Context, k *kind, j domain.Job, number int, o domain.Outcome, m commands.Meta,
	opts ...commands.Option) (commands.Result[domain.Job], error) {
	return c.execute(ctx, m, j.Kind, j.ID, func(j *domain.Job) ([]event.Change, error) {
		return j.Record(number, o, k.retry, c.now())
	}, opts...)
}

// retryDue is the retry timer's command.
func (c *Commands) retryDue(ctx context.Context, m commands.Meta, kind, id string, number int, opts ...commands.Option) error {
	_, err := c.execute(ctx, m, kind, id, func(j *domain.Job) ([]event.Change, error) {
		return j.RetryDue(number, c.now()), nil
	}, opts...)
	return err
}
