package publishing

import (
	"context"
	"time"

	"github.com/platform/backend/domain/event"
	domain "github.com/platform/backend/domain/publishing"
	"github.com/platform/backend/providers/social"
)

// Stuck is a target whose attempt has no recorded outcome (publishing) or
// an unknown one (unconfirmed), as the read model lists them.
type Stuck struct {
	PostID   string
	TargetID string
}

// StuckTargets lists candidates for reconciliation; the write side decides.
type StuckTargets func(ctx context.Context, claimedBefore time.Time, limit int) ([]Stuck, error)

// ReconcileStuck settles every listed target it can (the reconciler leader
// calls it periodically).
func (p *Publisher) ReconcileStuck(ctx context.Context, list StuckTargets) {
	stuck, err := list(ctx, p.h.now().Add(-min(p.cfg.ClaimLease, 5*time.Second)), 200)
	if err != nil {
		p.log.Warn("publishing: stuck targets not listed", "err", err)
		return
	}
	for _, s := range stuck {
		if ctx.Err() != nil {
			return
		}
		if err := p.Reconcile(ctx, s.PostID, s.TargetID); err != nil {
			p.log.Info("publishing: not reconciled yet", "post", s.PostID, "target", s.TargetID, "err", err)
		}
	}
}

// Reconcile settles one target's attempt from the network before anything
// is sent again. A claim younger than the lease is in flight and left
// alone; an unconfirmed attempt is looked up once the network can show it.
// Found: published with the network's id. Not found: nothing is there, so
// the item is queued for one more attempt (failed after MaxAttempts).
// Pending: looked at again later.
func (p *Publisher) Reconcile(ctx context.Context, postID, targetID string) error {
	post, err := p.h.PostAny(ctx, postID)
	if err != nil || !post.Exists() {
		return err
	}
	t, ok := post.Target(targetID)
	if !ok || t.InFlight == nil || (t.State != domain.StatePublishing && t.State != domain.StateUnconfirmed) {
		return nil
	}
	claim := *t.InFlight
	now := p.h.now()
	if t.State == domain.StatePublishing && now.Sub(claim.ClaimedAt) < p.cfg.ClaimLease {
		return nil // in flight in a live process
	}
	net, ok := p.networks.Get(t.Network)
	if !ok {
		return errNoNetwork
	}
	if wait := net.Info().Capabilities.ReconcileAfter; now.Sub(claim.ClaimedAt) < wait {
		return nil
	}
	brand, err := p.h.BrandAny(ctx, post.BrandID)
	if err != nil {
		return err
	}
	var conn domain.Connection
	if claim.ConnectionID != nil {
		conn, ok = brand.Connection(*claim.ConnectionID)
	} else {
		conn, ok = brand.Resolve(t.Network, t.AccountID, t.PageID, post.AuthorID)
	}
	c := domain.ClaimedTarget{TargetID: t.TargetID, Network: t.Network, Claim: claim, Item: post.Items[claim.Item]}
	org := brand.HomeOrganizationID
	if !ok {
		// Nobody can look: the connection is gone. Fail without sending;
		// a person decides (retry once connected again).
		p.recordFailed(org, postID, c, domain.Failure{Code: "unverifiable", Reason: "the attempt's connection is gone", Retryable: true}, 0)
		return nil
	}
	connection, err := p.Token(ctx, brand, conn, net)
	if err != nil {
		return err
	}
	q := social.Query{Text: c.Item.Text, ReplyTo: deref(claim.ReplyTo), Since: claim.ClaimedAt, Pending: deref(claim.Pending),
		IdempotencyKey: claim.IdempotencyKey}
	if c.Item.Link != nil {
		q.Text = social.TextWithLink(social.Post{Text: c.Item.Text, Link: *c.Item.Link})
	}
	lctx, cancel := context.WithTimeout(ctx, p.cfg.SendTimeout)
	res, err := net.Lookup(lctx, connection, q)
	cancel()
	if err != nil {
		return err
	}
	p.log.Info("publishing: reconciled from the network", "post", postID, "target", targetID, "item", claim.Item,
		"attempt", claim.Attempt, "found", res.State)
	switch res.State {
	case social.LookupFound:
		p.recordPublished(org, postID, c, res.Post, conn.ConnectionID)
	case social.LookupFailed:
		reason := "processing_failed"
		if res.Err != nil && res.Err.Reason != "" {
			reason = res.Err.Reason
		}
		p.recordFailed(org, postID, c, domain.Failure{Code: domain.FailureRejected, Reason: reason, Retryable: false}, 0)
	case social.LookupNotFound:
		if claim.Tries() >= p.cfg.MaxAttempts {
			p.recordFailed(org, postID, c, domain.Failure{Code: "not_found", Reason: "the network did not get the post", Retryable: true}, 0)
			return nil
		}
		p.record(org, postID, c, "requeued", func(post *domain.Post) ([]event.Change, error) {
			return post.Requeue(c.TargetID, claim.Item, claim.Attempt, "reconciled_not_found", p.h.now())
		})
	}
	return nil
}
