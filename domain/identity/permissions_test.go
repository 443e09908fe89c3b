package identity_test

import (
	"slices"
	"testing"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event/eventtest"
	"github.com/platform/backend/domain/identity"
)

func testCatalog(t *testing.T) *identity.Catalog {
	t.Helper()
	c, _ := identity.LoadCatalog(nil)
	changes, err := c.Seed(catalogEntries("https://apps.test"), testNow)
	if err != nil {
		t.Fatal(err)
	}
	c, err = identity.LoadCatalog(eventtest.History(t, changes...))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestHolds(t *testing.T) {
	tests := []struct {
		patterns []string
		perm     string
		want     bool
	}{
		{[]string{"status.status:read"}, "status.status:read", true},
		{[]string{"status.status:read"}, "status.status:write", false},
		{[]string{"*.*:read"}, "design.brands:read", true},
		{[]string{"*.*:read"}, "design.brands:write", false},
		{[]string{"status.*:*"}, "status.status:poll", true},
		{[]string{"status.*:*"}, "ops.history:read", false},
		{[]string{"*.*:*"}, "anything.x:y", true},
		{[]string{"status:read"}, "status.status:read", false}, // a short scope is not a permission string
		{[]string{"*.*:*"}, "not-a-permission", false},
		{nil, "status.status:read", false},
	}
	for _, tt := range tests {
		if got := identity.Holds(tt.patterns, tt.perm); got != tt.want {
			t.Errorf("Holds(%v, %q) = %v, want %v", tt.patterns, tt.perm, got, tt.want)
		}
	}
}

func TestEvaluate(t *testing.T) {
	cat := testCatalog(t)
	acc, _ := identity.LoadOrgAccess("o", nil)
	tests := []struct {
		name        string
		role        string
		platform    bool
		override    identity.Overrides
		wantHas     []string
		wantMissing []string
	}{
		{name: "missing role is member", role: "", wantHas: []string{"status.status:write", "status.status:read"},
			wantMissing: []string{"status.status:poll", "app_platform_auth.permissions:manage"}},
		{name: "guest reads", role: "guest", wantHas: []string{"status.status:read"}, wantMissing: []string{"status.status:write"}},
		{name: "admin manages", role: "admin", wantHas: []string{"app_platform_auth.permissions:manage", "status.status:poll"}},
		{name: "owner holds all of accessible apps only, no platform scope", role: "owner",
			wantHas:     []string{"ops.history:read", "app_platform_auth.organizations:delete"},
			wantMissing: []string{"design.brands:read", "ops.projections:replay", "app_platform_auth.privacy:maintain"}},
		{name: "grant adds", role: "member", override: identity.Overrides{Grant: []string{"status.status:poll"}},
			wantHas: []string{"status.status:poll"}},
		{name: "deny wins over bundle and grant", role: "owner",
			override:    identity.Overrides{Grant: []string{"status.status:poll"}, Deny: []string{"status.*:*"}},
			wantMissing: []string{"status.status:poll", "status.status:read"}, wantHas: []string{"ops.history:read"}},
		{name: "platform role holds every app and the platform scopes", role: "member", platform: true,
			wantHas: []string{"design.brands:read", "studio.studio:write", "ops.projections:replay"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := acc.EvalInput(cat, "u", tt.role, tt.platform)
			in.Override = tt.override
			ev := identity.Evaluate(in)
			for _, p := range tt.wantHas {
				if !slices.Contains(ev.EffectivePermissions, p) {
					t.Errorf("missing %s in %v", p, ev.EffectivePermissions)
				}
			}
			for _, p := range tt.wantMissing {
				if slices.Contains(ev.EffectivePermissions, p) {
					t.Errorf("holds %s", p)
				}
			}
			for _, e := range ev.Entries {
				if len(e.Sources) == 0 {
					t.Errorf("entry %s without sources", e.Permission)
				}
				if e.Allowed != slices.Contains(ev.EffectivePermissions, e.Permission) {
					t.Errorf("entry %s allowed=%v disagrees with effectivePermissions", e.Permission, e.Allowed)
				}
			}
		})
	}
}

func TestAuthorize(t *testing.T) {
	admin := identity.Rule{Permission: "app_platform_auth.permissions:manage", OrgAdminRoute: true}
	plain := identity.Rule{Permission: "status.status:write"}
	user := func(role string) identity.Caller {
		return identity.Caller{Type: "user", OrganizationID: "o", Role: role, Permissions: []string{"status.status:read"}}
	}
	platform := identity.Caller{Type: "user", OrganizationID: "adm", Role: "member", PlatformRole: identity.RolePlatformAdmin, InAdministration: true}
	platformElsewhere := platform
	platformElsewhere.InAdministration = false
	key := identity.Caller{Type: "api_key", OrganizationID: "o", Role: "member", Permissions: []string{"status.status:write"}}
	tests := []struct {
		name   string
		caller identity.Caller
		target string
		rule   identity.Rule
		want   errs.Kind
	}{
		{"owner keeps elevated access on an org admin route", user("owner"), "o", admin, 0},
		{"admin keeps it too", user("admin"), "o", admin, 0},
		{"member has no elevated access", user("member"), "o", admin, errs.KindPermissionDenied},
		{"owner has no bypass on other routes", user("owner"), "o", plain, errs.KindPermissionDenied},
		{"owner of another organization sees nothing", user("owner"), "other", admin, errs.KindNotFound},
		{"permission held", key, "o", plain, 0},
		{"a key is never an org admin", key, "o", admin, errs.KindPermissionDenied},
		{"foreign organization is not found", key, "other", plain, errs.KindNotFound},
		{"platform role in the administration organization bypasses", platform, "any", plain, 0},
		{"platform role elsewhere does not", platformElsewhere, "any", plain, errs.KindNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := identity.Authorize(tt.caller, tt.target, tt.rule)
			if (err == nil) != (tt.want == 0) || (err != nil && errs.KindOf(err) != tt.want) {
				t.Fatalf("Authorize = %v, want kind %v", err, tt.want)
			}
		})
	}
}

// A developer application holding an id a later first-party entry wants
// keeps it; seeding skips that entry (and names it) instead of failing the
// platform's start.
func TestSeedSkipsSquattedIDs(t *testing.T) {
	c, _ := identity.LoadCatalog(nil)
	changes, _, err := c.RegisterDeveloperApp(identity.DeveloperApp{DeveloperAppID: "dapp_1", AppID: "newapp", Name: "Squatter",
		OwnerOrganizationID: "org-1", SurfaceGroup: "create", Scopes: []string{"things:read"}}, testNow)
	if err != nil {
		t.Fatal(err)
	}
	c, _ = identity.LoadCatalog(eventtest.History(t, changes...))
	first := identity.CatalogEntry{AppID: "newapp", Name: "New first-party app", SurfaceKind: identity.SurfaceApp, SurfaceGroup: "create",
		FirstParty: true, Scopes: []string{"things:write"}}
	seeded, err := c.Seed([]identity.CatalogEntry{first}, testNow)
	if err != nil || len(seeded) != 0 {
		t.Fatalf("seed over a developer app: %v %v", seeded, err)
	}
	if got := c.SquattedIDs([]identity.CatalogEntry{first}); len(got) != 1 || got[0] != "newapp" {
		t.Fatalf("squatted %v", got)
	}
}
