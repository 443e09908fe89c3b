package identity_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/platform/backend/commands"
	identitycmd "github.com/platform/backend/commands/identity"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	domain "github.com/platform/backend/domain/identity"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/eventstore/memstore"
)

// Validation keeps each credential's accepted answer at the heads of the
// streams it read (answer_cache.go). These tests validate once (so the
// answer is kept), move one of those streams by appending to it directly,
// and check the very next validation sees the change; and they check the
// one input that is not a stream, the time.

// actClock is a clock the test moves.
type actClock struct{ now time.Time }

func (c *actClock) Now() time.Time { return c.now }

// actAppend appends changes to a stream as the system would.
func actAppend(t *testing.T, store *memstore.Store, streamType, streamID string, changes ...event.Change) {
	t.Helper()
	m := commands.Meta{OrganizationID: "org-a", Actor: eventstore.Actor{ID: "system", Type: "system"}}
	if _, err := commands.Run(context.Background(), store, m, streamType, streamID,
		func([]event.Recorded) ([]event.Change, struct{}, error) { return changes, struct{}{}, nil }); err != nil {
		t.Fatal(err)
	}
}

// actHandlers are keyHandlers' organization (org-a, owner user-1) on a
// clock the test moves, with fresh handlers (nothing cached yet).
func actHandlers(t *testing.T) (*identitycmd.Handlers, *memstore.Store, *actClock) {
	t.Helper()
	_, store := keyHandlers(t)
	clock := &actClock{now: t0}
	return identitycmd.NewHandlers(store, clock.Now), store, clock
}

func actValidate(t *testing.T, h *identitycmd.Handlers, token string) (domain.Principal, error) {
	t.Helper()
	return h.Validate(context.Background(), token)
}

// TestValidationAnswerFollowsEveryHead: an API key's answer changes at the
// next validation when any stream it was computed from moves: the
// organization (the creator's role, read only through the cache on the
// first validation), the key (revoked), the creator's user (deleted).
func TestValidationAnswerFollowsEveryHead(t *testing.T) {
	ctx := context.Background()
	h, store, _ := actHandlers(t)
	key, err := h.CreateAPIKey(ctx, keyMeta("org-a"), identitycmd.CreateAPIKey{Name: "ci", Service: "status", Scopes: []string{"status:read"}})
	if err != nil {
		t.Fatal(err)
	}
	token := key.Value.Token
	p, err := actValidate(t, h, token)
	if err != nil || p.ActsAs != "user-1" || p.ActingRole != domain.RoleOwner {
		t.Fatalf("first validation: %+v, %v", p, err)
	}

	// The creator's role changes on the organization's stream.
	actAppend(t, store, domain.StreamOrganization, "org-a", event.New(domain.MemberRoleChanged,
		domain.MemberV1{OrganizationID: "org-a", UserID: "user-1", Role: domain.RoleAdmin, At: t0}))
	if p, err = actValidate(t, h, token); err != nil || p.ActingRole != domain.RoleAdmin {
		t.Fatalf("after the creator became admin: acting role %q, %v (want admin)", p.ActingRole, err)
	}
	if p, err = actValidate(t, h, token); err != nil || p.ActingRole != domain.RoleAdmin {
		t.Fatalf("validated again: acting role %q, %v", p.ActingRole, err)
	}

	// A wrong secret for a credential whose answer is kept is refused.
	if _, err := actValidate(t, h, token+"x"); errs.KindOf(err) != errs.KindAuthenticationRequired {
		t.Fatalf("a wrong secret: %v", err)
	}

	// The creator's user is deleted: the key speaks for nobody.
	actAppend(t, store, domain.StreamUser, "user-1", event.New(domain.UserDeleted, domain.UserChangedV1{UserID: "user-1", At: t0}))
	if _, err := actValidate(t, h, token); errs.KindOf(err) != errs.KindAuthenticationRequired {
		t.Fatalf("after the creator's deletion: %v", err)
	}
	actAppend(t, store, domain.StreamUser, "user-1", event.New(domain.UserRestored, domain.UserChangedV1{UserID: "user-1", At: t0}))
	if _, err := actValidate(t, h, token); err != nil {
		t.Fatalf("after the creator's restoration: %v", err)
	}

	// The key is revoked.
	if _, err := h.RevokeAPIKey(ctx, keyMeta("org-a"), identitycmd.RevokeAPIKey{KeyID: key.Value.KeyID}); err != nil {
		t.Fatal(err)
	}
	if _, err := actValidate(t, h, token); errs.KindOf(err) != errs.KindAuthenticationRequired {
		t.Fatalf("after revocation: %v", err)
	}
}

// TestValidationAnswerOfASession: a session's answer follows its user's and
// organization's streams and its own (logout), and ends with its access
// token's expiry although no stream moved.
func TestValidationAnswerOfASession(t *testing.T) {
	h, store, clock := actHandlers(t)
	start := func(secret string) (string, string) {
		sid := uuid.NewString()
		actAppend(t, store, domain.StreamSession, sid, event.New(domain.SessionStarted, domain.SessionStartedV1{
			SessionID: sid, UserID: "user-1", OrganizationID: "org-a", AccessHash: identitycmd.HashSecret(secret),
			RefreshHash: identitycmd.HashSecret("refresh-" + secret), AccessExpiresAt: t0.Add(15 * time.Minute),
			ExpiresAt: t0.Add(24 * time.Hour), StartedAt: t0}))
		return sid, identitycmd.AccessTokenPrefix + sid + "." + secret
	}
	sid, token := start("first-secret")
	if p, err := actValidate(t, h, token); err != nil || p.Role != domain.RoleOwner || p.SessionID != sid {
		t.Fatalf("first validation: %+v, %v", p, err)
	}
	actAppend(t, store, domain.StreamOrganization, "org-a", event.New(domain.MemberRoleChanged,
		domain.MemberV1{OrganizationID: "org-a", UserID: "user-1", Role: domain.RoleAdmin, At: t0}))
	if p, err := actValidate(t, h, token); err != nil || p.Role != domain.RoleAdmin {
		t.Fatalf("after the role change: role %q, %v (want admin)", p.Role, err)
	}

	// Nothing moves, but the access token expires.
	clock.now = t0.Add(15*time.Minute - time.Nanosecond)
	if _, err := actValidate(t, h, token); err != nil {
		t.Fatalf("just before the access token's expiry: %v", err)
	}
	clock.now = t0.Add(15 * time.Minute)
	if _, err := actValidate(t, h, token); errs.KindOf(err) != errs.KindAuthenticationRequired {
		t.Fatalf("at the access token's expiry: %v", err)
	}

	// Logout, and logout everywhere (the user's stream).
	clock.now = t0
	_, token = start("second-secret")
	sid3, token3 := start("third-secret")
	for _, tok := range []string{token, token3} {
		if _, err := actValidate(t, h, tok); err != nil {
			t.Fatal(err)
		}
	}
	actAppend(t, store, domain.StreamSession, sid3, event.New(domain.SessionEnded, domain.SessionEndedV1{SessionID: sid3, Reason: "logout", At: t0}))
	if _, err := actValidate(t, h, token3); errs.KindOf(err) != errs.KindAuthenticationRequired {
		t.Fatalf("after logout: %v", err)
	}
	if _, err := actValidate(t, h, token); err != nil {
		t.Fatalf("another session after the logout: %v", err)
	}
	actAppend(t, store, domain.StreamUser, "user-1", event.New(domain.UserSessionsRevoked, domain.UserSessionsRevokedV1{UserID: "user-1", Epoch: 1, At: t0}))
	if _, err := actValidate(t, h, token); errs.KindOf(err) != errs.KindAuthenticationRequired {
		t.Fatalf("after logout everywhere: %v", err)
	}
}

// mutatePrincipal changes every list of p in place, as a careless caller
// might: an element overwritten, an append into spare capacity. Each call
// writes values of its own (mark), so a second change shows too.
func mutatePrincipal(p *domain.Principal, mark string) {
	for _, list := range [][]string{p.Scopes, p.Permissions} {
		if len(list) > 0 {
			_ = append(list[:len(list)-1], mark) // writes over the last element
			list[0] = mark
			_ = append(list, mark)
		}
	}
	for i := range p.Workspaces {
		p.Workspaces[i].WorkspaceID = mark
		if len(p.Workspaces[i].AllowedScopes) > 0 {
			p.Workspaces[i].AllowedScopes[0] = mark
		}
	}
}

// TestValidationAnswerIsTheCallersOwn: a caller that changes the lists of
// the principal it was given (scopes, permissions, workspace bindings)
// changes nobody else's answer: not the next validation of the same
// credential (served from the answer cache), nor another session of the
// same user and role (whose permissions come from the same memo).
func TestValidationAnswerIsTheCallersOwn(t *testing.T) {
	ctx := context.Background()
	h, store, _ := actHandlers(t)
	key, err := h.CreateAPIKey(ctx, keyMeta("org-a"), identitycmd.CreateAPIKey{Name: "ci", Service: "status",
		Scopes: []string{"status:read", "status:write"},
		ResourceBindings: []domain.ResourceBinding{{ResourceType: domain.CanonicalResourceType, ResourceID: uuid.NewString(),
			AccessLevel: "write", AllowedScopes: []string{"status:read", "status:write"}}}})
	if err != nil {
		t.Fatal(err)
	}
	var firstID string
	session := func(secret string) string {
		sid := uuid.NewString()
		if firstID == "" {
			firstID = sid
		}
		actAppend(t, store, domain.StreamSession, sid, event.New(domain.SessionStarted, domain.SessionStartedV1{
			SessionID: sid, UserID: "user-1", OrganizationID: "org-a", AccessHash: identitycmd.HashSecret(secret),
			RefreshHash: identitycmd.HashSecret("refresh-" + secret), AccessExpiresAt: t0.Add(15 * time.Minute),
			ExpiresAt: t0.Add(24 * time.Hour), StartedAt: t0}))
		return identitycmd.AccessTokenPrefix + sid + "." + secret
	}
	first, second := session("first-secret"), session("second-secret")
	// The platform's catalog, so that the sessions' permissions are a list.
	catalog, err := domain.LoadCatalog(nil)
	if err != nil {
		t.Fatal(err)
	}
	seeded, err := catalog.Seed(domain.DefaultCatalog("http://apps.test"), t0)
	if err != nil {
		t.Fatal(err)
	}
	actAppend(t, store, domain.StreamCatalog, domain.CatalogStream, seeded...)

	encode := func(p domain.Principal) string {
		b, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	for _, tc := range []struct{ name, token, next string }{
		{"api key", key.Value.Token, key.Value.Token},
		{"session", first, first},
		{"another session of the user", first, second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := actValidate(t, h, tc.token)
			if err != nil {
				t.Fatal(err)
			}
			if tc.name == "api key" && (len(p.Scopes) == 0 || len(p.Workspaces) == 0) || tc.name != "api key" && len(p.Permissions) == 0 {
				t.Fatalf("the principal has lists too short to test: %+v", p)
			}
			for i := range 2 { // the first answer computed, then the kept one
				want, err := actValidate(t, h, tc.next)
				if err != nil {
					t.Fatal(err)
				}
				before := encode(want)
				mutatePrincipal(&p, fmt.Sprintf("mutated-%d", i))
				got, err := actValidate(t, h, tc.next)
				if err != nil {
					t.Fatal(err)
				}
				if after := encode(got); after != before {
					t.Fatalf("a caller's change to its principal reached the next answer:\nbefore %s\nafter  %s", before, after)
				}
				p = got
			}
		})
	}
	// A browser's sign-in check answers the same principal.
	t.Run("signed in", func(t *testing.T) {
		p, err := h.SignedIn(ctx, identitycmd.RefreshTokenPrefix+firstID+".refresh-first-secret")
		if err != nil || len(p.Permissions) == 0 {
			t.Fatalf("%+v, %v", p, err)
		}
		want, err := actValidate(t, h, second)
		if err != nil {
			t.Fatal(err)
		}
		before := encode(want)
		mutatePrincipal(&p, "mutated-signed-in")
		if got, err := actValidate(t, h, second); err != nil || encode(got) != before {
			t.Fatalf("a change to the signed-in principal reached another session's answer: %v\nbefore %s\nafter  %s", err, before, encode(got))
		}
	})
}
