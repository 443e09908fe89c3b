package identity

import (
	"context"

	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	domain "github.com/platform/backend/domain/identity"
	"github.com/platform/backend/eventstore"
)

// Login is POST /login. OrganizationID picks the active organization;
// without it, Service asks for the one membership whose organization may use
// that service (first-party service-scoped sign-in); without either, the
// user's home organization. Passkeys are not a sign-in factor here: seed 001
// never counts them as a production factor.
type Login struct {
	Email          string `json:"email"`
	Password       string `json:"password"`
	OrganizationID string `json:"organizationId"`
	Service        string `json:"service"`
}

// SessionTokens is what a sign-in or refresh answers. RefreshToken travels
// in an HttpOnly cookie (and in the body only for non-browser clients that
// ask for it).
type SessionTokens struct {
	SessionID       string    `json:"session_id"`
	UserID          string    `json:"user_id"`
	OrganizationID  string    `json:"organization_id"`
	Role            string    `json:"role"`
	PlatformRole    string    `json:"platform_role,omitempty"`
	TokenType       string    `json:"token_type"`
	AccessToken     string    `json:"access_token"`
	AccessExpiresAt time.Time `json:"access_expires_at"`
	ExpiresAt       time.Time `json:"expires_at"`
	RefreshToken    string    `json:"-"`
}

var errBadLogin = errs.AuthenticationRequired("invalid email or password")

// dummyHash is verified when no user matches, so a wrong email costs the same
// time as a wrong password (no account enumeration by timing).
var dummyHash = domain.HashPassword("not a real password", make([]byte, 16), domain.DefaultPasswordParams)

func (h *Handlers) Login(ctx context.Context, m commands.Meta, in Login) (SessionTokens, error) {
	if err := h.requireKeys(); err != nil {
		return SessionTokens{}, err
	}
	hash, err := h.keys.EmailHash(ctx, in.Email)
	if err != nil {
		return SessionTokens{}, err
	}
	// The per-account backoff, before anything depends on the account
	// existing: an unknown address counts and waits exactly like a known one.
	if err := h.attempts.attempt(ctx, hash, h.now()); err != nil {
		return SessionTokens{}, err
	}
	userID, err := h.userByEmailHash(ctx, hash)
	if err != nil {
		return SessionTokens{}, err
	}
	if userID == "" {
		domain.VerifyPassword(in.Password, dummyHash)
		return SessionTokens{}, errBadLogin
	}
	u, err := h.loadUser(ctx, userID)
	if err != nil {
		return SessionTokens{}, err
	}
	stored := ""
	if u.Active() && u.SealedPassword() != "" {
		if stored, err = h.keys.Open(ctx, userID, u.SealedPassword()); err != nil && err != domain.ErrKeyDestroyed {
			return SessionTokens{}, err
		}
	}
	if stored == "" {
		domain.VerifyPassword(in.Password, dummyHash)
		return SessionTokens{}, errBadLogin
	}
	if !domain.VerifyPassword(in.Password, stored) {
		return SessionTokens{}, errBadLogin
	}
	if err := h.attempts.succeeded(ctx, hash); err != nil { // the right password ends the run, second factor or not
		return SessionTokens{}, err
	}
	if u.MFA().Enabled() { // no session yet: a second factor first (login_mfa.go)
		return SessionTokens{}, h.challengeMFA(ctx, m, u, in)
	}
	org, err := h.activeOrganization(ctx, u, in.OrganizationID, in.Service)
	if err != nil {
		return SessionTokens{}, err
	}
	return h.startSession(ctx, m, u, org, in.Service)
}

// activeOrganization resolves the organization a new session acts in.
func (h *Handlers) activeOrganization(ctx context.Context, u *domain.User, requested, service string) (*domain.Organization, error) {
	userID := u.State().UserID
	usable := func(id string) (*domain.Organization, error) {
		o, err := h.loadOrganization(ctx, id)
		if err != nil {
			return nil, err
		}
		// An owner may ask for its soft-deleted organization by id (to
		// restore it); a default sign-in skips it.
		if !o.SignInAllowed(userID, requested != "") {
			return nil, nil
		}
		if service != "" && h.serviceAccess != nil {
			ok, err := h.serviceAccess(ctx, id, service)
			if err != nil || !ok {
				return nil, err
			}
		}
		return o, nil
	}
	if requested != "" {
		o, err := usable(requested)
		if err != nil {
			return nil, err
		}
		if o == nil {
			return nil, errs.PermissionDenied("no active membership of that organization gives access here")
		}
		return o, nil
	}
	// Candidates from the read model, confirmed on the write side; the home
	// organization always counts (a user just created may not be projected yet).
	var ids []string
	if h.dir != nil {
		var err error
		if ids, err = h.dir.OrganizationsOf(ctx, userID); err != nil {
			return nil, err
		}
	}
	if home := u.State().OrganizationID; !slices.Contains(ids, home) {
		ids = append([]string{home}, ids...)
	}
	var found []*domain.Organization
	for _, id := range ids {
		o, err := usable(id)
		if err != nil {
			return nil, err
		}
		if o != nil {
			found = append(found, o)
		}
	}
	switch {
	case len(found) == 0:
		return nil, errs.PermissionDenied("no active membership gives access here")
	case len(found) == 1 || service == "":
		return found[0], nil // the home organization first, when it is usable
	}
	return nil, errs.Conflict("organization_required", "several organizations give access to this service; send organizationId")
}

// startSession issues a new session's tokens in the organization.
func (h *Handlers) startSession(ctx context.Context, m commands.Meta, u *domain.User, o *domain.Organization, service string) (SessionTokens, error) {
	access, err := newSecret()
	if err != nil {
		return SessionTokens{}, err
	}
	refresh, err := newSecret()
	if err != nil {
		return SessionTokens{}, err
	}
	now := h.now()
	userID, orgID := u.State().UserID, o.State().OrganizationID
	member, _ := o.Member(userID)
	sid := uuid.Must(uuid.NewV7()).String()
	started := domain.SessionStartedV1{SessionID: sid, UserID: userID, OrganizationID: orgID, Service: service,
		Epoch: u.SessionEpoch(), AccessHash: HashSecret(access), RefreshHash: HashSecret(refresh),
		AccessExpiresAt: now.Add(h.cfg.AccessTTL), ExpiresAt: now.Add(h.cfg.SessionTTL), StartedAt: now}
	m.OrganizationID = orgID
	m.Actor = eventstore.Actor{ID: userID, Type: "user"}
	m.IdempotencyKey = "" // a sign-in is never replayed: its secrets are shown once
	if _, err := commands.Run(ctx, h.store, m, domain.StreamSession, sid,
		func([]event.Recorded) ([]event.Change, string, error) {
			changes, err := domain.Start(started)
			return changes, sid, err
		}); err != nil {
		return SessionTokens{}, err
	}
	out := SessionTokens{SessionID: sid, UserID: userID, OrganizationID: orgID, Role: member.Role, TokenType: "Bearer",
		AccessToken: AccessTokenPrefix + sid + "." + access, AccessExpiresAt: started.AccessExpiresAt, ExpiresAt: started.ExpiresAt,
		RefreshToken: RefreshTokenPrefix + sid + "." + refresh}
	if o.Administration() {
		out.PlatformRole = member.PlatformRole
	}
	return out, nil
}
