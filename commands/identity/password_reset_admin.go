package identity

import (
	"context"
	"time"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/errs"
	domain "github.com/platform/backend/domain/identity"
)

// PermSecurityManage guards the organization-scoped security routes; same-
// organization owners, super_admins and admins hold them anyway (seed 001,
// authentication rule 7: password reset is an org-scoped admin route).
const PermSecurityManage = "app_platform_auth.security:manage"

var RuleSecurityManage = domain.Rule{Permission: PermSecurityManage, OrgAdminRoute: true}

// MemberPasswordReset is POST /api/organizations/{orgId}/members/{userId}/password-reset.
type MemberPasswordReset struct {
	OrganizationID string `json:"orgId"`
	UserID         string `json:"userId"`
}

// PasswordResetSent: the token went to the member's own email address; the
// admin never sees it.
type PasswordResetSent struct {
	UserID    string    `json:"user_id"`
	ExpiresAt time.Time `json:"expires_at"`
	EmailSent bool      `json:"email_sent"`
}

// TriggerPasswordReset emails a reset token to a member of the
// organization. Another organization is 404; a member outside the
// organization is 404; a member ranked above the caller is 403. The member's
// sessions go on until the reset is completed (triggering is not a lockout).
func (a *Access) TriggerPasswordReset(ctx context.Context, m commands.Meta, p domain.Principal, in MemberPasswordReset) (PasswordResetSent, error) {
	if err := a.Authorize(ctx, p, in.OrganizationID, RuleSecurityManage); err != nil {
		return PasswordResetSent{}, err
	}
	o, err := a.h.loadOrganization(ctx, in.OrganizationID)
	if err != nil {
		return PasswordResetSent{}, err
	}
	if !o.Active() {
		return PasswordResetSent{}, errs.NotFound("organization")
	}
	target, member := o.Member(in.UserID)
	if !member {
		return PasswordResetSent{}, errNotMember
	}
	actor, err := a.h.ActorIn(ctx, p, in.OrganizationID)
	if err != nil {
		return PasswordResetSent{}, err
	}
	if actor.PlatformRole == "" && actor.UserID != in.UserID && domain.Rank(target.Role) > domain.Rank(actor.Role) {
		return PasswordResetSent{}, errs.PermissionDenied("a member above your own role cannot be sent a password reset")
	}
	u, err := a.h.loadUser(ctx, in.UserID)
	if err != nil {
		return PasswordResetSent{}, err
	}
	if !u.Active() {
		return PasswordResetSent{}, errNotFoundUser
	}
	expires, err := a.issuePasswordReset(ctx, m, u, p.ID)
	if err != nil {
		return PasswordResetSent{}, err
	}
	return PasswordResetSent{UserID: in.UserID, ExpiresAt: expires, EmailSent: true}, nil
}
