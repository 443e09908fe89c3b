package principal

import (
	"fmt"
	"testing"
)

func TestHolds(t *testing.T) {
	for _, c := range []struct {
		patterns   []string
		permission string
		want       bool
	}{
		{[]string{"status.status:read"}, "status.status:read", true},
		{[]string{"status.status:read"}, "status.status:write", false},
		{[]string{"status.*:*"}, "status.incidents:write", true},
		{[]string{"*.*:*"}, "ops.projections:replay", true},
		{[]string{"status.*:read"}, "ops.history:read", false},
		{[]string{"not a permission"}, "status.status:read", false},
		{[]string{"*.*:*"}, "status:read", false}, // a short scope is not a permission string
		{nil, "status.status:read", false},
		{[]string{"status.status"}, "status.status", false}, // equal, but not a permission string
		{[]string{"status.incidents:read", "status.*:write"}, "status.status:write", true},
	} {
		if got := Holds(c.patterns, c.permission); got != c.want {
			t.Errorf("Holds(%v, %q) = %v, want %v", c.patterns, c.permission, got, c.want)
		}
	}
}

func TestSeesOrganization(t *testing.T) {
	member := Principal{OrganizationID: "org-a"}
	platform := Principal{OrganizationID: "org-admin", PlatformRole: "platform_admin"}
	if !member.SeesOrganization("org-a") || member.SeesOrganization("org-b") || member.SeesOrganization("") {
		t.Error("a member sees its own organization only")
	}
	if !platform.SeesOrganization("org-b") || platform.SeesOrganization("") {
		t.Error("a platform role sees every organization (never the empty one)")
	}
}

// TestActsAtLeast: a session ranks by its current role, a key by its
// creator's (ActingRole: a member's key is a member's whatever Role says),
// a platform role in the administration organization passes, a service
// ranks below every role.
func TestActsAtLeast(t *testing.T) {
	for _, c := range []struct {
		name string
		p    Principal
		want bool
		user string
	}{
		{"owner session", Principal{Type: "user", Role: RoleOwner, UserID: "u1"}, true, "u1"},
		{"admin session", Principal{Type: "user", Role: RoleAdmin, UserID: "u1"}, true, "u1"},
		{"member session", Principal{Type: "user", Role: RoleMember, UserID: "u1"}, false, "u1"},
		{"no role claim: member", Principal{Type: "user", UserID: "u1"}, false, "u1"},
		{"guest session", Principal{Type: "user", Role: RoleGuest, UserID: "u1"}, false, "u1"},
		{"platform admin", Principal{Type: "user", Role: RoleMember, PlatformRole: RolePlatformAdmin, UserID: "u1"}, true, "u1"},
		{"an admin's key", Principal{Type: "api_key", ID: "k1", Role: RoleMember, ActsAs: "u1", ActingRole: RoleAdmin}, true, "u1"},
		{"a member's key", Principal{Type: "api_key", ID: "k1", Role: RoleMember, ActsAs: "u1", ActingRole: RoleMember}, false, "u1"},
		{"a key without an acting role", Principal{Type: "api_key", ID: "k1", Role: RoleOwner}, false, ""},
		{"a service", Principal{Type: "service", ID: "service:identity", Role: RoleOwner}, false, ""},
	} {
		if got := c.p.ActsAtLeast(RoleAdmin); got != c.want {
			t.Errorf("%s: acts as admin %v, want %v", c.name, got, c.want)
		}
		if got := c.p.ActingUser(); got != c.user {
			t.Errorf("%s: acts as user %q, want %q", c.name, got, c.user)
		}
	}
}

// BenchmarkHolds is an authorized request of a key with every tenant scope:
// the permission near the end of ~150 patterns without wildcards.
func BenchmarkHolds(b *testing.B) {
	var patterns []string
	for i := range 150 {
		patterns = append(patterns, fmt.Sprintf("app%d.resource:write", i))
	}
	patterns = append(patterns, "status.status:write")
	for b.Loop() {
		if !Holds(patterns, "status.status:write") {
			b.Fatal("not held")
		}
	}
}
