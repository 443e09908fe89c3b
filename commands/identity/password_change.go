package identity

import (
	"context"

	"github.com/platform/backend/commands"
	domain "github.com/platform/backend/domain/identity"
)

// ChangePassword is POST /api/me/password by the signed-in user.
type ChangePassword struct {
	CurrentPassword string `json:"currentPassword"`
	NewPassword     string `json:"newPassword"`
}

// PasswordChanged: every earlier session of the user ended (the calling one
// included: the session epoch rose); Session is the caller's replacement,
// in the same organization, so the person who changed the password stays
// signed in on this device only.
type PasswordChanged struct {
	UserID        string         `json:"user_id"`
	SessionsEnded string         `json:"sessions_ended"` // "all_previous"
	Session       *SessionTokens `json:"session,omitempty"`
}

// ChangePassword verifies the current password, records the new one (argon2id,
// sealed under the user's key) and raises the session epoch in one append,
// then starts the caller's replacement session.
func (a *Access) ChangePassword(ctx context.Context, m commands.Meta, p domain.Principal, in ChangePassword) (PasswordChanged, error) {
	if p.Type != "user" || p.UserID == "" || p.SessionID == "" {
		return PasswordChanged{}, errNeedsSession
	}
	if err := checkNewPassword(in.NewPassword, "/newPassword"); err != nil {
		return PasswordChanged{}, err
	}
	if err := a.h.requireKeys(); err != nil {
		return PasswordChanged{}, err
	}
	u, err := a.h.loadUser(ctx, p.UserID)
	if err != nil {
		return PasswordChanged{}, err
	}
	if !u.Active() {
		return PasswordChanged{}, errNotFoundUser
	}
	// A stolen session must not guess the current password faster than
	// sign-in can: the same per-account backoff.
	account := u.State().EmailHash
	if err := a.h.attempts.attempt(ctx, account, a.now()); err != nil {
		return PasswordChanged{}, err
	}
	current := u.SealedPassword()
	stored := ""
	if current != "" {
		if stored, err = a.h.keys.Open(ctx, p.UserID, current); err != nil {
			return PasswordChanged{}, err
		}
	}
	if stored == "" { // a passwordless identity: use a password reset to set one
		domain.VerifyPassword(in.CurrentPassword, recoveryDummyHash())
		return PasswordChanged{}, errWrongPassword
	}
	if !domain.VerifyPassword(in.CurrentPassword, stored) {
		return PasswordChanged{}, errWrongPassword
	}
	if err := a.h.attempts.succeeded(ctx, account); err != nil {
		return PasswordChanged{}, err
	}
	sealed, err := a.h.sealNewPassword(ctx, p.UserID, in.NewPassword)
	if err != nil {
		return PasswordChanged{}, err
	}
	if err := a.h.setPasswordEndingSessions(ctx, m, p.UserID, sealed, current); err != nil {
		return PasswordChanged{}, err
	}
	out := PasswordChanged{UserID: p.UserID, SessionsEnded: "all_previous"}
	// The password is changed whatever happens next; a membership that ended
	// meanwhile only means no replacement session (the user signs in again).
	session, err := a.startSessionFor(ctx, m, p.UserID, p.OrganizationID, p.Service)
	if err != nil {
		a.log.Warn("password changed; no replacement session", "user_id", p.UserID, "err", err)
		return out, nil
	}
	out.Session = &session
	return out, nil
}
