package identity

import (
	"net/mail"
	"strings"
	"time"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
)

// User is the write model of one user: identity, credential and lifecycle.
// Memberships live on the organizations' streams.
type User struct {
	created   UserCreatedV1
	password  string // sealed hash, the latest
	state     string
	deletedAt time.Time
	epoch     int
	mfa       UserMFA // folded by userMFAFold: mfa_user.go
}

func LoadUser(history []event.Recorded) (*User, error) {
	return userFold.Load(&User{}, history)
}

// userFold: the user's lifecycle and credential here, its MFA in
// mfa_user.go (both erase with the user).
var userFold = event.Fold[*User]{
	UserCreated: event.Apply(func(u *User, p UserCreatedV1) {
		u.created, u.password, u.state = p, p.PasswordHash, StateActive
	}),
	UserPasswordChanged: event.Apply(func(u *User, p UserPasswordChangedV1) { u.password = p.PasswordHash }),
	UserDeleted: event.Apply(func(u *User, p UserChangedV1) {
		u.state, u.deletedAt = StateDeleted, p.At
	}),
	UserRestored:           event.Mark(func(u *User) { u.state, u.deletedAt = StateActive, time.Time{} }),
	UserPermanentlyDeleted: event.Mark(func(u *User) { u.state, u.password = StateErased, "" }),
	UserSessionsRevoked:    event.Apply(func(u *User, p UserSessionsRevokedV1) { u.epoch = p.Epoch }),
}.With(userMFAFold)

func (u *User) Exists() bool         { return u.state != "" }
func (u *User) State() UserCreatedV1 { return u.created }
func (u *User) Lifecycle() string    { return u.state }
func (u *User) Active() bool         { return u.state == StateActive }
func (u *User) Visible() bool        { return u.Exists() && u.state != StateErased }
func (u *User) DeletedAt() time.Time { return u.deletedAt }
func (u *User) SealedPassword() string {
	return u.password
}

// SessionEpoch: sessions started at a lower epoch are ended (logout everywhere).
func (u *User) SessionEpoch() int { return u.epoch }

// NormalizeEmail is the form uniqueness and login compare: trimmed, lowercase.
func NormalizeEmail(email string) string { return strings.ToLower(strings.TrimSpace(email)) }

// ValidEmail accepts a bare address (no display name), at most 254 characters.
func ValidEmail(email string) bool {
	a, err := mail.ParseAddress(email)
	return err == nil && a.Address == email && len(email) <= 254
}

// NewUser is the input of user creation: Email only to check it; the event
// keeps the sealed values and the keyed email hash.
type NewUser struct {
	ID, HomeOrganizationID                    string
	Email, EmailHash, SealedEmail, SealedName string
	SealedPassword                            string // "" for a passwordless identity
}

func (u *User) Create(n NewUser, now time.Time) ([]event.Change, error) {
	if !ValidEmail(NormalizeEmail(n.Email)) {
		return nil, errs.InvalidField("/email", "must be an email address")
	}
	if u.Exists() {
		return nil, errs.Conflict("user_exists", "the user already exists")
	}
	c := event.New(UserCreated, UserCreatedV1{UserID: n.ID, OrganizationID: n.HomeOrganizationID, Email: n.SealedEmail,
		EmailHash: n.EmailHash, Name: n.SealedName, PasswordHash: n.SealedPassword, CreatedAt: now})
	c.Unique = []event.Unique{{Kind: UniqueEmail, Value: n.EmailHash}}
	return []event.Change{c}, nil
}

func (u *User) requireVisible() error {
	if !u.Visible() {
		return errs.NotFound("user")
	}
	return nil
}

func (u *User) ChangePassword(sealed string, now time.Time) ([]event.Change, error) {
	if !u.Active() {
		return nil, errs.NotFound("user")
	}
	return []event.Change{event.New(UserPasswordChanged, UserPasswordChangedV1{UserID: u.created.UserID, PasswordHash: sealed, At: now})}, nil
}

func (u *User) SoftDelete(now time.Time) ([]event.Change, error) {
	if err := u.requireVisible(); err != nil {
		return nil, err
	}
	if u.state == StateDeleted {
		return nil, nil
	}
	return []event.Change{event.New(UserDeleted, UserChangedV1{UserID: u.created.UserID, At: now})}, nil
}

func (u *User) Restore(now time.Time) ([]event.Change, error) {
	if err := u.requireVisible(); err != nil {
		return nil, err
	}
	if u.state == StateActive {
		return nil, nil
	}
	return []event.Change{event.New(UserRestored, UserChangedV1{UserID: u.created.UserID, At: now})}, nil
}

// DeletePermanently erases the user and frees the email. Seed 001 asks only
// for confirmation (the HTTP action requires it), not a prior soft delete.
func (u *User) DeletePermanently(now time.Time) ([]event.Change, error) {
	if err := u.requireVisible(); err != nil {
		return nil, err
	}
	c := event.New(UserPermanentlyDeleted, UserChangedV1{UserID: u.created.UserID, At: now})
	if u.created.EmailHash != "" {
		c.Unique = []event.Unique{{Kind: UniqueEmail, Value: u.created.EmailHash, Release: true}}
	}
	return []event.Change{c}, nil
}

// RevokeSessions ends every session of the user (logout everywhere).
func (u *User) RevokeSessions(now time.Time) ([]event.Change, error) {
	if err := u.requireVisible(); err != nil {
		return nil, err
	}
	return []event.Change{event.New(UserSessionsRevoked, UserSessionsRevokedV1{UserID: u.created.UserID, Epoch: u.epoch + 1, At: now})}, nil
}
