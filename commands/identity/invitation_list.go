package identity

import (
	"context"
	"errors"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/errs"
	domain "github.com/platform/backend/domain/identity"
)

// ListInvitations is GET /api/organizations/{orgId}/invitations?state=.
type ListInvitations struct {
	OrganizationID string `json:"orgId"`
	State          string `json:"state"` // pending (default) or all
}

// ListInvitations reads the organization's invitation stream (the write
// side: no read model exists for invitations, so an invitation is listed the
// moment it is made, and no code hash can reach a read model or an export).
// Emails are opened with the organization's key.
func (a *Access) ListInvitations(ctx context.Context, p domain.Principal, in ListInvitations) ([]InvitationView, error) {
	if err := a.Authorize(ctx, p, in.OrganizationID, RuleUsersManage); err != nil {
		return nil, err
	}
	if err := a.h.requireKeys(); err != nil {
		return nil, err
	}
	history, err := a.load(ctx, domain.InvitationStreamID(in.OrganizationID))
	if err != nil {
		return nil, err
	}
	if len(history) > 0 && history[0].OrganizationID != in.OrganizationID {
		return nil, errs.NotFound("organization") // not this tenant's stream
	}
	b, err := domain.LoadInvitations(commands.Recorded(history))
	if err != nil {
		return nil, err
	}
	now := a.now()
	list := b.List(now, in.State != "all")
	out := make([]InvitationView, len(list))
	for i, inv := range list {
		out[i] = invitationView(inv, now)
		addr, err := a.h.keys.Open(ctx, in.OrganizationID, inv.Email)
		if err != nil && !errors.Is(err, domain.ErrKeyDestroyed) {
			return nil, err
		}
		out[i].Email = addr
	}
	return out, nil
}
