package studio

import (
	"context"
	"time"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	domain "github.com/platform/backend/domain/studio"
	"github.com/platform/backend/eventstore"
)

// quota is one action's count against the workspace's monthly quota,
// taken in the command's transaction: the month's row is locked (a no-op
// upsert that returns the count), the decision refuses past the limit, and
// the count moves with the command's events.
type quota struct {
	org, workspace, action, period string
	limit                          int
	now                            time.Time

	used int // before this command
}

func (h *Handlers) quota(org, workspace, action string) *quota {
	limit := h.cfg.RenderQuota
	if action == domain.QuotaGenerations {
		limit = h.cfg.GenerationQuota
	}
	now := h.now()
	return &quota{org: org, workspace: workspace, action: action, period: domain.PeriodKey(now), limit: limit, now: now}
}

func (q *quota) prepare(ctx context.Context, tx eventstore.Tx) error {
	return tx.QueryRow(ctx, `INSERT INTO studio_quota_usage (workspace_id, action, period, organization_id) VALUES ($1, $2, $3, $4)
		ON CONFLICT (workspace_id, action, period) DO UPDATE SET used = studio_quota_usage.used RETURNING used`,
		q.workspace, q.action, q.period, q.org).Scan(&q.used)
}

// claim is the count after this command, or 429 quota_exceeded until the
// month ends.
func (q *quota) claim() (*domain.QuotaClaim, error) {
	if q.used+1 > q.limit {
		wait := int(domain.PeriodEnd(q.now).Sub(q.now).Seconds()) + 1
		return nil, &errs.Error{Kind: errs.KindRateLimited, Code: "quota_exceeded", RetryAfterSeconds: wait,
			Message: "the workspace's monthly quota of " + q.action + " is used up until the month ends"}
	}
	return &domain.QuotaClaim{Action: q.action, PeriodKey: q.period, Used: q.used + 1, Limit: q.limit}, nil
}

func (q *quota) count() eventstore.Write {
	return eventstore.Write{SQL: `UPDATE studio_quota_usage SET used = used + 1 WHERE workspace_id = $1 AND action = $2 AND period = $3`,
		Args: []any{q.workspace, q.action, q.period}}
}

// warnLogged claims the warning (warn) after a counted command answered:
// a failure is logged, not answered (the command succeeded; the next
// counted command of the month claims it again).
func (h *Handlers) warnLogged(ctx context.Context, m commands.Meta, workspaceID string, c *domain.QuotaClaim) {
	if err := h.warn(ctx, m, workspaceID, c); err != nil {
		h.log.Warn("studio: the month's quota warning could not be claimed", "workspace", workspaceID, "err", err)
	}
}

// warn claims the month's warning when a counted command crossed the
// warning share: once per workspace, action and month (the quota stream
// holds it), however often it is asked. It runs after the counted command
// committed; a crash between the two leaves the claim to the next counted
// command of the month, which still crosses the share.
func (h *Handlers) warn(ctx context.Context, m commands.Meta, workspaceID string, c *domain.QuotaClaim) error {
	if c == nil || !domain.Warns(c.Used, c.Limit, h.cfg.QuotaWarningPercent) {
		return nil
	}
	m.IdempotencyKey, m.RequestHash = "", ""
	warning := domain.WarningID(workspaceID, c.Action, c.PeriodKey)
	_, err := commands.Execute(ctx, h.store, m, domain.StreamQuota, domain.QuotaStreamID(workspaceID, c.Action, c.PeriodKey),
		domain.LoadQuota, func(qm *domain.QuotaModel) ([]event.Change, error) { return qm.ClaimWarning(workspaceID, *c, h.now()) },
		(*domain.QuotaModel).Claimed, commands.Also(func(bool) []eventstore.Write {
			// Registered like an object, so an erasure forgets it too.
			return []eventstore.Write{registry.Register(m.OrganizationID, workspaceID, KindWarning, warning, "", "")}
		}))
	return err
}
