package identity

import (
	"context"
	"crypto/rand"
	"time"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/event"
	domain "github.com/platform/backend/domain/identity"
)

// MFAEnrollment is the answer of starting an enrollment: the secret, shown
// this once (the event keeps it sealed under the user's data key).
type MFAEnrollment struct {
	UserID     string `json:"user_id"`
	Secret     string `json:"secret"` // base32, no padding
	OTPAuthURI string `json:"otpauth_uri"`
	Issuer     string `json:"issuer"`
	Account    string `json:"account"`
	Algorithm  string `json:"algorithm"`
	Digits     int    `json:"digits"`
	Period     int    `json:"period"`
}

// StartMFAEnrollment is POST /api/me/mfa/totp: a fresh 20-byte TOTP secret
// for the signed-in user, pending until ConfirmMFA sees a valid code. A
// pending enrollment is replaced; an enabled factor must be disabled first.
func (h *Handlers) StartMFAEnrollment(ctx context.Context, m commands.Meta, p domain.Principal) (MFAEnrollment, error) {
	if err := h.requireKeys(); err != nil {
		return MFAEnrollment{}, err
	}
	u, err := h.activeUser(ctx, p)
	if err != nil {
		return MFAEnrollment{}, err
	}
	userID := u.State().UserID
	secret, err := domain.NewTOTPSecret(rand.Reader)
	if err != nil {
		return MFAEnrollment{}, err
	}
	sealed, err := h.keys.Seal(ctx, userID, secret)
	if err != nil {
		return MFAEnrollment{}, err
	}
	account, err := h.keys.Open(ctx, userID, u.State().Email)
	if err != nil || account == "" {
		account = userID // the label only helps the person tell entries apart
	}
	if _, err := onUser(ctx, h, m, u, func(u *domain.User, now time.Time) ([]event.Change, struct{}, error) {
		changes, err := u.StartMFAEnrollment(sealed, now)
		return changes, struct{}{}, err
	}); err != nil {
		return MFAEnrollment{}, err
	}
	return MFAEnrollment{UserID: userID, Secret: secret, OTPAuthURI: domain.TOTPURI(TOTPIssuer, account, secret), Issuer: TOTPIssuer,
		Account: account, Algorithm: "SHA1", Digits: domain.TOTPDigits, Period: domain.TOTPPeriod}, nil
}
