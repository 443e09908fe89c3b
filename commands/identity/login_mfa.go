package identity

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	domain "github.com/platform/backend/domain/identity"
	"github.com/platform/backend/eventstore"
)

// MFATokenPrefix: mfa_<challenge id>.<secret>, the single-use second step of
// a sign-in. Like magic links, the id locates the stream and the secret is
// compared by hash; /validate refuses it (it is no bearer credential).
const MFATokenPrefix = "mfa_"

// LoginMFA is POST /login/mfa: the challenge token of POST /login and a
// current TOTP code or an unused backup code.
type LoginMFA struct {
	MFAToken string `json:"mfaToken"`
	Code     string `json:"code"`
}

// challengeMFA is Login's answer when the password was right and the user
// has MFA on: no session, a 401 mfa_required carrying the single-use,
// short-lived token of the second step (only its hash is recorded).
func (h *Handlers) challengeMFA(ctx context.Context, m commands.Meta, u *domain.User, in Login) error {
	secret, err := newSecret()
	if err != nil {
		return err
	}
	userID, cid := u.State().UserID, uuid.Must(uuid.NewV7()).String()
	m.OrganizationID = u.State().OrganizationID
	m.Actor = eventstore.Actor{ID: userID, Type: "user"}
	m.IdempotencyKey = "" // a fresh secret each time: never replayed
	res, err := commands.Run(ctx, h.store, m, domain.StreamMFAChallenge, cid,
		func([]event.Recorded) ([]event.Change, time.Time, error) {
			changes, err := domain.IssueMFAChallenge(domain.MFAChallengeIssuedV1{ChallengeID: cid, UserID: userID,
				RequestedOrganizationID: in.OrganizationID, Service: in.Service, SecretHash: HashSecret(secret)}, h.now())
			if err != nil {
				return nil, time.Time{}, err
			}
			return changes, changes[0].Payload.(domain.MFAChallengeIssuedV1).ExpiresAt, nil
		})
	if err != nil {
		return err
	}
	return &errs.Error{Kind: errs.KindAuthenticationRequired, Code: "mfa_required",
		Message: "the password is right; send a second factor to POST /login/mfa with mfa_token",
		Extensions: map[string]any{"mfa_token": MFATokenPrefix + cid + "." + secret, "mfa_token_expires_at": res.Value,
			"mfa_methods": []string{domain.MFAMethodTOTP, domain.MFAMethodBackupCode}}}
}

// LoginMFA completes a challenged sign-in: the code is spent on the user's
// stream (a TOTP step or a backup code works once; a wrong code is recorded
// and counts toward the lockout), the challenge is consumed on its own
// stream (once), and the session starts through the same path as a
// password-only sign-in, in the organization the first step asked for.
func (h *Handlers) LoginMFA(ctx context.Context, m commands.Meta, in LoginMFA) (SessionTokens, error) {
	cid, secret, ok := parseToken(in.MFAToken, MFATokenPrefix)
	if !ok {
		return SessionTokens{}, domain.ErrMFATokenInvalid
	}
	hash := HashSecret(secret)
	c, err := h.loadMFAChallenge(ctx, cid)
	if err != nil {
		return SessionTokens{}, err
	}
	if err := c.Check(hash, h.now()); err != nil {
		return SessionTokens{}, err
	}
	st := c.State()
	u, err := h.loadUser(ctx, st.UserID)
	if err != nil {
		return SessionTokens{}, err
	}
	if !u.Active() || !u.MFA().Enabled() { // reset or deleted meanwhile: sign in again
		return SessionTokens{}, domain.ErrMFATokenInvalid
	}
	sealed := u.MFA().SealedSecret()
	key, err := h.openMFASecret(ctx, st.UserID, sealed)
	if err != nil {
		return SessionTokens{}, err
	}
	m.Actor = eventstore.Actor{ID: st.UserID, Type: "user"}
	used, err := onUser(ctx, h, m, u, func(u *domain.User, now time.Time) ([]event.Change, mfaCheck, error) {
		if u.MFA().SealedSecret() != sealed {
			return nil, mfaCheck{}, domain.ErrMFATokenInvalid
		}
		changes, err := u.UseMFACode(key, in.Code, backupCodeHash(st.UserID, in.Code), now)
		if errors.Is(err, domain.ErrMFACodeInvalid) {
			return u.RejectMFACode(now), mfaCheck{Rejected: true}, nil
		}
		if err != nil {
			return nil, mfaCheck{}, err
		}
		return changes, mfaCheck{Method: changes[0].Payload.(domain.UserMFACodeUsedV1).Method}, nil
	})
	if err != nil {
		return SessionTokens{}, err
	}
	if used.Value.Rejected {
		return SessionTokens{}, domain.ErrMFACodeInvalid
	}
	cm := m
	cm.OrganizationID, cm.IdempotencyKey = u.State().OrganizationID, ""
	if _, err := commands.Run(ctx, h.store, cm, domain.StreamMFAChallenge, cid,
		func(history []event.Recorded) ([]event.Change, struct{}, error) {
			c, err := domain.LoadMFAChallenge(history)
			if err != nil {
				return nil, struct{}{}, err
			}
			changes, err := c.Consume(hash, used.Value.Method, h.now())
			return changes, struct{}{}, err
		}); err != nil {
		return SessionTokens{}, err
	}
	org, err := h.activeOrganization(ctx, u, st.RequestedOrganizationID, st.Service)
	if err != nil {
		return SessionTokens{}, err
	}
	return h.startSession(ctx, m, u, org, st.Service)
}

func (h *Handlers) loadMFAChallenge(ctx context.Context, id string) (*domain.MFAChallenge, error) {
	history, err := h.store.Load(ctx, id)
	if err != nil {
		return nil, errs.Unavailable("identity store unavailable", err)
	}
	return domain.LoadMFAChallenge(commands.Recorded(history))
}
