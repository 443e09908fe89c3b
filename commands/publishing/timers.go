package publishing

import (
	"context"
	"encoding/json"

	"github.com/platform/backend/commands/timers"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	domain "github.com/platform/backend/domain/publishing"
)

// RegisterTimers maps the post timers to the publisher: at a post's
// publish time (or at once after a person's retry, or late after downtime)
// claim what is due; the items' jobs send it. The claim command fires the
// timer in its own transaction, so two processes never both claim it. The
// retry timer is the one targets had before item jobs retried themselves:
// a pending one still claims its item (the job is retried).
func (p *Publisher) RegisterTimers(r *timers.Registry) error {
	if err := r.Register(domain.TimerKindPublish, func(ctx context.Context, f timers.Fire) error {
		return p.PublishDue(ctx, f.Meta, f.StreamID, f.Option())
	}); err != nil {
		return err
	}
	return r.Register(domain.TimerKindRetry, func(ctx context.Context, f timers.Fire) error {
		var t domain.RetryTimer
		if err := json.Unmarshal(f.Payload, &t); err != nil {
			return errs.InvalidField("/payload", "not a retry timer") // parked: it would not change
		}
		_, err := p.h.runPost(ctx, f.Meta, f.StreamID, func(post *domain.Post) ([]event.Change, error) {
			changes, _ := post.RetryDue(t.TargetID, t.Attempt, p.h.now())
			return changes, nil
		}, f.Option())
		return err
	})
}
