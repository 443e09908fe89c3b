package identity

import (
	"context"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/event"
	domain "github.com/platform/backend/domain/identity"
	"github.com/platform/backend/eventstore"
)

// CompletePasswordReset is POST /password-reset/complete.
type CompletePasswordReset struct {
	Token       string `json:"token"`
	NewPassword string `json:"newPassword"`
}

// PasswordReset is the answer: the password is set and every session of the
// user has ended; the user signs in with the new password.
type PasswordReset struct {
	UserID        string `json:"user_id"`
	SessionsEnded string `json:"sessions_ended"` // "all"
}

// CompletePasswordReset uses the token (its stream lock makes that happen at
// most once), then records the new password and raises the session epoch.
// The password policy is checked before the token is used, so a rejected
// password does not spend it. If the second append fails (store outage), the
// token is spent and the user asks for another one.
func (a *Access) CompletePasswordReset(ctx context.Context, m commands.Meta, in CompletePasswordReset) (PasswordReset, error) {
	userID, secret, ok := parseToken(in.Token, PasswordResetPrefix)
	if !ok {
		return PasswordReset{}, domain.ErrResetTokenInvalid
	}
	if err := checkNewPassword(in.NewPassword, "/newPassword"); err != nil {
		return PasswordReset{}, err
	}
	u, err := a.h.loadUser(ctx, userID)
	if err != nil {
		return PasswordReset{}, err
	}
	if !u.Active() {
		return PasswordReset{}, domain.ErrResetTokenInvalid
	}
	hash := HashSecret(secret)
	// Check before hashing the password: a bad token costs no argon2 run.
	history, err := a.load(ctx, domain.PasswordResetStreamID(userID))
	if err != nil {
		return PasswordReset{}, err
	}
	r, err := domain.LoadPasswordReset(commands.Recorded(history))
	if err != nil {
		return PasswordReset{}, err
	}
	if err := r.Check(hash, a.now()); err != nil {
		return PasswordReset{}, err
	}
	sealed, err := a.h.sealNewPassword(ctx, userID, in.NewPassword)
	if err != nil {
		return PasswordReset{}, err
	}
	m.OrganizationID = u.State().OrganizationID
	m.Actor = eventstore.Actor{ID: userID, Type: "user"}
	m.IdempotencyKey = ""
	if _, err := commands.Run(ctx, a.h.store, m, domain.StreamPasswordReset, domain.PasswordResetStreamID(userID),
		func(history []event.Recorded) ([]event.Change, struct{}, error) {
			r, err := domain.LoadPasswordReset(history)
			if err != nil {
				return nil, struct{}{}, err
			}
			changes, err := r.Complete(hash, a.now())
			return changes, struct{}{}, err
		}); err != nil {
		return PasswordReset{}, err
	}
	if err := a.h.setPasswordEndingSessions(ctx, m, userID, sealed, ""); err != nil {
		return PasswordReset{}, err
	}
	// The reset proves the mailbox: it clears the password backoff, so
	// someone guessing at the account cannot keep its owner from signing in
	// with the new password.
	if err := a.h.attempts.succeeded(ctx, u.State().EmailHash); err != nil {
		a.log.Warn("password reset: the backoff was not cleared", "user_id", userID, "err", err)
	}
	return PasswordReset{UserID: userID, SessionsEnded: "all"}, nil
}
