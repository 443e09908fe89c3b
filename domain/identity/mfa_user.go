package identity

import (
	"crypto/subtle"
	"errors"
	"math"
	"time"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
)

// UserMFA is the MFA part of the user's write model, folded from the same
// stream by its own table (userMFAFold, below).
type UserMFA struct {
	pending    string   // sealed secret awaiting its first code
	secret     string   // sealed secret of the enabled factor; "" = MFA off
	backup     []string // backup-code hashes; "" once used
	lastStep   int64    // the last TOTP step spent with secret: it and every earlier one are refused
	rejections int      // consecutive wrong codes
	rejectedAt time.Time
	enabledAt  time.Time
}

// userMFAFold folds the MFA events of a user's stream into the user's MFA
// part (user.go joins it to the user's own table).
var userMFAFold = event.Fold[*User]{
	UserMFAEnrolled: event.Apply(func(u *User, p UserMFAEnrolledV1) { u.mfa.pending = p.MFASecret }),
	UserMFAConfirmed: event.Apply(func(u *User, p UserMFAConfirmedV1) {
		m := &u.mfa
		m.secret, m.pending, m.enabledAt = m.pending, "", p.At
		m.backup = append([]string(nil), p.BackupCodeHashes...)
		m.lastStep, m.rejections = p.Step, 0 // steps are per secret: a new secret starts afresh
	}),
	UserMFACodeUsed: event.Apply(func(u *User, p UserMFACodeUsedV1) {
		m := &u.mfa
		if p.Method == MFAMethodTOTP {
			m.lastStep = max(m.lastStep, p.Step)
		}
		if p.BackupCode != nil && *p.BackupCode >= 0 && *p.BackupCode < len(m.backup) {
			m.backup[*p.BackupCode] = ""
		}
		m.rejections = 0
	}),
	UserMFACodeRejected: event.Apply(func(u *User, p UserMFACodeRejectedV1) {
		u.mfa.rejections, u.mfa.rejectedAt = u.mfa.rejections+1, p.At
	}),
	UserMFADisabled:        event.Mark(func(u *User) { u.mfa = UserMFA{} }),
	UserPermanentlyDeleted: event.Mark(func(u *User) { u.mfa = UserMFA{} }),
}

func (m *UserMFA) Enabled() bool         { return m.secret != "" }
func (m *UserMFA) Pending() bool         { return m.pending != "" }
func (m *UserMFA) SealedSecret() string  { return m.secret }
func (m *UserMFA) SealedPending() string { return m.pending }
func (m *UserMFA) EnabledAt() time.Time  { return m.enabledAt }
func (m *UserMFA) LastStep() int64       { return m.lastStep }
func (m *UserMFA) BackupCodesLeft() (n int) {
	for _, h := range m.backup {
		if h != "" {
			n++
		}
	}
	return n
}

// LockedUntil is when code checks open again after too many wrong codes
// (zero when they are open at now).
func (m *UserMFA) LockedUntil(now time.Time) time.Time {
	if m.rejections < MFAMaxRejections {
		return time.Time{}
	}
	if until := m.rejectedAt.Add(MFALockout); now.Before(until) {
		return until
	}
	return time.Time{}
}

// MFA is the user's MFA state.
func (u *User) MFA() *UserMFA { return &u.mfa }

// StartMFAEnrollment records a new pending secret (sealed by the caller
// under the user's key). A pending secret is replaced; an enabled factor
// must be disabled first.
func (u *User) StartMFAEnrollment(sealedSecret string, now time.Time) ([]event.Change, error) {
	if !u.Active() {
		return nil, errs.NotFound("user")
	}
	if u.mfa.Enabled() {
		return nil, errs.Conflict("mfa_already_enabled", "multi-factor authentication is already enabled; disable it first")
	}
	if !IsSealed(sealedSecret) {
		return nil, errors.New("an MFA secret is recorded sealed only")
	}
	return []event.Change{event.New(UserMFAEnrolled, UserMFAEnrolledV1{UserID: u.created.UserID, MFASecret: sealedSecret, At: now})}, nil
}

// ConfirmMFA enables the pending secret when code is its current code.
// secret is the pending secret opened by the caller; backupHashes are the
// hashes of the codes the caller shows once.
func (u *User) ConfirmMFA(secret []byte, code string, backupHashes []string, now time.Time) ([]event.Change, error) {
	if !u.Active() {
		return nil, errs.NotFound("user")
	}
	if u.mfa.Enabled() {
		return nil, errs.Conflict("mfa_already_enabled", "multi-factor authentication is already enabled")
	}
	if !u.mfa.Pending() {
		return nil, errs.Conflict("mfa_not_enrolling", "no enrollment is pending; start one first")
	}
	if len(backupHashes) != BackupCodeCount {
		return nil, errors.New("confirmation needs the backup codes' hashes")
	}
	code = NormalizeMFACode(code)
	if !IsTOTPCode(code) {
		return nil, errs.InvalidField("/code", "must be the 6-digit code the authenticator app shows")
	}
	step, ok := MatchTOTP(secret, code, now, math.MinInt64) // no step of a new secret is spent yet
	if !ok {
		return nil, errs.InvalidField("/code", "does not match the secret now; check the device's clock and use a fresh code")
	}
	return []event.Change{event.New(UserMFAConfirmed, UserMFAConfirmedV1{UserID: u.created.UserID,
		BackupCodeHashes: backupHashes, Step: step, At: now})}, nil
}

// UseMFACode spends a second-factor code: a TOTP code of a step after the
// last spent one, or an unused backup code (compared by backupHash, the
// caller's hash of the presented code). Wrong codes answer
// ErrMFACodeInvalid; the caller records RejectMFACode so that repeated
// guesses lock the checks.
func (u *User) UseMFACode(secret []byte, code, backupHash string, now time.Time) ([]event.Change, error) {
	used, err := u.matchMFACode(secret, code, backupHash, now)
	if err != nil {
		return nil, err
	}
	return []event.Change{event.New(UserMFACodeUsed, used)}, nil
}

func (u *User) matchMFACode(secret []byte, code, backupHash string, now time.Time) (UserMFACodeUsedV1, error) {
	if !u.Active() {
		return UserMFACodeUsedV1{}, errs.NotFound("user")
	}
	if !u.mfa.Enabled() {
		return UserMFACodeUsedV1{}, errMFANotEnabled
	}
	if until := u.mfa.LockedUntil(now); !until.IsZero() {
		return UserMFACodeUsedV1{}, &errs.Error{Kind: errs.KindRateLimited, Code: "mfa_locked",
			Message: "too many wrong codes; try again later", RetryAfterSeconds: int(until.Sub(now).Seconds()) + 1}
	}
	used := UserMFACodeUsedV1{UserID: u.created.UserID, At: now}
	if c := NormalizeMFACode(code); IsTOTPCode(c) {
		step, ok := MatchTOTP(secret, c, now, u.mfa.lastStep)
		if !ok {
			return UserMFACodeUsedV1{}, ErrMFACodeInvalid
		}
		used.Method, used.Step = MFAMethodTOTP, step
		return used, nil
	}
	found := -1
	for i, h := range u.mfa.backup {
		if h != "" && backupHash != "" && subtle.ConstantTimeCompare([]byte(h), []byte(backupHash)) == 1 {
			found = i
		}
	}
	if found < 0 {
		return UserMFACodeUsedV1{}, ErrMFACodeInvalid
	}
	used.Method, used.BackupCode = MFAMethodBackupCode, &found
	return used, nil
}

// RejectMFACode records a wrong code.
func (u *User) RejectMFACode(now time.Time) []event.Change {
	return []event.Change{event.New(UserMFACodeRejected, UserMFACodeRejectedV1{UserID: u.created.UserID, At: now})}
}

// DisableMFA turns MFA off on the user's own request, proven by a current
// TOTP or an unused backup code (a stolen session alone cannot).
func (u *User) DisableMFA(secret []byte, code, backupHash string, now time.Time) ([]event.Change, error) {
	if _, err := u.matchMFACode(secret, code, backupHash, now); err != nil {
		return nil, err
	}
	return []event.Change{event.New(UserMFADisabled, UserMFADisabledV1{UserID: u.created.UserID, Reason: MFADisabledByUser, At: now})}, nil
}

// ResetMFA turns MFA off (and drops a pending enrollment) for an admin of
// the user's organization, e.g. after a lost device.
func (u *User) ResetMFA(by string, now time.Time) ([]event.Change, error) {
	if !u.Active() {
		return nil, errs.NotFound("user")
	}
	if !u.mfa.Enabled() && !u.mfa.Pending() {
		return nil, errMFANotEnabled
	}
	return []event.Change{event.New(UserMFADisabled, UserMFADisabledV1{UserID: u.created.UserID, Reason: MFADisabledByReset,
		By: by, At: now})}, nil
}
