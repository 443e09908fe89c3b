package identity

import (
	"context"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/event"
	domain "github.com/platform/backend/domain/identity"
)

// SetMember is a role change (or the first membership) of a user in an
// organization: PUT /api/organizations/{orgId}/members/{userId}.
type SetMember struct {
	OrganizationID string `json:"orgId"`
	UserID         string `json:"userId"`
	Role           string `json:"role"`
	PlatformRole   string `json:"platformRole"`
}

// MemberState is a membership as the command leaves it.
type MemberState struct {
	OrganizationID string `json:"organization_id"`
	domain.Member
}

// ChangeMemberRole changes an existing member's role. The new role is on the
// organization's stream, which /validate reads on every call: the member's
// next request already carries it.
func (h *Handlers) ChangeMemberRole(ctx context.Context, m commands.Meta, actor domain.Actor, in SetMember) (commands.Result[MemberState], error) {
	m.OrganizationID = in.OrganizationID
	return commands.Run(ctx, h.store, m, domain.StreamOrganization, in.OrganizationID,
		func(history []event.Recorded) ([]event.Change, MemberState, error) {
			o, err := domain.LoadOrganization(history)
			if err != nil {
				return nil, MemberState{}, err
			}
			if _, ok := o.Member(in.UserID); !ok || !o.Visible() {
				return nil, MemberState{}, errNotMember
			}
			return h.decideMember(o, actor, domain.Member{UserID: in.UserID, Role: in.Role, PlatformRole: in.PlatformRole})
		})
}

// setMember adds or changes a membership in m's organization.
func (h *Handlers) setMember(ctx context.Context, m commands.Meta, actor domain.Actor, next domain.Member) (commands.Result[MemberState], error) {
	return commands.Run(ctx, h.store, m, domain.StreamOrganization, m.OrganizationID,
		func(history []event.Recorded) ([]event.Change, MemberState, error) {
			o, err := domain.LoadOrganization(history)
			if err != nil {
				return nil, MemberState{}, err
			}
			return h.decideMember(o, actor, next)
		})
}

// decideMember runs under the organization stream's lock: the actor's role
// is re-read there, so an actor demoted since it was resolved (ActorIn runs
// before the command) cannot use the old role.
func (h *Handlers) decideMember(o *domain.Organization, actor domain.Actor, next domain.Member) ([]event.Change, MemberState, error) {
	changes, err := o.SetMember(o.ActorNow(actor), next, h.now())
	if err != nil {
		return nil, MemberState{}, err
	}
	next.Role = domain.RoleOrDefault(next.Role)
	return changes, MemberState{OrganizationID: o.State().OrganizationID, Member: next}, nil
}

// RemoveMember ends a membership: DELETE /api/organizations/{orgId}/members/{userId}.
func (h *Handlers) RemoveMember(ctx context.Context, m commands.Meta, actor domain.Actor, organizationID, userID string) (commands.Result[MemberState], error) {
	m.OrganizationID = organizationID
	return commands.Run(ctx, h.store, m, domain.StreamOrganization, organizationID,
		func(history []event.Recorded) ([]event.Change, MemberState, error) {
			o, err := domain.LoadOrganization(history)
			if err != nil {
				return nil, MemberState{}, err
			}
			changes, err := o.RemoveMember(o.ActorNow(actor), userID, h.now()) // the current role, as in decideMember
			if err != nil {
				return nil, MemberState{}, err
			}
			return changes, MemberState{OrganizationID: organizationID, Member: domain.Member{UserID: userID}}, nil
		})
}
