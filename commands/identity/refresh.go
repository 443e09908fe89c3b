package identity

import (
	"context"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	domain "github.com/platform/backend/domain/identity"
	"github.com/platform/backend/eventstore"
)

// Refresh is the cookie-backed refresh contract: the refresh token (from the
// HttpOnly cookie) rotates into a new access token and a new refresh token;
// both old secrets stop working. A refresh token used twice ends the
// session: one of the two holders is not its owner.
func (h *Handlers) Refresh(ctx context.Context, m commands.Meta, refreshToken string) (SessionTokens, error) {
	sid, secret, ok := parseToken(refreshToken, RefreshTokenPrefix)
	if !ok {
		return SessionTokens{}, errInvalidCredential
	}
	s, err := h.loadSession(ctx, sid)
	if err != nil {
		return SessionTokens{}, err
	}
	if !s.Exists() {
		return SessionTokens{}, errInvalidCredential
	}
	// The user, membership and organization must still stand (write side).
	p, err := h.sessionPrincipal(ctx, s)
	if err != nil {
		return SessionTokens{}, err
	}
	access, err := newSecret()
	if err != nil {
		return SessionTokens{}, err
	}
	refresh, err := newSecret()
	if err != nil {
		return SessionTokens{}, err
	}
	type outcome struct {
		Reused bool                       `json:"reused"`
		Next   *domain.SessionRefreshedV1 `json:"next,omitempty"`
	}
	st := s.Started()
	m.OrganizationID = st.OrganizationID
	m.Actor = eventstore.Actor{ID: st.UserID, Type: "user"}
	m.IdempotencyKey = ""
	res, err := commands.Run(ctx, h.store, m, domain.StreamSession, sid,
		func(history []event.Recorded) ([]event.Change, outcome, error) {
			s, err := domain.LoadSession(history)
			if err != nil {
				return nil, outcome{}, err
			}
			next := domain.SessionRefreshedV1{AccessHash: HashSecret(access), RefreshHash: HashSecret(refresh),
				AccessExpiresAt: h.now().Add(h.cfg.AccessTTL)}
			changes, reused, err := s.Refresh(HashSecret(secret), next, h.now())
			if err != nil || reused {
				return changes, outcome{Reused: reused}, err
			}
			n := changes[0].Payload.(domain.SessionRefreshedV1)
			return changes, outcome{Next: &n}, nil
		})
	if err != nil {
		return SessionTokens{}, err
	}
	if res.Value.Reused || res.Value.Next == nil {
		return SessionTokens{}, errs.AuthenticationRequired("this refresh token was already used; the session is ended")
	}
	return SessionTokens{SessionID: sid, UserID: st.UserID, OrganizationID: st.OrganizationID, Role: p.Role, PlatformRole: p.PlatformRole,
		TokenType: "Bearer", AccessToken: AccessTokenPrefix + sid + "." + access, AccessExpiresAt: res.Value.Next.AccessExpiresAt,
		ExpiresAt: st.ExpiresAt, RefreshToken: RefreshTokenPrefix + sid + "." + refresh}, nil
}

// SignedIn checks a refresh token without rotating it (GET /settings decides
// whether a browser is signed in from its cookie).
func (h *Handlers) SignedIn(ctx context.Context, refreshToken string) (domain.Principal, error) {
	sid, secret, ok := parseToken(refreshToken, RefreshTokenPrefix)
	if !ok {
		return domain.Principal{}, errInvalidCredential
	}
	s, err := h.loadSession(ctx, sid)
	if err != nil {
		return domain.Principal{}, err
	}
	if err := s.CheckRefresh(HashSecret(secret), h.now()); err != nil {
		return domain.Principal{}, err
	}
	p, err := h.sessionPrincipal(ctx, s)
	return p.Clone(), err // its permissions are the memo's (Validate)
}
