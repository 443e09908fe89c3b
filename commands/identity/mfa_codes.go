package identity

import (
	"context"
	"time"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	domain "github.com/platform/backend/domain/identity"
)

// TOTPIssuer names the platform in authenticator apps (otpauth issuer).
const TOTPIssuer = "Platform"

var errMFANeedsSession = errs.PermissionDenied("this action needs a signed-in user's session token")

// changedUnderUs: the factor changed between opening its secret and taking
// the stream lock (a concurrent enrollment, disable or reset).
var changedUnderUs = errs.Conflict("concurrent_modification", "multi-factor settings changed meanwhile; retry")

// openMFASecret opens a sealed TOTP secret of the user ("" opens to nil:
// the domain decides what a missing factor means).
func (h *Handlers) openMFASecret(ctx context.Context, userID, sealed string) ([]byte, error) {
	if sealed == "" {
		return nil, nil
	}
	if err := h.requireKeys(); err != nil {
		return nil, err
	}
	plain, err := h.keys.Open(ctx, userID, sealed)
	if err != nil {
		return nil, err
	}
	return domain.DecodeTOTPSecret(plain)
}

// backupCodeHash hashes a presented backup code for comparison. The user id
// salts it, so equal codes of two users never share a hash; the codes'
// 80 random bits make the fast hash safe (as for API keys).
func backupCodeHash(userID, code string) string {
	return HashSecret(userID + ":" + domain.NormalizeMFACode(code))
}

// activeUser loads the signed-in user behind a session principal.
func (h *Handlers) activeUser(ctx context.Context, p domain.Principal) (*domain.User, error) {
	if p.UserID == "" {
		return nil, errMFANeedsSession
	}
	u, err := h.loadUser(ctx, p.UserID)
	if err != nil {
		return nil, err
	}
	if !u.Active() {
		return nil, errNotFoundUser
	}
	return u, nil
}

// onUser runs one decision on a user's stream (tenant: the home
// organization). MFA commands never replay an earlier answer: secrets and
// codes are shown or checked once, so the idempotency key is dropped.
func onUser[T any](ctx context.Context, h *Handlers, m commands.Meta, u *domain.User,
	decide func(u *domain.User, now time.Time) ([]event.Change, T, error)) (commands.Result[T], error) {
	m.OrganizationID = u.State().OrganizationID
	m.IdempotencyKey = ""
	return commands.Run(ctx, h.store, m, domain.StreamUser, u.State().UserID,
		func(history []event.Recorded) ([]event.Change, T, error) {
			current, err := domain.LoadUser(history)
			if err != nil {
				var zero T
				return nil, zero, err
			}
			return decide(current, h.now())
		})
}

// MFAStatus is the signed-in user's factor state (never the secret).
type MFAStatus struct {
	UserID          string     `json:"user_id"`
	Enabled         bool       `json:"enabled"`
	Pending         bool       `json:"pending"`
	EnabledAt       *time.Time `json:"enabled_at,omitempty"`
	BackupCodesLeft int        `json:"backup_codes_left"`
	Methods         []string   `json:"methods"`
}

func mfaStatus(u *domain.User) MFAStatus {
	f := u.MFA()
	out := MFAStatus{UserID: u.State().UserID, Enabled: f.Enabled(), Pending: f.Pending(), BackupCodesLeft: f.BackupCodesLeft(), Methods: []string{}}
	if f.Enabled() {
		at := f.EnabledAt()
		out.EnabledAt = &at
		out.Methods = []string{domain.MFAMethodTOTP, domain.MFAMethodBackupCode}
	}
	return out
}
