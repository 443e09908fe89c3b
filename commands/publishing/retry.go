package publishing

import (
	"context"
	"time"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/event"
	domain "github.com/platform/backend/domain/publishing"
	"github.com/platform/backend/providers/social"
)

func (p *Publisher) retryPolicy() domain.RetryPolicy {
	return domain.RetryPolicy{MaxAttempts: p.cfg.MaxAttempts, Backoff: p.cfg.RetryBackoff, MaxBackoff: p.cfg.RetryMaxBackoff}
}

// RetryDue is a target's retry timer's command: claim the failed target's
// next attempt (a new idempotency key) when it is still failed at the
// attempt that scheduled the timer, then send it.
func (p *Publisher) RetryDue(ctx context.Context, m commands.Meta, postID string, t domain.RetryTimer, opts ...commands.Option) error {
	post, claims, err := p.claim(ctx, m, postID, func(post *domain.Post) ([]event.Change, []domain.ClaimedTarget) {
		return post.RetryDue(t.TargetID, t.Attempt, p.h.now())
	}, opts...)
	if err != nil {
		return err
	}
	p.sendAll(ctx, m.OrganizationID, post, claims)
	return nil
}

// networkWait is how long a rate-limited network asked us to wait: its
// Retry-After, else the time until its reset (0 when it said neither).
func networkWait(e *social.Error, now time.Time) time.Duration {
	if e == nil {
		return 0
	}
	if e.RetryAfter > 0 {
		return e.RetryAfter
	}
	if !e.ResetAt.IsZero() {
		return max(e.ResetAt.Sub(now), 0)
	}
	return 0
}
