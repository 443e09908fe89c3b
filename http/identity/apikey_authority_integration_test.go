package identity_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/platform/backend/commands"
	identitycmd "github.com/platform/backend/commands/identity"
	domain "github.com/platform/backend/domain/identity"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/internal/apptest"
)

// Helpers of this file are prefixed akt (API key authority test).

type aktKey struct {
	KeyID string `json:"key_id"`
	Token string `json:"token"`
}

func aktCreate(t *testing.T, h *apptest.Harness, token, service string, scopes ...string) aktKey {
	t.Helper()
	res := h.Do(t, "identity", http.MethodPost, "/api/api-keys", token, map[string]any{"name": "k", "service": service, "scopes": scopes})
	apptest.Must(t, res, http.StatusCreated, "create key")
	var k aktKey
	res.JSON(t, &k)
	return k
}

func aktRename(t *testing.T, h *apptest.Harness, token, keyID string, scopes ...string) apptest.Response {
	t.Helper()
	return h.Do(t, "identity", http.MethodPatch, "/api/api-keys/"+keyID, token, map[string]any{"name": "renamed", "scopes": scopes})
}

func aktRevoke(t *testing.T, h *apptest.Harness, token, keyID string) apptest.Response {
	t.Helper()
	return h.Do(t, "identity", http.MethodDelete, "/api/api-keys/"+keyID, token, nil)
}

// TestAPIKeyChangesFollowTheLadder: api_keys:write lets a principal manage
// keys, not every key. A plain member renamed, narrowed and revoked the
// owner's keys (black-box attack run); now only the key's creator (or the
// key itself, or the key that minted it) or a role at or above the
// creator's current role may, and others get 403.
func TestAPIKeyChangesFollowTheLadder(t *testing.T) {
	h := apptest.Start(t, apptest.Options{})
	owner := iatRegister(t, h, "keyladder")
	_, adEmail, adPassword := iatCreateUser(t, h, owner.Access, "admin")
	_, memEmail, memPassword := iatCreateUser(t, h, owner.Access, "member")
	_, mem2Email, mem2Password := iatCreateUser(t, h, owner.Access, "member")
	_, guestEmail, guestPassword := iatCreateUser(t, h, owner.Access, "guest")
	admin := iatLoginEventually(t, h, adEmail, adPassword)
	member := iatLoginEventually(t, h, memEmail, memPassword)
	member2 := iatLoginEventually(t, h, mem2Email, mem2Password)
	guest := iatLoginEventually(t, h, guestEmail, guestPassword)

	ownerKey := aktCreate(t, h, owner.Access, "app_platform_auth", "api_keys:write", "users:read")
	for _, who := range []struct {
		name, token string
	}{{"member", member.AccessToken}, {"admin", admin.AccessToken}} {
		apptest.ExpectProblem(t, aktRename(t, h, who.token, ownerKey.KeyID, "users:read"), http.StatusForbidden, "permission_denied")
		apptest.ExpectProblem(t, aktRevoke(t, h, who.token, ownerKey.KeyID), http.StatusForbidden, "permission_denied")
	}
	if status, p := iatValidate(t, h, ownerKey.Token); status != http.StatusOK || !contains(p.Permissions, "app_platform_auth.api_keys:write") {
		t.Fatalf("the owner's key after the refused changes: %d %+v", status, p)
	}

	// A member's key: the member itself, another member (same rank) and the
	// admin may change it; a guest may not (and lacks api_keys:write anyway).
	memberKey := aktCreate(t, h, member.AccessToken, "status", "status:read")
	apptest.Must(t, aktRename(t, h, member.AccessToken, memberKey.KeyID, "status:read"), http.StatusOK, "the creator renames its key")
	apptest.Must(t, aktRename(t, h, member2.AccessToken, memberKey.KeyID, "status:read"), http.StatusOK, "a member renames a member's key")
	apptest.ExpectProblem(t, aktRevoke(t, h, guest.AccessToken, memberKey.KeyID), http.StatusForbidden, "permission_denied")

	// A key the owner's key minted: the minting key changes it; the member
	// cannot (its root creator is the owner).
	minted := aktCreate(t, h, ownerKey.Token, "app_platform_auth", "users:read")
	apptest.ExpectProblem(t, aktRevoke(t, h, member.AccessToken, minted.KeyID), http.StatusForbidden, "permission_denied")
	apptest.Must(t, aktRename(t, h, ownerKey.Token, minted.KeyID, "users:read"), http.StatusOK, "the minting key renames it")
	apptest.Must(t, aktRevoke(t, h, owner.Access, minted.KeyID), http.StatusOK, "the root creator revokes it")

	// A key may revoke itself; the admin revokes the member's key.
	self := aktCreate(t, h, member.AccessToken, "app_platform_auth", "api_keys:write")
	apptest.Must(t, aktRevoke(t, h, self.Token, self.KeyID), http.StatusOK, "a key revokes itself")
	apptest.Must(t, aktRevoke(t, h, admin.AccessToken, memberKey.KeyID), http.StatusOK, "the admin revokes the member's key")
	apptest.Must(t, aktRevoke(t, h, owner.Access, ownerKey.KeyID), http.StatusOK, "the owner revokes its own key")
}

// TestAPIKeyFollowsItsCreator: a key holds its scopes only while its
// creator holds them. An admin minted a users:manage key, was demoted to
// guest and removed, and the key still created users (black-box attack
// run). Now the key narrows with the demotion and holds nothing (401) once
// its creator is gone; keys minted by a key follow that key; bootstrap and
// operator keys keep working.
func TestAPIKeyFollowsItsCreator(t *testing.T) {
	h := apptest.Start(t, apptest.Options{})
	ctx := context.Background()
	owner := iatRegister(t, h, "keycreator")
	adID, adEmail, adPassword := iatCreateUser(t, h, owner.Access, "admin")
	admin := iatLoginEventually(t, h, adEmail, adPassword)

	key := aktCreate(t, h, admin.AccessToken, "app_platform_auth", "users:manage", "users:read", "api_keys:write")
	child := aktCreate(t, h, key.Token, "app_platform_auth", "users:read")
	// The same creator recorded the old way (no creator type: inferred from the id).
	legacy, err := h.Identity().CreateAPIKey(ctx, commands.Meta{OrganizationID: owner.OrgID, Actor: eventstore.Actor{ID: adID}},
		identitycmd.CreateAPIKey{Name: "legacy", Service: "app_platform_auth", Scopes: []string{"users:manage"}})
	if err != nil {
		t.Fatal(err)
	}
	apptest.Must(t, h.Do(t, "identity", http.MethodPost, "/api/users", key.Token, map[string]any{"email": iatEmail("bykey"), "role": "member"}),
		http.StatusAccepted, "the admin's key creates a user")
	if _, p := iatValidate(t, h, legacy.Value.Token); !contains(p.Permissions, "app_platform_auth.users:manage") {
		t.Fatalf("the legacy key before the demotion: %+v", p)
	}

	apptest.Must(t, lctSetRole(t, h, owner.Access, owner.OrgID, adID, "guest"), http.StatusOK, "demote the admin to guest")
	for _, tok := range []string{key.Token, legacy.Value.Token} {
		status, p := iatValidate(t, h, tok)
		if status != http.StatusOK || contains(p.Permissions, "app_platform_auth.users:manage") || contains(p.Permissions, "app_platform_auth.api_keys:write") {
			t.Fatalf("a key of a guest holds more than a guest: %d %+v", status, p)
		}
	}
	if status, p := iatValidate(t, h, key.Token); !contains(p.Permissions, "app_platform_auth.users:read") {
		t.Fatalf("what the guest still holds stays: %d %+v", status, p)
	}
	apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodPost, "/api/users", key.Token, map[string]any{"email": iatEmail("bykey2"), "role": "member"}),
		http.StatusForbidden, "permission_denied")

	// Promoted again, the key holds its scopes again: nothing was revoked.
	apptest.Must(t, lctSetRole(t, h, owner.Access, owner.OrgID, adID, "admin"), http.StatusOK, "promote again")
	if _, p := iatValidate(t, h, key.Token); !contains(p.Permissions, "app_platform_auth.users:manage") {
		t.Fatalf("the key after the promotion: %+v", p)
	}

	// A narrower bundle of the creator's role narrows the key at once (the
	// memo follows the organization's access stream).
	apptest.Must(t, h.Do(t, "identity", http.MethodPut, "/api/role-bundles/admin", owner.Access,
		map[string]any{"permissions": []string{"*.*:read", "*.*:write"}}), http.StatusOK, "narrow the admin bundle")
	if _, p := iatValidate(t, h, key.Token); contains(p.Permissions, "app_platform_auth.users:manage") || !contains(p.Permissions, "app_platform_auth.users:read") {
		t.Fatalf("the key after the bundle change: %+v", p)
	}
	apptest.Must(t, h.Do(t, "identity", http.MethodPut, "/api/role-bundles/admin", owner.Access,
		map[string]any{"permissions": domain.DefaultRoleBundles[domain.RoleAdmin]}), http.StatusOK, "restore the admin bundle")

	// A soft-deleted creator leaves its keys holding nothing; restored, they work again.
	apptest.Must(t, lctDelete(t, h, owner.Access, adID, false), http.StatusOK, "soft-delete the admin's account")
	apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodPost, "/validate", key.Token, nil), http.StatusUnauthorized, "authentication_required")
	apptest.Must(t, h.Do(t, "identity", http.MethodPost, "/api/users/"+adID+"/restore", owner.Access, nil), http.StatusOK, "restore the admin")
	if _, p := iatValidate(t, h, key.Token); !contains(p.Permissions, "app_platform_auth.users:manage") {
		t.Fatalf("the key after the restore: %+v", p)
	}

	// Removed from the organization: the key, its child and the legacy key speak for nobody.
	apptest.Must(t, h.Do(t, "identity", http.MethodDelete, "/api/organizations/"+owner.OrgID+"/members/"+adID, owner.Access, nil),
		http.StatusOK, "remove the admin")
	for _, tok := range []string{key.Token, child.Token, legacy.Value.Token} {
		apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodPost, "/validate", tok, nil), http.StatusUnauthorized, "authentication_required")
	}
	apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodPost, "/api/users", key.Token, map[string]any{"email": iatEmail("bykey3"), "role": "member"}),
		http.StatusUnauthorized, "authentication_required")

	// A key minted by a revoked key holds nothing either.
	parent := aktCreate(t, h, owner.Access, "app_platform_auth", "api_keys:write", "users:read")
	kid := aktCreate(t, h, parent.Token, "app_platform_auth", "users:read")
	apptest.Must(t, h.Do(t, "identity", http.MethodGet, "/api/users/"+owner.UserID, kid.Token, nil), http.StatusOK, "the child key reads")
	apptest.Must(t, aktRevoke(t, h, owner.Access, parent.KeyID), http.StatusOK, "revoke the parent")
	apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodGet, "/api/users/"+owner.UserID, kid.Token, nil), http.StatusUnauthorized, "authentication_required")

	// Keys of the bootstrap path: the harness key (system), the operator
	// key, and a platformctl-style key whose creator is the bootstrap owner
	// (a platform_super_admin of the administration organization).
	boot, err := h.Identity().Bootstrap(ctx, commands.Meta{Actor: eventstore.Actor{ID: "platformctl", Type: "system"}},
		identitycmd.Bootstrap{OrganizationName: "Platform", Slug: iatSlug("adm"), Email: iatEmail("root"), Administration: true})
	if err != nil {
		t.Fatal(err)
	}
	bootKey, err := h.Identity().CreateAPIKey(ctx, commands.Meta{OrganizationID: boot.Organization.OrganizationID,
		Actor: eventstore.Actor{ID: boot.User.UserID, Type: "user"}}, identitycmd.CreateAPIKey{Name: "bootstrap", Scopes: apptest.OperatorScopes})
	if err != nil {
		t.Fatal(err)
	}
	for _, tok := range []string{bootKey.Value.Token, h.OperatorKey(t)} {
		apptest.Must(t, h.Do(t, "ops", http.MethodGet, "/api/projections", tok, nil), http.StatusOK, "an operator key lists projections")
		apptest.Must(t, h.Do(t, "identity", http.MethodPost, "/api/internal/service-tokens", tok, map[string]any{"service": "payments"}),
			http.StatusCreated, "an operator key issues a service token")
	}
	apptest.Must(t, h.Do(t, "status", http.MethodGet, "/api/incidents", "", nil), http.StatusOK, "the harness key")
}
