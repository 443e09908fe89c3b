package identity_test

import "github.com/platform/backend/domain/identity"

// testCatalog is the catalog a platform with the status and ops modules
// seeds (their entries are the modules' declarations, internal/modules).
func catalogEntries(baseURL string) []identity.CatalogEntry {
	return identity.WithDeclared(identity.DefaultCatalog(baseURL), []identity.CatalogEntry{
		identity.FirstPartyEntry(baseURL, "status", "Status", identity.SurfaceApp, "operations", true, true,
			[]string{"status:read", "status:write", "status:poll"}, nil, []string{"workspace", "status_page"}),
		identity.FirstPartyEntry(baseURL, "ops", "Operations console", identity.SurfaceConsole, "operations", false, true,
			[]string{"history:read"}, []string{"projections:read", "projections:replay"}, nil),
	})
}
