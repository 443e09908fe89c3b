package identity

import (
	"context"
	"crypto/rand"
	"errors"
	"net/url"
	"strings"
	"sync"

	"github.com/google/uuid"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	domain "github.com/platform/backend/domain/identity"
)

// What password change, password reset and invitations share: token
// formats, the password policy with the member that failed, and setting a
// sealed password that ends every earlier session.

// Token formats. A reset token names the user (its reset stream); an
// invitation code names the organization (its invitation stream) and the
// invitation. Neither is a bearer credential: /validate refuses both.
const (
	PasswordResetPrefix = "pwr_"
	InvitationPrefix    = "inv_"
)

var (
	errNeedsSession   = errs.PermissionDenied("this action needs a signed-in user's session token")
	errWrongPassword  = errs.PermissionDenied("the current password is wrong")
	errInvitationCode = errs.NotFound("invitation")
)

// recoveryDummyHash is verified when a user has no password, so that case
// costs the same time as a wrong password.
var recoveryDummyHash = sync.OnceValue(func() string {
	return domain.HashPassword("not a real password", make([]byte, 16), domain.DefaultPasswordParams)
})

// checkNewPassword applies the password policy and names the failing member.
func checkNewPassword(pw, pointer string) error {
	if err := domain.CheckPassword(pw); err != nil {
		e, _ := errs.As(err)
		return errs.InvalidField(pointer, e.Fields[0].Detail)
	}
	return nil
}

// sealNewPassword hashes a password with argon2id (fresh salt) and seals the
// hash under the user's data key, as sign-up and user creation do.
func (h *Handlers) sealNewPassword(ctx context.Context, userID, pw string) (string, error) {
	if err := h.requireKeys(); err != nil {
		return "", err
	}
	salt := make([]byte, 16)
	if _, err := rand.Read(salt); err != nil {
		return "", err
	}
	return h.keys.Seal(ctx, userID, domain.HashPassword(pw, salt, domain.DefaultPasswordParams))
}

// setPasswordEndingSessions appends the new sealed password and the raised
// session epoch to the user's stream in one command. expected, when set, is
// the sealed password the caller verified: a password changed meanwhile
// refuses the command rather than overwrite it unseen.
func (h *Handlers) setPasswordEndingSessions(ctx context.Context, m commands.Meta, userID, sealed, expected string) error {
	u, err := h.loadUser(ctx, userID)
	if err != nil {
		return err
	}
	if !u.Exists() {
		return errNotFoundUser
	}
	m.OrganizationID = u.State().OrganizationID
	m.IdempotencyKey = ""
	_, err = commands.Run(ctx, h.store, m, domain.StreamUser, userID,
		func(history []event.Recorded) ([]event.Change, struct{}, error) {
			u, err := domain.LoadUser(history)
			if err != nil {
				return nil, struct{}{}, err
			}
			if expected != "" && u.SealedPassword() != expected {
				return nil, struct{}{}, errs.Conflict("password_changed", "the password changed meanwhile; try again")
			}
			changes, err := u.SetPasswordEndingSessions(sealed, h.now())
			return changes, struct{}{}, err
		})
	return err
}

// openEmail reveals a user's email ("" once the user is erased).
func (h *Handlers) openEmail(ctx context.Context, u *domain.User) (string, error) {
	st := u.State()
	v, err := h.keys.Open(ctx, st.UserID, st.Email)
	if errors.Is(err, domain.ErrKeyDestroyed) {
		return "", nil
	}
	return v, err
}

// publicLink is a browser link on the identity service's public URL.
func (a *Access) publicLink(path, param, token string) string {
	return a.cfg.PublicURL + path + "?" + param + "=" + url.QueryEscape(token)
}

// parseInvitationCode splits inv_<organization id>.<invitation id>.<secret>.
func parseInvitationCode(code string) (orgID, invitationID, secret string, ok bool) {
	rest, found := strings.CutPrefix(code, InvitationPrefix)
	if !found {
		return "", "", "", false
	}
	parts := strings.Split(rest, ".")
	if len(parts) != 3 || uuid.Validate(parts[0]) != nil || uuid.Validate(parts[1]) != nil || parts[2] == "" || len(parts[2]) > 128 {
		return "", "", "", false
	}
	return parts[0], parts[1], parts[2], true
}

// oneLine keeps a value fit for an email header (no line breaks).
func oneLine(s string) string { return strings.NewReplacer("\r", " ", "\n", " ").Replace(s) }
