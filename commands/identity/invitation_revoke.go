package identity

import (
	"context"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/event"
	domain "github.com/platform/backend/domain/identity"
)

// RevokeInvitation is DELETE /api/organizations/{orgId}/invitations/{invitationId}.
type RevokeInvitation struct {
	OrganizationID string `json:"orgId"`
	InvitationID   string `json:"invitationId"`
}

// RevokeInvitation ends a pending invitation: its code fails from then on.
// Revoking twice changes nothing; an accepted invitation is 409 (remove the
// member instead); an invitation to a role above the caller's is 403.
func (a *Access) RevokeInvitation(ctx context.Context, m commands.Meta, p domain.Principal, in RevokeInvitation) (commands.Result[InvitationView], error) {
	if err := a.Authorize(ctx, p, in.OrganizationID, RuleUsersManage); err != nil {
		return commands.Result[InvitationView]{}, err
	}
	actor, err := a.h.ActorIn(ctx, p, in.OrganizationID)
	if err != nil {
		return commands.Result[InvitationView]{}, err
	}
	return a.revokeInvitation(ctx, m, actor, in.OrganizationID, in.InvitationID, p.ID)
}

func (a *Access) revokeInvitation(ctx context.Context, m commands.Meta, actor domain.Actor, orgID, id, by string) (commands.Result[InvitationView], error) {
	m.OrganizationID = orgID
	return commands.Execute(ctx, a.h.store, m, domain.StreamInvitation, domain.InvitationStreamID(orgID), domain.LoadInvitations,
		func(b *domain.Invitations) ([]event.Change, error) { return b.Revoke(actor, id, by, a.now()) },
		func(b *domain.Invitations) InvitationView {
			i, _ := b.Get(id)
			return invitationView(i, a.now())
		})
}
