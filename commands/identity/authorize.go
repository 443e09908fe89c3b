package identity

import (
	"context"

	"github.com/platform/backend/domain/errs"
	domain "github.com/platform/backend/domain/identity"
)

// Authorization beyond the action's scope, decided on the write side.
// Another tenant's subject is indistinguishable from a missing one (404);
// a visible subject the principal may not change is 403.

// AuthorizeOrganization: only the principal's own organization, or any for
// the platform-wide roles.
func AuthorizeOrganization(p domain.Principal, organizationID string) error {
	if !p.SeesOrganization(organizationID) {
		return errs.NotFound("organization")
	}
	return nil
}

// authorizeUserAdmin allows changes to a user's account (delete,
// restore, erase) by the user itself, a platform-wide role, or its home
// organization. The home organization administers the account only
// while the user is still its member (a user who left it keeps its account
// to itself and its other organizations), and only by a user with an admin
// role not below the user's there, or by an API key holding users:manage,
// which acts as admin: never on an owner or super_admin.
func (h *Handlers) authorizeUserAdmin(ctx context.Context, p domain.Principal, u *domain.User) error {
	userID := u.State().UserID
	if p.PlatformWide() || (p.UserID != "" && p.UserID == userID) {
		return nil
	}
	org, err := h.loadOrganization(ctx, p.OrganizationID)
	if err != nil {
		return err
	}
	target, member := org.Member(userID)
	if p.OrganizationID != u.State().OrganizationID {
		if !member {
			return errNotFoundUser // another tenant's user
		}
		return errs.PermissionDenied("the user's account belongs to another organization")
	}
	if !member {
		return errs.PermissionDenied("the user is no longer a member of this organization: its account is no longer administered here")
	}
	rank := domain.Rank(domain.RoleAdmin)
	if p.Type == "api_key" {
		if !p.Allows(PermUsersManage) {
			return errs.PermissionDenied("the credential lacks permission " + PermUsersManage)
		}
	} else {
		me, _ := org.Member(p.UserID)
		if !domain.IsAdminRole(me.Role) {
			return errs.PermissionDenied("changing this user's account needs an admin role not below theirs")
		}
		rank = domain.Rank(me.Role)
	}
	if domain.Rank(target.Role) > rank {
		return errs.PermissionDenied("changing this user's account needs an admin role not below theirs")
	}
	return nil
}

// UserVisible: a user is visible to itself, to platform-wide roles, and to
// principals of an organization the user is a member of (write side).
func (h *Handlers) UserVisible(ctx context.Context, p domain.Principal, userID string) error {
	u, err := h.loadUser(ctx, userID)
	if err != nil {
		return err
	}
	if !u.Visible() {
		return errNotFoundUser
	}
	if p.PlatformWide() || p.UserID == userID || u.State().OrganizationID == p.OrganizationID {
		return nil
	}
	org, err := h.loadOrganization(ctx, p.OrganizationID)
	if err != nil {
		return err
	}
	if _, ok := org.Member(userID); ok {
		return nil
	}
	return errNotFoundUser
}
