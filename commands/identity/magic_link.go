package identity

import (
	"context"
	"net/url"
	"time"

	"github.com/google/uuid"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	domain "github.com/platform/backend/domain/identity"
)

// One-time token formats: ml_<token id>.<secret> (magic link) and
// sc_<token id>.<secret> (SSO handoff code). Like API keys and sessions, the
// id locates the stream and the secret is compared by SHA-256 hash. Neither
// is a bearer credential: /validate refuses both.
const (
	MagicLinkPrefix = "ml_"
	SSOCodePrefix   = "sc_"
)

func prefixOf(kind string) string {
	if kind == domain.KindSSOCode {
		return SSOCodePrefix
	}
	return MagicLinkPrefix
}

// issueOneTime records a new token in the organization's tenant and returns
// it (shown once).
func (a *Access) issueOneTime(ctx context.Context, m commands.Meta, in domain.OneTimeIssuedV1, ttl time.Duration) (string, domain.OneTimeIssuedV1, error) {
	secret, err := newSecret()
	if err != nil {
		return "", domain.OneTimeIssuedV1{}, err
	}
	in.TokenID = uuid.Must(uuid.NewV7()).String()
	in.SecretHash = HashSecret(secret)
	m.OrganizationID = in.OrganizationID
	m.IdempotencyKey = "" // a fresh secret each time: never replayed
	res, err := commands.Run(ctx, a.h.store, m, domain.StreamTypeOf(in.Kind), in.TokenID,
		func(history []event.Recorded) ([]event.Change, domain.OneTimeIssuedV1, error) {
			t, err := domain.LoadOneTime(history)
			if err != nil {
				return nil, domain.OneTimeIssuedV1{}, err
			}
			changes, err := t.Issue(in, ttl, a.now())
			if err != nil {
				return nil, domain.OneTimeIssuedV1{}, err
			}
			out := changes[0].Payload.(domain.OneTimeIssuedV1)
			out.SecretHash = ""
			return changes, out, nil
		})
	if err != nil {
		return "", domain.OneTimeIssuedV1{}, err
	}
	return prefixOf(in.Kind) + in.TokenID + "." + secret, res.Value, nil
}

// MagicLinkURL is the consume URL of a magic-login token.
func (a *Access) MagicLinkURL(token string) string {
	return a.cfg.PublicURL + "/magic-link/consume?token=" + url.QueryEscape(token)
}

// IssueMagicLink issues a single-use magic-login token for a member.
func (a *Access) IssueMagicLink(ctx context.Context, m commands.Meta, organizationID, userID, purpose, redirectURI string,
	skipInterstitial bool, ttl time.Duration) (string, domain.OneTimeIssuedV1, error) {
	return a.issueOneTime(ctx, m, domain.OneTimeIssuedV1{Kind: domain.KindMagicLink, OrganizationID: organizationID, UserID: userID,
		SkipInterstitial: skipInterstitial, Purpose: purpose, RedirectURI: redirectURI}, ttl)
}

// loadOneTime finds the token a presented string names and checks it.
func (a *Access) loadOneTime(ctx context.Context, kind, token string) (*domain.OneTime, string, error) {
	id, secret, ok := parseToken(token, prefixOf(kind))
	if !ok {
		return nil, "", errs.AuthenticationRequired("the link or code is not valid")
	}
	history, err := a.load(ctx, id)
	if err != nil {
		return nil, "", err
	}
	t, err := domain.LoadOneTime(commands.Recorded(history))
	if err != nil {
		return nil, "", err
	}
	hash := HashSecret(secret)
	if err := t.Check(kind, hash, a.now()); err != nil {
		return nil, "", err
	}
	return t, hash, nil
}

// MagicLinkOutcome is what consuming a magic link gives: either the
// confirmation interstitial is required (email-delivered links on GET), or
// a session was started.
type MagicLinkOutcome struct {
	ConfirmationRequired bool           `json:"confirmationRequired"`
	RedirectURI          string         `json:"redirectUri,omitempty"`
	Session              *SessionTokens `json:"session,omitempty"`
}

// ConsumeMagicLink is the one completion path of GET and POST
// /magic-link/consume. A GET (confirmed false) auto-consumes only trusted
// in-session tokens (skip_interstitial); other tokens answer that a
// confirmation is required and stay unused. The POST confirmation
// (confirmed true) consumes any valid token. Consuming takes the token's
// stream lock, so a token starts at most one session.
func (a *Access) ConsumeMagicLink(ctx context.Context, m commands.Meta, token string, confirmed bool) (MagicLinkOutcome, error) {
	t, hash, err := a.loadOneTime(ctx, domain.KindMagicLink, token)
	if err != nil {
		return MagicLinkOutcome{}, err
	}
	st := t.State()
	if !st.SkipInterstitial && !confirmed {
		return MagicLinkOutcome{ConfirmationRequired: true, RedirectURI: st.RedirectURI}, nil
	}
	// A link proves the mailbox, one factor: a user with MFA on gets the
	// second step of a password sign-in (401 mfa_required), not a session.
	u, err := a.h.loadUser(ctx, st.UserID)
	if err != nil {
		return MagicLinkOutcome{}, err
	}
	if u.Active() && u.MFA().Enabled() {
		if err := a.consume(ctx, m, domain.KindMagicLink, st, hash); err != nil {
			return MagicLinkOutcome{}, err
		}
		return MagicLinkOutcome{}, a.h.challengeMFA(ctx, m, u, Login{OrganizationID: st.OrganizationID})
	}
	session, err := a.consumeAndStart(ctx, m, domain.KindMagicLink, st, hash, "")
	if err != nil {
		return MagicLinkOutcome{}, err
	}
	return MagicLinkOutcome{RedirectURI: st.RedirectURI, Session: &session}, nil
}

// consumeAndStart uses the token, then starts the member's session.
func (a *Access) consumeAndStart(ctx context.Context, m commands.Meta, kind string, st domain.OneTimeIssuedV1, hash, service string) (SessionTokens, error) {
	if err := a.consume(ctx, m, kind, st, hash); err != nil {
		return SessionTokens{}, err
	}
	return a.startSessionFor(ctx, sessionMeta(m, st), st.UserID, st.OrganizationID, service)
}

func sessionMeta(m commands.Meta, st domain.OneTimeIssuedV1) commands.Meta {
	m.OrganizationID = st.OrganizationID
	m.Actor.ID, m.Actor.Type = st.UserID, "user"
	m.IdempotencyKey = ""
	return m
}

// consume uses a one-time token (single use: the stream lock orders racers).
func (a *Access) consume(ctx context.Context, m commands.Meta, kind string, st domain.OneTimeIssuedV1, hash string) error {
	_, err := commands.Run(ctx, a.h.store, sessionMeta(m, st), domain.StreamTypeOf(kind), st.TokenID,
		func(history []event.Recorded) ([]event.Change, struct{}, error) {
			t, err := domain.LoadOneTime(history)
			if err != nil {
				return nil, struct{}{}, err
			}
			changes, err := t.Consume(kind, hash, a.now())
			return changes, struct{}{}, err
		})
	return err
}

// startSessionFor starts a session through the accounts half (the same
// session a password sign-in starts), after confirming on the write side
// that the user is still an active member of an active organization.
func (a *Access) startSessionFor(ctx context.Context, m commands.Meta, userID, organizationID, service string) (SessionTokens, error) {
	u, err := a.h.loadUser(ctx, userID)
	if err != nil {
		return SessionTokens{}, err
	}
	o, err := a.h.loadOrganization(ctx, organizationID)
	if err != nil {
		return SessionTokens{}, err
	}
	if _, member := o.Member(userID); !u.Active() || !o.Active() || !member {
		return SessionTokens{}, errs.AuthenticationRequired("the account behind this link is no longer active")
	}
	return a.h.startSession(ctx, m, u, o, service)
}
