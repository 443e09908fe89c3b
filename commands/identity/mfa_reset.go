package identity

import (
	"context"
	"time"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	domain "github.com/platform/backend/domain/identity"
)

// ResetMemberMFA is DELETE /api/organizations/{orgId}/members/{userId}/mfa:
// an organization admin turns a member's MFA off (a lost device), on the
// security rule. The factor belongs to the account, which the home
// organization administers: an admin of another organization the user
// merely belongs to gets 403. The member signs in with the password alone
// until enrolling again.
func (a *Access) ResetMemberMFA(ctx context.Context, m commands.Meta, p domain.Principal, organizationID, userID string) (MFAStatus, error) {
	u, err := a.authorizeMember(ctx, p, organizationID, userID, ruleMFAReset, true)
	if err != nil {
		return MFAStatus{}, err
	}
	if !p.PlatformWide() && u.State().OrganizationID != organizationID {
		return MFAStatus{}, errs.PermissionDenied("the user's account belongs to another organization")
	}
	if !u.Active() {
		return MFAStatus{}, errs.NotFound("member")
	}
	res, err := onUser(ctx, a.h, m, u, func(u *domain.User, now time.Time) ([]event.Change, MFAStatus, error) {
		changes, err := u.ResetMFA(p.ID, now)
		return changes, MFAStatus{UserID: userID, Methods: []string{}}, err
	})
	return res.Value, err
}
