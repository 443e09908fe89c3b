package identity

import (
	"context"
	"errors"
	"time"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	domain "github.com/platform/backend/domain/identity"
)

// mfaCheck is the recorded outcome of a code check: a wrong code appends a
// rejection (it counts toward the lockout) and is answered after the
// command commits.
type mfaCheck struct {
	Rejected bool   `json:"rejected,omitempty"`
	Method   string `json:"method,omitempty"`
}

// DisableMFA is DELETE /api/me/mfa: the signed-in user turns MFA off with a
// current TOTP code or an unused backup code, so a stolen session alone
// cannot remove the second factor.
func (h *Handlers) DisableMFA(ctx context.Context, m commands.Meta, p domain.Principal, code string) (MFAStatus, error) {
	u, err := h.activeUser(ctx, p)
	if err != nil {
		return MFAStatus{}, err
	}
	userID, sealed := u.State().UserID, u.MFA().SealedSecret()
	secret, err := h.openMFASecret(ctx, userID, sealed)
	if err != nil {
		return MFAStatus{}, err
	}
	res, err := onUser(ctx, h, m, u, func(u *domain.User, now time.Time) ([]event.Change, mfaCheck, error) {
		if u.MFA().SealedSecret() != sealed {
			return nil, mfaCheck{}, changedUnderUs
		}
		changes, err := u.DisableMFA(secret, code, backupCodeHash(userID, code), now)
		if errors.Is(err, domain.ErrMFACodeInvalid) {
			return u.RejectMFACode(now), mfaCheck{Rejected: true}, nil
		}
		return changes, mfaCheck{}, err
	})
	if err != nil {
		return MFAStatus{}, err
	}
	if res.Value.Rejected {
		// 422, not 401: the session is fine, the code is not.
		return MFAStatus{}, errs.InvalidField("/code", "is wrong, expired or already used")
	}
	return MFAStatus{UserID: userID, Methods: []string{}}, nil
}
