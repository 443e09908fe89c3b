package identity

import (
	"time"

	"github.com/platform/backend/domain/errs"
)

// Multi-factor authentication: one TOTP factor per user (RFC 6238) with
// one-time backup codes. The factor lives on the user's stream, so every
// code check takes the user's stream lock and a code is used at most once.
// Passkey assertions are never a factor here (seed 001, authentication
// rule 6): there is no passkey event and nothing else satisfies the MFA
// requirement.
const (
	// UserMFAEnrolled: an enrollment started; the secret (sealed under the
	// user's data key) waits for a first valid code.
	UserMFAEnrolled = "identity.user.mfa_enrolled"
	// UserMFAConfirmed: a valid code confirmed the pending secret; MFA is on.
	UserMFAConfirmed = "identity.user.mfa_confirmed"
	// UserMFACodeUsed: a TOTP step or a backup code was spent.
	UserMFACodeUsed = "identity.user.mfa_code_used"
	// UserMFACodeRejected: a wrong code; consecutive rejections lock code checks.
	UserMFACodeRejected = "identity.user.mfa_code_rejected"
	// UserMFADisabled: the user (with a code) or an organization admin turned MFA off.
	UserMFADisabled = "identity.user.mfa_disabled"
)

// Login challenges: the single-use second step of a sign-in whose password
// was right (one stream each, like magic links).
const (
	StreamMFAChallenge   = "identity.mfa_challenge"
	MFAChallengeIssued   = "identity.mfa_challenge.issued"
	MFAChallengeConsumed = "identity.mfa_challenge.consumed"
)

// Policy ("not shown" in seed 001; ours).
const (
	BackupCodeCount = 10
	// MFAChallengeTTL bounds the second step of a sign-in.
	MFAChallengeTTL = 5 * time.Minute
	// MFAMaxRejections consecutive wrong codes lock code checks for
	// MFALockout: a password holder cannot walk the 10^6 codes, however
	// many challenges it opens.
	MFAMaxRejections = 5
	MFALockout       = 15 * time.Minute
)

// Code-use methods.
const (
	MFAMethodTOTP       = "totp"
	MFAMethodBackupCode = "backup_code"
)

// Reasons of mfa_disabled.
const (
	MFADisabledByUser  = "user"
	MFADisabledByReset = "admin_reset"
)

// UserMFAEnrolledV1: MFASecret is the base32 TOTP secret sealed under the
// user's data key ("enc:v1:..."); erasure destroys the key and the secret.
// The member name keeps it out of the audit view (history redaction).
type UserMFAEnrolledV1 struct {
	UserID    string    `json:"user_id"`
	MFASecret string    `json:"mfa_secret"`
	At        time.Time `json:"at"`
}

// UserMFAConfirmedV1: BackupCodeHashes are HashSecret values of the codes
// (shown once, never stored in clear); Step is the TOTP step that confirmed.
type UserMFAConfirmedV1 struct {
	UserID           string    `json:"user_id"`
	BackupCodeHashes []string  `json:"backup_code_hashes"`
	Step             int64     `json:"step"`
	At               time.Time `json:"at"`
}

// UserMFACodeUsedV1: Step for a TOTP code, BackupCode (the index into the
// confirmed hashes) for a backup code.
type UserMFACodeUsedV1 struct {
	UserID     string    `json:"user_id"`
	Method     string    `json:"method"`
	Step       int64     `json:"step,omitempty"`
	BackupCode *int      `json:"backup_code,omitempty"`
	At         time.Time `json:"at"`
}

type UserMFACodeRejectedV1 struct {
	UserID string    `json:"user_id"`
	At     time.Time `json:"at"`
}

// UserMFADisabledV1: By is the actor id of an admin reset.
type UserMFADisabledV1 struct {
	UserID string    `json:"user_id"`
	Reason string    `json:"reason"`
	By     string    `json:"by,omitempty"`
	At     time.Time `json:"at"`
}

// MFAChallengeIssuedV1: the challenge remembers what the first step asked
// for (organization, service), so the second step starts the same session
// a password-only sign-in would have started.
type MFAChallengeIssuedV1 struct {
	ChallengeID             string    `json:"challenge_id"`
	UserID                  string    `json:"user_id"`
	RequestedOrganizationID string    `json:"requested_organization_id,omitempty"`
	Service                 string    `json:"service,omitempty"`
	SecretHash              string    `json:"secret_hash"`
	IssuedAt                time.Time `json:"issued_at"`
	ExpiresAt               time.Time `json:"expires_at"`
}

type MFAChallengeConsumedV1 struct {
	ChallengeID string    `json:"challenge_id"`
	Method      string    `json:"method"`
	At          time.Time `json:"at"`
}

// Errors of code checks. A wrong, expired and replayed code read the same.
var (
	ErrMFACodeInvalid = &errs.Error{Kind: errs.KindAuthenticationRequired, Code: "mfa_code_invalid",
		Message: "the code is wrong, expired or already used"}
	ErrMFATokenInvalid = &errs.Error{Kind: errs.KindAuthenticationRequired, Code: "mfa_token_invalid",
		Message: "the sign-in step is unknown, used or expired; sign in again"}
	errMFANotEnabled = errs.Conflict("mfa_not_enabled", "multi-factor authentication is not enabled")
)
