package identity

import (
	"context"
	"crypto/subtle"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
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
//
// Each caller gets a principal of its own: the answer cache keeps the one
// it computed, whose lists are also the key's state in the stream cache and
// the permission memo's (shared by every session of a role), so a caller
// that changed a list in place would change other callers' answers. A clone
// is two allocations (principal.Clone).
func (h *Handlers) Validate(ctx context.Context, token string) (domain.Principal, error) {
	validate := h.validateAPIKey
	if strings.HasPrefix(token, AccessTokenPrefix) {
		validate = h.validateSession
	}
	p, err := validate(ctx, token)
	return p.Clone(), err
}

func (h *Handlers) validateAPIKey(ctx context.Context, token string) (domain.Principal, error) {
	keyID, secret, ok := strings.Cut(strings.TrimPrefix(token, TokenPrefix), ".")
	if !strings.HasPrefix(token, TokenPrefix) || !ok || uuid.Validate(keyID) != nil || secret == "" {
		return domain.Principal{}, errInvalidCredential
	}
	key := answerKey{domain.StreamAPIKey, keyID}
	if p, ok, err := h.answers.lookup(ctx, h, key, secret); ok || err != nil {
		return p, err
	}
	ids := []string{keyID, domain.CatalogStream}
	if known, ok := peekAs[*domain.APIKey](h, domain.StreamAPIKey, keyID); ok { // a key's organization and creator never change
		org := known.Created().OrganizationID
		ids = append(ids, org, domain.AccessStreamID(org))
		ids = append(ids, h.creatorChainIDs(known)...)
	}
	heads, err := h.heads(ctx, ids...)
	if err != nil {
		return domain.Principal{}, err
	}
	k, err := current(ctx, h, domain.StreamAPIKey, keyID, heads, domain.LoadAPIKey)
	if err != nil {
		return domain.Principal{}, err
	}
	want := k.Created().SecretHash
	if !k.Exists() || subtle.ConstantTimeCompare([]byte(want), []byte(HashSecret(secret))) != 1 || !k.Active() {
		return domain.Principal{}, errInvalidCredential
	}
	c := k.Created()
	// A key acts for its organization only while the organization stands.
	org, err := current(ctx, h, domain.StreamOrganization, c.OrganizationID, heads, domain.LoadOrganization)
	if err != nil {
		return domain.Principal{}, err
	}
	if !org.Active() {
		return domain.Principal{}, errInvalidCredential
	}
	p := domain.Principal{ID: c.KeyID, Type: "api_key", OrganizationID: c.OrganizationID, Role: domain.RoleMember,
		Scopes: c.Scopes, Service: c.Service, Workspaces: domain.WorkspaceBindings(k.Bindings())}
	// A key never exceeds its creator, now (api_key_creator.go), and acts
	// as its creator's user with that user's current role; a key the system
	// minted answers to no user and ranks as admin (it keeps its scopes
	// whole, and changing it needs an admin role: CheckKeyChange).
	var creator domain.CreatorStanding
	if p.Permissions, creator, _, err = h.keyPermissions(ctx, heads, k, org, 0); err != nil {
		return domain.Principal{}, err
	}
	p.ActsAs, p.ActingRole = creator.User, creator.Role
	if creator.User == "" {
		p.ActingRole = domain.RoleAdmin
	}
	h.answers.put(key, secret, heads, time.Time{}, p) // nothing of a key's answer depends on the time
	return p, nil
}

// permissionsAt evaluates a principal's permissions in an organization at
// the current heads of the catalog and the organization's access stream
// (memoized per version: a changed bundle, override or grant moves a head).
func (h *Handlers) permissionsAt(ctx context.Context, heads map[string]int64, k permissionKey,
	eval func(*domain.Catalog, *domain.OrgAccess) []string) ([]string, error) {
	accessID := domain.AccessStreamID(k.org)
	if err := h.moreHeads(ctx, heads, domain.CatalogStream, accessID); err != nil {
		return nil, err
	}
	k.catalog, k.access = heads[domain.CatalogStream], heads[accessID]
	cat, err := current(ctx, h, domain.StreamCatalog, domain.CatalogStream, heads, domain.LoadCatalog)
	if err != nil {
		return nil, err
	}
	acc, err := current(ctx, h, domain.StreamAccess, accessID, heads, func(history []event.Recorded) (*domain.OrgAccess, error) {
		return domain.LoadOrgAccess(k.org, history)
	})
	if err != nil {
		return nil, err
	}
	return h.permissions.get(k, func() []string { return eval(cat, acc) }), nil
}

func (h *Handlers) validateSession(ctx context.Context, token string) (domain.Principal, error) {
	sid, secret, ok := parseToken(token, AccessTokenPrefix)
	if !ok {
		return domain.Principal{}, errInvalidCredential
	}
	key := answerKey{domain.StreamSession, sid}
	if p, ok, err := h.answers.lookup(ctx, h, key, secret); ok || err != nil {
		return p, err
	}
	ids := []string{sid, domain.CatalogStream}
	if known, ok := peekAs[*domain.Session](h, domain.StreamSession, sid); ok { // a session's user and organization never change
		st := known.Started()
		ids = append(ids, st.UserID, st.OrganizationID, domain.AccessStreamID(st.OrganizationID))
	}
	heads, err := h.heads(ctx, ids...)
	if err != nil {
		return domain.Principal{}, err
	}
	s, err := current(ctx, h, domain.StreamSession, sid, heads, domain.LoadSession)
	if err != nil {
		return domain.Principal{}, err
	}
	if err := s.CheckAccess(HashSecret(secret), h.now()); err != nil {
		return domain.Principal{}, err
	}
	p, err := h.principalAt(ctx, s, heads)
	if err != nil {
		return domain.Principal{}, err
	}
	h.answers.put(key, secret, heads, s.AccessUntil(), p)
	return p, nil
}

// sessionPrincipal rehydrates a session's principal from the current heads.
func (h *Handlers) sessionPrincipal(ctx context.Context, s *domain.Session) (domain.Principal, error) {
	st := s.Started()
	heads, err := h.heads(ctx, st.UserID, st.OrganizationID)
	if err != nil {
		return domain.Principal{}, err
	}
	return h.principalAt(ctx, s, heads)
}

// principalAt rehydrates a session's principal from the user's and the
// organization's streams at the given heads: the current role, platform
// role and lifecycle.
func (h *Handlers) principalAt(ctx context.Context, s *domain.Session, heads map[string]int64) (domain.Principal, error) {
	st := s.Started()
	if !s.Open(h.now()) {
		return domain.Principal{}, errInvalidCredential
	}
	u, err := current(ctx, h, domain.StreamUser, st.UserID, heads, domain.LoadUser)
	if err != nil {
		return domain.Principal{}, err
	}
	if !u.Active() || st.Epoch < u.SessionEpoch() {
		return domain.Principal{}, errInvalidCredential
	}
	o, err := current(ctx, h, domain.StreamOrganization, st.OrganizationID, heads, domain.LoadOrganization)
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
		platform := p.PlatformRole != ""
		p.Permissions, err = h.permissionsAt(ctx, heads, permissionKey{org: st.OrganizationID, user: st.UserID,
			role: m.Role + "/" + p.PlatformRole, service: st.Service}, func(cat *domain.Catalog, acc *domain.OrgAccess) []string {
			return domain.SessionPermissions(acc.EvalInput(cat, st.UserID, m.Role, platform), st.Service, cat)
		})
		if err != nil {
			return domain.Principal{}, err
		}
	case m.Role == domain.RoleOwner:
		p.Permissions = domain.OwnerOfDeletedPermissions
	default:
		return domain.Principal{}, errInvalidCredential
	}
	return p, nil
}
