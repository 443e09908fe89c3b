package access

import (
	"testing"

	domain "github.com/platform/backend/domain/identity"
)

// TestRedactOwners: a developer app's owner is shown to that organization's
// principals and to platform roles only.
func TestRedactOwners(t *testing.T) {
	entries := func() []domain.CatalogEntry {
		return []domain.CatalogEntry{{AppID: "status"}, {AppID: "crm", DeveloperAppID: "dapp_1", OwnerOrganizationID: "org-a"}}
	}
	for name, tc := range map[string]struct {
		p    domain.Principal
		sees bool
	}{
		"owner organization's key":  {domain.Principal{Type: "api_key", OrganizationID: "org-a"}, true},
		"owner organization's user": {domain.Principal{Type: "user", OrganizationID: "org-a"}, true},
		"platform role":             {domain.Principal{Type: "user", OrganizationID: "admin", PlatformRole: domain.RolePlatformAdmin}, true},
		"another organization":      {domain.Principal{Type: "user", OrganizationID: "org-b"}, false},
		"service token":             {domain.Principal{Type: "service", Service: "payments"}, false},
	} {
		got := RedactOwners(entries(), tc.p)
		if (got[1].OwnerOrganizationID == "org-a") != tc.sees || got[1].DeveloperAppID != "dapp_1" || got[0].OwnerOrganizationID != "" {
			t.Errorf("%s: %+v", name, got)
		}
	}
}
