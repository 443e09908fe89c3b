package publishing

import (
	"context"

	"github.com/platform/backend/commands/timers"
	domain "github.com/platform/backend/domain/publishing"
)

// RegisterTimers maps the publish timer to the publisher: at a post's
// publish time (or at once after a retry or a requeue, or late after
// downtime) claim and send what is due. The claim command fires the timer
// in its own transaction, so two processes never both claim it.
func (p *Publisher) RegisterTimers(r *timers.Registry) error {
	return r.Register(domain.TimerKindPublish, func(ctx context.Context, f timers.Fire) error {
		return p.PublishDue(ctx, f.Meta, f.StreamID, f.Option())
	})
}
