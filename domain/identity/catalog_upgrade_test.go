package identity_test

import (
	"testing"

	"github.com/platform/backend/domain/event/eventtest"
	"github.com/platform/backend/domain/identity"
)

// TestModuleEntriesEqualTheDefaultsTheyReplaced: the status and ops entries
// moved from DefaultCatalog into their modules' declarations; a catalog
// seeded before the move is unchanged by seeding after it, so an upgraded
// deployment appends nothing at start. (An entry without resource types
// had become an empty list instead of none, and was seeded again.)
func TestModuleEntriesEqualTheDefaultsTheyReplaced(t *testing.T) {
	const base = "https://apps.test"
	before := []identity.CatalogEntry{ // DefaultCatalog's entries before the modules, as written then
		{AppID: "status", Name: "Status", SurfaceKind: identity.SurfaceApp, SurfaceGroup: "operations", Launchable: true, FirstParty: true,
			DefaultAccess: true, Scopes: []string{"status:read", "status:write", "status:poll"},
			ResourceTypes: []identity.ResourceType{{Type: "workspace", Canonical: identity.CanonicalResourceType},
				{Type: "status_page", Canonical: identity.CanonicalResourceType}},
			EntrypointURL: base + "/status"},
		{AppID: "ops", Name: "Operations console", SurfaceKind: identity.SurfaceConsole, SurfaceGroup: "operations", FirstParty: true,
			DefaultAccess: true, Scopes: []string{"history:read"},
			PlatformScopes: []string{"projections:read", "projections:replay"}, EntrypointURL: base + "/ops"},
	}
	empty, _ := identity.LoadCatalog(nil)
	seeded, err := empty.Seed(before, testNow)
	if err != nil {
		t.Fatal(err)
	}
	c, err := identity.LoadCatalog(eventtest.History(t, seeded...))
	if err != nil {
		t.Fatal(err)
	}
	var declared []identity.CatalogEntry
	for _, e := range catalogEntries(base) {
		if e.AppID == "status" || e.AppID == "ops" {
			declared = append(declared, e)
		}
	}
	again, err := c.Seed(declared, testNow)
	if err != nil {
		t.Fatal(err)
	}
	for _, ch := range again {
		t.Errorf("seeded again: %+v", ch.Payload)
	}
}
