package identity

import (
	"context"

	"github.com/platform/backend/domain/errs"
	domain "github.com/platform/backend/domain/identity"
)

var errNotMember = errs.NotFound("member")

// ActorIn resolves who the principal is in an organization, from the write
// side: a user's current role there, the platform role of a platform-wide
// principal, and for an API key of that organization the admin role, but
// only while its evaluated permissions hold users:manage: every caller
// changes memberships or invitations with it, and a key's scopes, not its
// organization, say what it may do. As admin a key never makes, changes
// or removes an owner (the ladder). Commands re-read a user's role inside
// their decision (Organization.ActorNow).
func (h *Handlers) ActorIn(ctx context.Context, p domain.Principal, organizationID string) (domain.Actor, error) {
	a := domain.Actor{UserID: p.UserID, PlatformRole: p.PlatformRole}
	switch {
	case p.Type == "api_key":
		if p.OrganizationID == organizationID && p.Allows(PermUsersManage) {
			a.Role = domain.RoleAdmin
		}
	case p.UserID != "":
		o, err := h.loadOrganization(ctx, organizationID)
		if err != nil {
			return domain.Actor{}, err
		}
		if m, ok := o.Member(p.UserID); ok {
			a.Role = m.Role
		}
	}
	return a, nil
}

var errNotFoundUser = errs.NotFound("user")
