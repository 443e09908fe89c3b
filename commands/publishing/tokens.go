package publishing

import (
	"context"
	"time"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/event"
	domain "github.com/platform/backend/domain/publishing"
	"github.com/platform/backend/providers/outcome"
	"github.com/platform/backend/providers/social"
)

// Token opens a connection's tokens and refreshes them when they expire
// within RefreshBefore. A refresh that fails for a transient reason keeps
// the connection (and the old token while it is valid); only a revoked
// grant marks the connection for reconnecting.
func (p *Publisher) Token(ctx context.Context, brand *domain.Brand, conn domain.Connection, net social.Network) (social.Connection, error) {
	c, err := p.creds.Load(ctx, conn.ConnectionID)
	if err != nil {
		return social.Connection{}, err
	}
	now := p.h.now()
	if c.Token.Expiry.IsZero() || c.Token.Expiry.After(now.Add(p.cfg.RefreshBefore)) || !c.Token.Refreshable(now) {
		return c, nil
	}
	return p.refresh(ctx, brand, conn, net, c)
}

func (p *Publisher) refresh(ctx context.Context, brand *domain.Brand, conn domain.Connection, net social.Network, c social.Connection) (social.Connection, error) {
	now := p.h.now()
	tok, err := net.Refresh(ctx, c.Token)
	key := "refresh:" + conn.ConnectionID + ":" + c.Token.Expiry.UTC().Format(time.RFC3339Nano)
	m := systemMeta(brand.HomeOrganizationID, key)
	if err != nil {
		transient := outcome.Of(err) != outcome.Unauthorized
		reason := "refresh_failed"
		if se, ok := social.AsError(err); ok && se.Reason != "" {
			reason = se.Reason
		}
		m.IdempotencyKey, m.RequestHash = "", ""
		if _, rerr := p.h.runBrand(ctx, m, brand.BrandID, func(b *domain.Brand) ([]event.Change, error) {
			return b.RefreshFailed(conn.ConnectionID, reason, transient, now)
		}); rerr != nil {
			p.log.Warn("publishing: refresh failure not recorded", "connection", conn.ConnectionID, "err", rerr)
		}
		if transient && c.Token.Valid(now) {
			return c, nil // the old token still works
		}
		return social.Connection{}, err
	}
	if tok.RefreshToken == "" {
		tok.RefreshToken = c.Token.RefreshToken // networks that do not rotate keep the old one
	}
	if tok.Scopes == nil {
		tok.Scopes = c.Token.Scopes
	}
	c.Token = tok
	if err := p.creds.Save(ctx, brand.HomeOrganizationID, brand.BrandID, conn.ConnectionID, conn.Network, c); err != nil {
		return social.Connection{}, err
	}
	var until *time.Time
	if !tok.Expiry.IsZero() {
		e := tok.Expiry.UTC()
		until = &e
	}
	if _, err := p.h.runBrand(ctx, m, brand.BrandID, func(b *domain.Brand) ([]event.Change, error) {
		return b.Refreshed(conn.ConnectionID, until, tok.Scopes, tok.Refreshable(now), now)
	}); err != nil {
		p.log.Warn("publishing: refresh not recorded (the token is stored)", "connection", conn.ConnectionID, "err", err)
	}
	return c, nil
}

// RefreshExpiring renews every token that expires within RefreshBefore
// (the refresher leader calls it periodically).
func (p *Publisher) RefreshExpiring(ctx context.Context) {
	list, err := p.creds.Expiring(ctx, p.h.now().Add(p.cfg.RefreshBefore), 100)
	if err != nil {
		p.log.Warn("publishing: expiring tokens not listed", "err", err)
		return
	}
	for _, e := range list {
		net, ok := p.networks.Get(e.Network)
		if !ok {
			continue
		}
		brand, err := p.h.BrandAny(ctx, e.BrandID)
		if err != nil {
			continue
		}
		conn, ok := brand.Connection(e.ConnectionID)
		if !ok || conn.Status != domain.ConnectionActive {
			continue
		}
		c, err := p.creds.Load(ctx, e.ConnectionID)
		if err != nil || !c.Token.Refreshable(p.h.now()) {
			continue
		}
		if _, err := p.refresh(ctx, brand, conn, net, c); err != nil {
			p.log.Info("publishing: token refresh failed", "connection", e.ConnectionID, "err", err)
		}
	}
}

var _ = commands.Meta{}
