package identity_test

import (
	"slices"
	"testing"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/identity"
)

// TestNarrowToCreator: a key holds its permissions only while its creator
// does (an admin's users:manage key, the admin demoted to guest, creates no
// more users: black-box attack run).
func TestNarrowToCreator(t *testing.T) {
	cat, acc := defaultAccess(t)
	member := func(role string) []string {
		return identity.MemberPermissions(acc.EvalInput(cat, "u-1", role, false))
	}
	key := []string{"app_platform_auth.users:manage", "app_platform_auth.users:read", "status.status:write"}
	tests := []struct {
		name    string
		creator identity.CreatorStanding
		want    []string
	}{
		{"admin creator", identity.CreatorStanding{Kind: identity.CreatorUser, Present: true, Permissions: member("admin")}, key},
		{"demoted to member", identity.CreatorStanding{Kind: identity.CreatorUser, Present: true, Permissions: member("member")},
			[]string{"app_platform_auth.users:read", "status.status:write"}},
		{"demoted to guest", identity.CreatorStanding{Kind: identity.CreatorUser, Present: true, Permissions: member("guest")},
			[]string{"app_platform_auth.users:read"}},
		{"platform role", identity.CreatorStanding{Kind: identity.CreatorUser, Present: true, Permissions: identity.PlatformPermissions}, key},
		{"removed or erased", identity.CreatorStanding{Kind: identity.CreatorUser, Present: false, Permissions: member("owner")}, []string{}},
		{"creator key narrowed", identity.CreatorStanding{Kind: identity.CreatorAPIKey, Present: true,
			Permissions: []string{"status.status:write"}}, []string{"status.status:write"}},
		{"creator key revoked", identity.CreatorStanding{Kind: identity.CreatorAPIKey}, []string{}},
		{"system (bootstrap path)", identity.CreatorStanding{Kind: identity.CreatorSystem}, key},
		{"unknown kind", identity.CreatorStanding{Kind: "anonymous", Present: true, Permissions: []string{"*.*:*"}}, []string{}},
	}
	for _, tt := range tests {
		if got := identity.NarrowToCreator(key, tt.creator); !slices.Equal(got, tt.want) {
			t.Errorf("%s: got %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestKeyRecordsItsCreatorKind(t *testing.T) {
	k, _ := identity.LoadAPIKey(nil)
	ch, err := k.Create(identity.NewAPIKey{KeyID: "k", OrganizationID: "o", CreatedBy: "u", CreatedByType: "user", Name: "n",
		Scopes: []string{"status:read"}, SecretHash: "h"}, testNow)
	if err != nil {
		t.Fatal(err)
	}
	if c := ch[0].Payload.(identity.APIKeyCreatedV1); c.CreatedBy != "u" || c.CreatedByType != identity.CreatorUser {
		t.Fatalf("created %+v", c)
	}
}

// TestCheckKeyChange: who may rename, narrow or revoke a key (a plain
// member revoked the owner's keys: black-box attack run).
func TestCheckKeyChange(t *testing.T) {
	user := func(id, role string) identity.Caller {
		return identity.Caller{PrincipalID: id, Type: "user", OrganizationID: "o", Role: role}
	}
	key := func(id string, perms ...string) identity.Caller {
		return identity.Caller{PrincipalID: id, Type: "api_key", OrganizationID: "o", Role: "member", Permissions: perms}
	}
	platform := identity.Caller{PrincipalID: "p", Type: "user", OrganizationID: "adm", Role: "member", PlatformRole: identity.RolePlatformAdmin,
		InAdministration: true}
	ownerKey := identity.KeyLineage{Creators: []string{"owner"}, RootRole: "owner"}
	memberKey := identity.KeyLineage{Creators: []string{"m1"}, RootRole: "member"}
	adminChain := identity.KeyLineage{Creators: []string{"k1", "a1"}, RootRole: "admin"} // a1 minted k1, k1 minted this key
	orphan := identity.KeyLineage{Creators: []string{"gone"}}                            // creator left, or the system
	tests := []struct {
		name   string
		caller identity.Caller
		l      identity.KeyLineage
		ok     bool
	}{
		{"member on the owner's key", user("m1", "member"), ownerKey, false},
		{"admin on the owner's key", user("a1", "admin"), ownerKey, false},
		{"super_admin on the owner's key", user("s1", "super_admin"), ownerKey, false},
		{"another owner on the owner's key", user("o2", "owner"), ownerKey, true},
		{"the creator itself", user("owner", "owner"), ownerKey, true},
		{"a demoted creator still narrows its own key", user("m1", "guest"), memberKey, true},
		{"another member on a member's key", user("m2", "member"), memberKey, true},
		{"a guest on a member's key", user("g1", "guest"), memberKey, false},
		{"platform role", platform, ownerKey, true},
		{"the key itself", key("this"), ownerKey, true},
		{"the minting key", key("k1"), adminChain, true},
		{"the root user of the chain", user("a1", "admin"), adminChain, true},
		{"member on an admin's chain", user("m1", "member"), adminChain, false},
		{"member on an orphan", user("m1", "member"), orphan, false},
		{"admin on an orphan", user("a1", "admin"), orphan, true},
		{"key without users:manage on a member's key", key("kx", "app_platform_auth.api_keys:write"), memberKey, false},
		{"key with users:manage on an admin's key", key("kx", "app_platform_auth.users:manage"), adminChain, true},
		{"key with users:manage on the owner's key", key("kx", "*.*:*"), ownerKey, false},
	}
	for _, tt := range tests {
		err := identity.CheckKeyChange(tt.caller, "this", tt.l)
		if (err == nil) != tt.ok {
			t.Errorf("%s: %v", tt.name, err)
		}
		if err != nil && errs.KindOf(err) != errs.KindPermissionDenied {
			t.Errorf("%s: %v, want permission_denied", tt.name, err)
		}
	}
}
