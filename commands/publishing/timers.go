package publishing

import (
	"context"
	"encoding/json"

	"github.com/platform/backend/commands/timers"
	"github.com/platform/backend/domain/errs"
	domain "github.com/platform/backend/domain/publishing"
)

// RegisterTimers maps the post timers to the publisher: at a post's
// publish time (or at once after a retry or a requeue, or late after
// downtime) claim and send what is due; at a failed target's retry time,
// claim and send its next attempt. The claim command fires the timer in
// its own transaction, so two processes never both claim it.
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
		return p.RetryDue(ctx, f.Meta, f.StreamID, t, f.Option())
	})
}
