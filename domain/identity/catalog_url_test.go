package identity_test

import (
	"testing"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/identity"
)

// TestEntrypointURL: an application's entrypoint is shown in every
// member's launcher and receives the SSO codes, so it is an absolute
// http(s) URL without credentials, a developer's (the developer portal's
// registration) and a first-party seed's (PLATFORM_APPS_BASE_URL) alike.
func TestEntrypointURL(t *testing.T) {
	const detail = "must be an absolute http(s) URL without credentials"
	for _, tt := range []struct {
		url  string
		want string // the /entrypointUrl problem, "" when registered
	}{
		{"https://crm.example.com/app", ""},
		{"http://127.0.0.1:3000/crm", ""},
		{"", ""}, // not launchable
		{"https://user:secret@crm.example.com/app", detail},
		{"ftp://crm.example.com/app", detail},
		{"/crm", detail},
		{"https://crm.example.com/a b", detail},
	} {
		t.Run(tt.url, func(t *testing.T) {
			c, _ := identity.LoadCatalog(nil)
			_, _, err := c.RegisterDeveloperApp(identity.DeveloperApp{DeveloperAppID: "dapp_1", AppID: "crm", Name: "CRM",
				OwnerOrganizationID: "org-1", Scopes: []string{"boards:read"}, EntrypointURL: tt.url}, testNow)
			if got := entrypointProblem(t, err); got != tt.want {
				t.Fatalf("registration: %v, want %q", err, tt.want)
			}
			if tt.url == "" {
				return
			}
			_, err = c.Seed([]identity.CatalogEntry{{AppID: "notes", Name: "Notes", SurfaceKind: identity.SurfaceApp, SurfaceGroup: "create",
				FirstParty: true, Scopes: []string{"notes:read"}, EntrypointURL: tt.url}}, testNow)
			if got := entrypointProblem(t, err); got != tt.want {
				t.Fatalf("seed: %v, want %q", err, tt.want)
			}
		})
	}
}

func entrypointProblem(t *testing.T, err error) string {
	t.Helper()
	if err == nil {
		return ""
	}
	e, ok := errs.As(err)
	if !ok {
		t.Fatalf("%v is not a typed error", err)
	}
	for _, f := range e.Fields {
		if f.Pointer == "/entrypointUrl" {
			return f.Detail
		}
	}
	t.Fatalf("%v names no /entrypointUrl", err)
	return ""
}
