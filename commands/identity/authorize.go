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

// AuthorizeUserAdmin allows changes to a user's account (delete, restore,
// erase) by the user itself, a platform-wide role, or an admin of the user's
// home organization whose role is not below the user's role there.
func (h *Handlers) AuthorizeUserAdmin(ctx context.Context, p domain.Principal, userID string) error {
	u, err := h.loadUser(ctx, userID)
	if err != nil {
		return err
	}
	if !u.Visible() {
		return errNotFoundUser
	}
	if p.PlatformWide() || (p.UserID != "" && p.UserID == userID) {
		return nil
	}
	home := u.State().OrganizationID
	org, err := h.loadOrganization(ctx, p.OrganizationID)
	if err != nil {
		return err
	}
	target, member := org.Member(userID)
	if p.OrganizationID != home && !member {
		return errNotFoundUser // another tenant's user
	}
	if p.OrganizationID != home {
		return errs.PermissionDenied("the user's account belongs to another organization")
	}
	if p.Type == "api_key" {
		return nil // the key holds the action's scope in the home organization
	}
	me, _ := org.Member(p.UserID)
	if !domain.IsAdminRole(me.Role) || domain.Rank(target.Role) > domain.Rank(me.Role) {
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
