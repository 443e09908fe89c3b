package identity

import (
	"context"
	"crypto/subtle"
	"strings"

	"github.com/google/uuid"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/errs"
	domain "github.com/platform/backend/domain/identity"
)

var (
	errInvalidCredential = errs.AuthenticationRequired("invalid credential")
	errNotSession        = errs.PermissionDenied("this action needs a signed-in user's session token")
)

// Validate resolves a credential to its principal from the event store's
// current state, on every call: a revoked key, an ended session, a deleted
// user or organization, a changed role — each applies at once. Nothing is
// trusted from the token itself beyond which key or session it names. A
// store that cannot answer fails closed (503).
func (h *Handlers) Validate(ctx context.Context, token string) (domain.Principal, error) {
	if strings.HasPrefix(token, AccessTokenPrefix) {
		return h.validateSession(ctx, token)
	}
	return h.validateAPIKey(ctx, token)
}

func (h *Handlers) validateAPIKey(ctx context.Context, token string) (domain.Principal, error) {
	keyID, secret, ok := strings.Cut(strings.TrimPrefix(token, TokenPrefix), ".")
	if !strings.HasPrefix(token, TokenPrefix) || !ok || uuid.Validate(keyID) != nil || secret == "" {
		return domain.Principal{}, errInvalidCredential
	}
	history, err := h.store.Load(ctx, keyID)
	if err != nil {
		return domain.Principal{}, errs.Unavailable("identity store unavailable", err)
	}
	k, err := domain.LoadAPIKey(commands.Recorded(history))
	if err != nil {
		return domain.Principal{}, err
	}
	want := k.Created().SecretHash
	if !k.Exists() || subtle.ConstantTimeCompare([]byte(want), []byte(HashSecret(secret))) != 1 || !k.Active() {
		return domain.Principal{}, errInvalidCredential
	}
	c := k.Created()
	// A key acts for its organization only while the organization stands.
	org, err := h.loadOrganization(ctx, c.OrganizationID)
	if err != nil {
		return domain.Principal{}, err
	}
	if !org.Active() {
		return domain.Principal{}, errInvalidCredential
	}
	return domain.Principal{ID: c.KeyID, Type: "api_key", OrganizationID: c.OrganizationID, Role: domain.RoleMember,
		Scopes: c.Scopes, Service: c.Service}, nil
}

func (h *Handlers) validateSession(ctx context.Context, token string) (domain.Principal, error) {
	sid, secret, ok := parseToken(token, AccessTokenPrefix)
	if !ok {
		return domain.Principal{}, errInvalidCredential
	}
	s, err := h.loadSession(ctx, sid)
	if err != nil {
		return domain.Principal{}, err
	}
	if err := s.CheckAccess(HashSecret(secret), h.now()); err != nil {
		return domain.Principal{}, err
	}
	return h.sessionPrincipal(ctx, s)
}

// sessionPrincipal rehydrates a session's principal from the user's and the
// organization's streams: the current role, platform role and lifecycle.
func (h *Handlers) sessionPrincipal(ctx context.Context, s *domain.Session) (domain.Principal, error) {
	st := s.Started()
	if !s.Open(h.now()) {
		return domain.Principal{}, errInvalidCredential
	}
	u, err := h.loadUser(ctx, st.UserID)
	if err != nil {
		return domain.Principal{}, err
	}
	if !u.Active() || st.Epoch < u.SessionEpoch() {
		return domain.Principal{}, errInvalidCredential
	}
	o, err := h.loadOrganization(ctx, st.OrganizationID)
	if err != nil {
		return domain.Principal{}, err
	}
	m, member := o.Member(st.UserID)
	if !member || !o.Visible() {
		return domain.Principal{}, errInvalidCredential
	}
	p := domain.Principal{ID: st.UserID, Type: "user", OrganizationID: st.OrganizationID, Role: m.Role,
		UserID: st.UserID, SessionID: st.SessionID, Service: st.Service}
	if o.Administration() {
		p.PlatformRole = m.PlatformRole
	}
	switch {
	case o.Active():
		p.Scopes = domain.RoleScopes(m.Role, p.PlatformRole)
	case m.Role == domain.RoleOwner:
		// A soft-deleted organization's owners may still see it, restore it,
		// or delete it permanently.
		p.Scopes = []string{"organizations:read", "organizations:restore", "organizations:delete"}
	default:
		return domain.Principal{}, errInvalidCredential
	}
	return p, nil
}
