package identity

import (
	"context"

	"github.com/platform/backend/domain/errs"
	domain "github.com/platform/backend/domain/identity"
)

// Rules of the organization-scoped security routes. Both are organization
// admin routes (seed 001, authentication rule 7: sessions and security), so
// same-organization owner, super_admin and admin pass whatever their bundle
// says. The MFA reset shares app_platform_auth.security:manage with the
// admin password reset (password_reset_admin.go).
const PermSessionsManage = "app_platform_auth.sessions:manage"

var (
	RuleSessionsManage = domain.Rule{Permission: PermSessionsManage, OrgAdminRoute: true}
	ruleMFAReset       = domain.Rule{Permission: "app_platform_auth.security:manage", OrgAdminRoute: true}
)

// authorizeMember applies the rule on the organization (another tenant's is
// 404, a missing permission 403), then requires the user to be a member of
// it on the write side (404 otherwise, like another tenant's user). For a
// change (mutate), a user principal must not rank below the member: an
// admin neither ends an owner's sessions nor resets an owner's factor, the
// ladder membership changes follow. API keys holding the permission act as
// admin; platform roles pass.
func (a *Access) authorizeMember(ctx context.Context, p domain.Principal, organizationID, userID string, r domain.Rule,
	mutate bool) (*domain.User, error) {
	if err := a.Authorize(ctx, p, organizationID, r); err != nil {
		return nil, err
	}
	org, err := a.h.loadOrganization(ctx, organizationID)
	if err != nil {
		return nil, err
	}
	target, member := org.Member(userID)
	if !org.Visible() || !member {
		return nil, errs.NotFound("member")
	}
	u, err := a.h.loadUser(ctx, userID)
	if err != nil {
		return nil, err
	}
	if !u.Visible() {
		return nil, errs.NotFound("member")
	}
	if !mutate || p.PlatformWide() || p.UserID == userID {
		return u, nil
	}
	rank := domain.Rank(domain.RoleAdmin) // API keys
	if p.Type == "user" {
		me, _ := org.Member(p.UserID)
		rank = domain.Rank(me.Role)
	}
	if domain.Rank(target.Role) > rank {
		return nil, errs.PermissionDenied("the member's role is above yours")
	}
	return u, nil
}
