package identity

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	domain "github.com/platform/backend/domain/identity"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/providers/email"
)

// RequestPasswordReset is POST /password-reset ("forgot password").
type RequestPasswordReset struct {
	Email string `json:"email"`
}

// resetWorkTimeout bounds the background work of one self-service request.
const resetWorkTimeout = 30 * time.Second

// RequestPasswordReset answers nothing and does its work in the background:
// the caller gets the same answer, after the same time, whether the email
// belongs to an active user or not (no account enumeration, by content or by
// timing). For an active user it issues a reset token and emails it;
// failures, a throttled account included, are only logged.
func (a *Access) RequestPasswordReset(m commands.Meta, in RequestPasswordReset) {
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), resetWorkTimeout)
		defer cancel()
		if err := a.requestPasswordReset(ctx, m, in.Email); err != nil {
			a.log.Warn("self-service password reset not sent", "err", err)
		}
	}()
}

func (a *Access) requestPasswordReset(ctx context.Context, m commands.Meta, address string) error {
	if err := a.h.requireKeys(); err != nil {
		return err
	}
	if !domain.ValidEmail(domain.NormalizeEmail(address)) {
		return nil
	}
	hash, err := a.h.keys.EmailHash(ctx, address)
	if err != nil {
		return err
	}
	userID, err := a.h.userByEmailHash(ctx, hash)
	if err != nil || userID == "" {
		return err
	}
	u, err := a.h.loadUser(ctx, userID)
	if err != nil || !u.Active() {
		return err
	}
	m.Actor = eventstore.Actor{ID: userID, Type: "user"}
	_, err = a.issuePasswordReset(ctx, m, u, domain.PasswordResetRequestedSelf)
	if e, ok := errs.As(err); ok && e.Code == "reset_throttled" {
		return nil // the cap is the point: nothing to report
	}
	return err
}

// issuePasswordReset records a new token on the user's reset stream (it
// supersedes earlier ones) and emails it to the user's address.
func (a *Access) issuePasswordReset(ctx context.Context, m commands.Meta, u *domain.User, requestedBy string) (time.Time, error) {
	st := u.State()
	to, err := a.h.openEmail(ctx, u)
	if err != nil {
		return time.Time{}, err
	}
	if to == "" {
		return time.Time{}, errNotFoundUser
	}
	secret, err := newSecret()
	if err != nil {
		return time.Time{}, err
	}
	in := domain.PasswordResetRequestedV1{UserID: st.UserID, TokenID: uuid.Must(uuid.NewV7()).String(),
		SecretHash: HashSecret(secret), RequestedBy: requestedBy}
	m.OrganizationID = st.OrganizationID
	m.IdempotencyKey = "" // a fresh secret each time: never replayed
	res, err := commands.Run(ctx, a.h.store, m, domain.StreamPasswordReset, domain.PasswordResetStreamID(st.UserID),
		func(history []event.Recorded) ([]event.Change, time.Time, error) {
			r, err := domain.LoadPasswordReset(history)
			if err != nil {
				return nil, time.Time{}, err
			}
			changes, err := r.Request(in, a.now())
			if err != nil {
				return nil, time.Time{}, err
			}
			return changes, changes[0].Payload.(domain.PasswordResetRequestedV1).ExpiresAt, nil
		})
	if err != nil {
		return time.Time{}, err
	}
	token := PasswordResetPrefix + st.UserID + "." + secret
	msg := email.Message{To: to, Subject: "Reset your password",
		Text: "A password reset was requested for your account.\n\n" +
			"Open this link within 30 minutes to choose a new password (it works once):\n\n" +
			a.publicLink("/password-reset/complete", "token", token) + "\n\n" +
			"Or send this token with POST /password-reset/complete: " + token + "\n\n" +
			"If you did not ask for this, ignore this message: your password stays as it is.\n"}
	if err := a.mail.Send(ctx, msg); err != nil {
		return time.Time{}, errs.Unavailable("the password reset email could not be sent", err)
	}
	return res.Value, nil
}
