package identity_test

import (
	"strings"
	"testing"

	"github.com/platform/backend/domain/event/eventtest"
	"github.com/platform/backend/domain/identity"
)

// defaultAccess is an organization that changed nothing: default bundles,
// the default services.
func defaultAccess(t *testing.T) (*identity.Catalog, *identity.OrgAccess) {
	t.Helper()
	empty, _ := identity.LoadCatalog(nil)
	changes, err := empty.Seed(catalogEntries("https://apps.example"), testNow)
	if err != nil {
		t.Fatal(err)
	}
	cat, err := identity.LoadCatalog(eventtest.History(t, changes...))
	if err != nil {
		t.Fatal(err)
	}
	acc, err := identity.LoadOrgAccess("org-1", nil)
	if err != nil {
		t.Fatal(err)
	}
	return cat, acc
}

// The role ladder as route permissions see it: what validation puts on a
// session principal under the default bundles.
func TestMemberPermissions(t *testing.T) {
	cat, acc := defaultAccess(t)
	tests := []struct {
		role     string
		platform bool
		has      []string
		lacks    []string
	}{
		{"guest", false, []string{"app_platform_auth.organizations:read", "status.status:read"},
			[]string{"status.status:write", "app_platform_auth.users:manage"}},
		{"", false, []string{"status.status:write", "ops.history:read"}, // missing role = member
			[]string{"app_platform_auth.users:manage", "status.status:poll", "app_platform_auth.permissions:manage"}},
		{"admin", false, []string{"app_platform_auth.users:manage", "status.status:poll", "app_platform_auth.api_keys:write"},
			[]string{"app_platform_auth.organizations:delete", "ops.projections:replay", "app_platform_auth.privacy:maintain"}},
		{"owner", false, []string{"app_platform_auth.organizations:delete", "app_platform_auth.users:manage"},
			[]string{"ops.projections:replay", "ops.projections:read", "app_platform_auth.privacy:maintain"}},
		{"member", true, []string{"ops.projections:replay", "app_platform_auth.privacy:maintain", "status.status:write"}, nil},
	}
	for _, tc := range tests {
		got := identity.MemberPermissions(acc.EvalInput(cat, "user-1", tc.role, tc.platform))
		p := identity.Principal{Permissions: got}
		for _, s := range tc.has {
			if !p.Allows(s) {
				t.Errorf("role %q (platform %v) lacks %s (has %v)", tc.role, tc.platform, s, got)
			}
		}
		for _, s := range tc.lacks {
			if p.Allows(s) {
				t.Errorf("role %q (platform %v) must not hold %s", tc.role, tc.platform, s)
			}
		}
	}
}

// A key holds its scopes in its target application only, never a platform
// scope, and nothing in an application the organization may not use.
func TestKeyPermissions(t *testing.T) {
	cat, acc := defaultAccess(t)
	tests := []struct {
		name     string
		scopes   []string
		service  string
		admin    bool
		want     []string
		bindings []identity.ResourceBinding
	}{
		{"targeted", []string{"status:read", "posts:read"}, "status", false, []string{"status.status:read"}, nil},
		{"untargeted: every usable app declaring it", []string{"organizations:read", "status:read"}, "", false,
			[]string{"app_platform_auth.organizations:read", "status.status:read"}, nil},
		{"star never reaches platform scopes", []string{"*"}, "ops", true, []string{"ops.history:read"}, nil},
		{"platform scope named, not administration", []string{"projections:replay"}, "ops", false, []string{}, nil},
		{"operator key of the administration", []string{"projections:replay"}, "ops", true, []string{"ops.projections:replay"}, nil},
		{"app without access", []string{"studio:read"}, "studio", false, []string{}, nil},
		{"bound key: allowed scopes at the access level", []string{"status:read", "status:write", "status:poll"}, "status", false,
			[]string{"status.status:read"}, []identity.ResourceBinding{{ResourceType: "workspace", ResourceID: "org-1", AccessLevel: "read",
				AllowedScopes: []string{"status:read", "status:write"}}}},
		{"bound key at write level", []string{"status:read", "status:write", "status:poll"}, "status", false,
			[]string{"status.status:read", "status.status:write"}, []identity.ResourceBinding{{ResourceType: "workspace", ResourceID: "org-1",
				AccessLevel: "write", AllowedScopes: []string{"status:read", "status:write"}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := identity.KeyPermissions(tc.scopes, tc.service, tc.bindings, tc.admin, cat, acc)
			if len(got) != len(tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Fatalf("got %v, want %v", got, tc.want)
				}
			}
		})
	}
}

// A session handed to an application that is not first-party holds that
// application's permissions only; first-party service sessions hold all.
func TestSessionPermissions(t *testing.T) {
	cat, acc := defaultAccess(t)
	owner := acc.EvalInput(cat, "user-1", "owner", false)
	if got := identity.SessionPermissions(owner, "status", cat); !(identity.Principal{Permissions: got}).Allows("app_platform_auth.api_keys:write") {
		t.Fatalf("first-party service session lost the member's permissions: %v", got)
	}
	got := identity.SessionPermissions(owner, "third_party", cat)
	for _, p := range got {
		if !strings.HasPrefix(p, "third_party.") {
			t.Fatalf("third-party session holds %s", p)
		}
	}
	platform := acc.EvalInput(cat, "user-1", "member", true)
	got = identity.SessionPermissions(platform, "third_party", cat)
	if p := (identity.Principal{Permissions: got}); p.Allows("app_platform_auth.organizations:delete") || !p.Allows("third_party.things:read") {
		t.Fatalf("platform session handed to a third party: %v", got)
	}
}
