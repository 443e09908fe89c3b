package identity

import (
	"time"

	"github.com/platform/backend/domain/errs"
)

// No answer of the onboarding routes may tell whether an email has an
// account on the platform (black-box attack run: POST /register and another
// tenant's POST /api/users answered 409 email_taken for any account
// anywhere, so any sign-up or any tenant admin could test addresses).
//
// Sign-up (POST /register) answers 202 "check your email" whatever the
// address: an address without an account receives a link that completes the
// sign-up (POST /register/confirm), one with an account receives a notice
// saying so (sign in or reset the password), and no second account is made.
//
// Adding a person by email (POST /api/users) answers 202 with the same body
// whatever the address: an address without an account becomes an account of
// this organization (as before), one whose account lives elsewhere is
// invited (it joins when it accepts, with its own session; the organization
// never sees the account until then). Only what the organization may know
// already is told: a current member, or a pending invitation of its own,
// is 409.

// SignupTTL is how long a sign-up confirmation link works.
const SignupTTL = 24 * time.Hour

// Outcomes of adding a person by email.
const (
	AddUserCreate  = "create"  // no account anywhere: an account of this organization
	AddUserInvite  = "invite"  // an account elsewhere: an invitation, accepted by its holder
	AddUserAlready = "already" // a member here, or invited here and pending
)

// DecideAddUser picks what POST /api/users does with an address. What the
// organization already knows (its members, its own pending invitations)
// decides first, the same way for every address, so the answer for an
// address with an account elsewhere equals the one for a new address.
func DecideAddUser(accountExists, memberHere, pendingHere bool) string {
	switch {
	case memberHere || pendingHere:
		return AddUserAlready
	case accountExists:
		return AddUserInvite
	}
	return AddUserCreate
}

// ErrAlreadyHere refuses adding an address the organization already has,
// as a member or as a pending invitation: the same answer for both, and for
// addresses with or without an account.
var ErrAlreadyHere = errs.Conflict("email_taken",
	"the address is already a member of this organization or has a pending invitation to it")

// PendingFor reports whether an email (by its keyed hash) has a pending
// invitation at now.
func (b *Invitations) PendingFor(emailHash string, now time.Time) bool {
	for _, i := range b.byID {
		if i.EmailHash == emailHash && i.StateAt(now) == InvitationStatePending {
			return true
		}
	}
	return false
}

// ErrSignupTokenInvalid: a sign-up link that does not open, or has expired.
var ErrSignupTokenInvalid = errs.Conflict("signup_token_invalid", "the sign-up link is invalid or has expired: sign up again")

// ErrSignupTokenUsed: the link's account exists already (a second use), or
// its sign-up could not be completed and was undone.
var ErrSignupTokenUsed = errs.Conflict("signup_token_used",
	"this sign-up link was already used or can no longer be used: sign in, or sign up again")

// SignupClaim is what a sign-up confirmation link carries, sealed under a
// key only the identity service holds (nothing is stored until the link is
// used): the account and organization ids chosen at sign-up, the address,
// the password's argon2id hash (never the password), and the organization.
type SignupClaim struct {
	UserID             string    `json:"uid"`
	OrganizationID     string    `json:"oid"`
	Email              string    `json:"email"`
	Name               string    `json:"name,omitempty"`
	PasswordHash       string    `json:"pwh"`
	OrganizationName   string    `json:"org_name,omitempty"`
	OrganizationSlug   string    `json:"slug"`
	DeveloperWorkspace bool      `json:"dev,omitempty"`
	ExpiresAt          time.Time `json:"exp"`
}

// Check refuses an expired or incomplete claim.
func (c SignupClaim) Check(now time.Time) error {
	if c.UserID == "" || c.OrganizationID == "" || c.Email == "" || c.PasswordHash == "" || c.OrganizationSlug == "" ||
		!now.Before(c.ExpiresAt) {
		return ErrSignupTokenInvalid
	}
	return nil
}
