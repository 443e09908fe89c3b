package principal

import "testing"

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
