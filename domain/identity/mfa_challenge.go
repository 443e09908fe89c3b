package identity

import (
	"crypto/subtle"
	"time"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
)

// MFAChallenge is the write model of one sign-in's second step: issued when
// the password was right and the user has MFA on, consumed by the one
// request that presents a valid code. Its own stream, so consuming takes
// the stream lock and a challenge starts at most one session.
type MFAChallenge struct {
	issued   MFAChallengeIssuedV1
	consumed bool
}

func LoadMFAChallenge(history []event.Recorded) (*MFAChallenge, error) {
	return mfaChallengeFold.Load(&MFAChallenge{}, history)
}

var mfaChallengeFold = event.Fold[*MFAChallenge]{
	MFAChallengeIssued:   event.Apply(func(c *MFAChallenge, p MFAChallengeIssuedV1) { c.issued = p }),
	MFAChallengeConsumed: event.Mark(func(c *MFAChallenge) { c.consumed = true }),
}

func (c *MFAChallenge) Exists() bool                { return c.issued.ChallengeID != "" }
func (c *MFAChallenge) State() MFAChallengeIssuedV1 { return c.issued }

// IssueMFAChallenge records a new challenge (the secret's hash only).
func IssueMFAChallenge(in MFAChallengeIssuedV1, now time.Time) ([]event.Change, error) {
	if in.ChallengeID == "" || in.UserID == "" || in.SecretHash == "" {
		return nil, errs.InvalidField("", "a challenge needs an id, a user and a secret")
	}
	in.IssuedAt, in.ExpiresAt = now, now.Add(MFAChallengeTTL)
	return []event.Change{event.New(MFAChallengeIssued, in)}, nil
}

// Check tells whether the presented secret opens a usable challenge. Every
// failure (unknown, wrong secret, used, expired) reads the same.
func (c *MFAChallenge) Check(secretHash string, now time.Time) error {
	if !c.Exists() || c.consumed || !now.Before(c.issued.ExpiresAt) ||
		subtle.ConstantTimeCompare([]byte(c.issued.SecretHash), []byte(secretHash)) != 1 {
		return ErrMFATokenInvalid
	}
	return nil
}

// Consume uses the challenge once.
func (c *MFAChallenge) Consume(secretHash, method string, now time.Time) ([]event.Change, error) {
	if err := c.Check(secretHash, now); err != nil {
		return nil, err
	}
	return []event.Change{event.New(MFAChallengeConsumed, MFAChallengeConsumedV1{ChallengeID: c.issued.ChallengeID,
		Method: method, At: now})}, nil
}
