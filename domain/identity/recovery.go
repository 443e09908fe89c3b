package identity

import (
	"crypto/subtle"
	"time"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
)

// Password reset. One stream per user (PasswordResetStreamID) holds the
// user's reset requests: a new request supersedes every earlier token, and
// completing takes the stream lock, so a token is used at most once however
// many requests race for it. Only the SHA-256 hash of a token's secret is
// stored. The stream's tenant is the user's home organization.
const (
	StreamPasswordReset = "identity.password_reset"

	PasswordResetRequested = "identity.password_reset.requested"
	PasswordResetCompleted = "identity.password_reset.completed"
)

// Reset limits ("not shown" in seed 001; ours). The window cap bounds the
// email a stranger can make the platform send to one address.
const (
	PasswordResetTTL           = 30 * time.Minute
	PasswordResetWindow        = time.Hour
	PasswordResetMaxPerWindow  = 5
	PasswordResetRequestedSelf = "self" // RequestedBy of the self-service route
)

// PasswordResetStreamID is the reset stream of a user.
func PasswordResetStreamID(userID string) string { return "password_reset:" + userID }

// PasswordResetRequestedV1: SecretHash is the SHA-256 of the token's secret;
// RequestedBy is "self" or the principal id of the admin who triggered it.
type PasswordResetRequestedV1 struct {
	UserID      string    `json:"user_id"`
	TokenID     string    `json:"token_id"`
	SecretHash  string    `json:"secret_hash"`
	RequestedBy string    `json:"requested_by"`
	ExpiresAt   time.Time `json:"expires_at"`
	At          time.Time `json:"at"`
}

type PasswordResetCompletedV1 struct {
	UserID  string    `json:"user_id"`
	TokenID string    `json:"token_id"`
	At      time.Time `json:"at"`
}

// PasswordReset is the write model of one user's reset stream.
type PasswordReset struct {
	pending   *PasswordResetRequestedV1 // the latest token, until completed
	requested []time.Time
}

func LoadPasswordReset(history []event.Recorded) (*PasswordReset, error) {
	return passwordResetFold.Load(&PasswordReset{}, history)
}

var passwordResetFold = event.Fold[*PasswordReset]{
	PasswordResetRequested: event.Apply(func(r *PasswordReset, p PasswordResetRequestedV1) {
		r.pending = &p
		r.requested = append(r.requested, p.At)
	}),
	PasswordResetCompleted: event.Apply(func(r *PasswordReset, p PasswordResetCompletedV1) {
		if r.pending != nil && r.pending.TokenID == p.TokenID {
			r.pending = nil
		}
	}),
}

// ErrResetTokenInvalid is the one answer for an unknown, superseded, used or
// expired reset token: the holder of a bad token learns nothing more.
var ErrResetTokenInvalid = errs.Conflict("reset_token_invalid", "the password reset token is invalid, expired or already used")

// Request issues a token, superseding any earlier one. More than
// PasswordResetMaxPerWindow requests in PasswordResetWindow are refused
// (409 reset_throttled; the self-service route answers the same 202 anyway).
func (r *PasswordReset) Request(in PasswordResetRequestedV1, now time.Time) ([]event.Change, error) {
	if in.UserID == "" || in.TokenID == "" || in.SecretHash == "" {
		return nil, errs.InvalidField("", "a reset needs a user, a token id and a secret")
	}
	recent := 0
	for _, at := range r.requested {
		if now.Sub(at) < PasswordResetWindow {
			recent++
		}
	}
	if recent >= PasswordResetMaxPerWindow {
		return nil, errs.Conflict("reset_throttled", "too many password resets for this account; try again later")
	}
	in.At, in.ExpiresAt = now, now.Add(PasswordResetTTL)
	return []event.Change{event.New(PasswordResetRequested, in)}, nil
}

// Check tells whether a secret hash opens the current, unexpired token.
func (r *PasswordReset) Check(secretHash string, now time.Time) error {
	if r.pending == nil || subtle.ConstantTimeCompare([]byte(r.pending.SecretHash), []byte(secretHash)) != 1 ||
		!now.Before(r.pending.ExpiresAt) {
		return ErrResetTokenInvalid
	}
	return nil
}

// Complete uses the token: the first call appends completed, any later one
// fails with ErrResetTokenInvalid.
func (r *PasswordReset) Complete(secretHash string, now time.Time) ([]event.Change, error) {
	if err := r.Check(secretHash, now); err != nil {
		return nil, err
	}
	return []event.Change{event.New(PasswordResetCompleted, PasswordResetCompletedV1{UserID: r.pending.UserID,
		TokenID: r.pending.TokenID, At: now})}, nil
}

// Pending is the current token (nil when none).
func (r *PasswordReset) Pending() *PasswordResetRequestedV1 { return r.pending }

// SetPasswordEndingSessions records a new (sealed) password and raises the
// session epoch in the same append: every session started before, the
// caller's included, fails /validate at once (password change and reset).
func (u *User) SetPasswordEndingSessions(sealed string, now time.Time) ([]event.Change, error) {
	if sealed == "" {
		return nil, errs.InvalidField("/password", "must not be empty")
	}
	changed, err := u.ChangePassword(sealed, now)
	if err != nil {
		return nil, err
	}
	revoked, err := u.RevokeSessions(now)
	if err != nil {
		return nil, err
	}
	return append(changed, revoked...), nil
}
