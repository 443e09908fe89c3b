package identity

import (
	"context"
	"crypto/rand"
	"time"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/event"
	domain "github.com/platform/backend/domain/identity"
)

// MFAConfirmation is the answer of a confirmed enrollment: MFA is on, and
// the backup codes are shown this once (only their hashes are recorded).
type MFAConfirmation struct {
	MFAStatus
	BackupCodes []string `json:"backup_codes"`
}

// ConfirmMFA is POST /api/me/mfa/totp/confirm: a current code of the
// pending secret turns MFA on; its step counts as spent.
func (h *Handlers) ConfirmMFA(ctx context.Context, m commands.Meta, p domain.Principal, code string) (MFAConfirmation, error) {
	u, err := h.activeUser(ctx, p)
	if err != nil {
		return MFAConfirmation{}, err
	}
	userID, sealed := u.State().UserID, u.MFA().SealedPending()
	secret, err := h.openMFASecret(ctx, userID, sealed)
	if err != nil {
		return MFAConfirmation{}, err
	}
	codes, err := domain.NewBackupCodes(rand.Reader)
	if err != nil {
		return MFAConfirmation{}, err
	}
	hashes := make([]string, len(codes))
	for i, c := range codes {
		hashes[i] = backupCodeHash(userID, c)
	}
	res, err := onUser(ctx, h, m, u, func(u *domain.User, now time.Time) ([]event.Change, MFAStatus, error) {
		if u.MFA().SealedPending() != sealed && !u.MFA().Enabled() {
			return nil, MFAStatus{}, changedUnderUs
		}
		changes, err := u.ConfirmMFA(secret, code, hashes, now)
		if err != nil {
			return nil, MFAStatus{}, err
		}
		return changes, MFAStatus{UserID: userID, Enabled: true, EnabledAt: &now, BackupCodesLeft: len(hashes),
			Methods: []string{domain.MFAMethodTOTP, domain.MFAMethodBackupCode}}, nil
	})
	if err != nil {
		return MFAConfirmation{}, err
	}
	return MFAConfirmation{MFAStatus: res.Value, BackupCodes: codes}, nil
}
