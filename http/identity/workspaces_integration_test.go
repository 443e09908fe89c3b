package identity_test

import (
	"net/http"
	"testing"

	"github.com/platform/backend/internal/apptest"
	"github.com/platform/backend/internal/testenv"
)

type workspaceList struct {
	Workspaces []struct {
		WorkspaceID string  `json:"workspace_id"`
		Slug        string  `json:"slug"`
		Name        string  `json:"name"`
		Default     bool    `json:"default"`
		CreatedAt   *string `json:"created_at"`
	} `json:"workspaces"`
}

// TestWorkspacesRoutes: an organization lists its implicit default
// workspace (the organization's id), creates, renames and moves the default
// between workspaces; slugs are unique in the organization only; reads need
// organizations:read and changes organizations:manage; another
// organization's slug is unknown; keys bind any of the workspaces.
func TestWorkspacesRoutes(t *testing.T) {
	h, _ := accHarness(t)
	_, manager := accKey(t, h, h.OrgID, "organizations:read", "organizations:manage", "api_keys:write", "status:read")
	_, reader := accKey(t, h, h.OrgID, "organizations:read")
	list := func(token string) workspaceList {
		t.Helper()
		res := h.Do(t, "identity", http.MethodGet, "/api/workspaces", token, nil)
		apptest.Must(t, res, http.StatusOK, "list workspaces")
		var l workspaceList
		res.JSON(t, &l)
		return l
	}
	l := list(reader)
	if len(l.Workspaces) != 1 || l.Workspaces[0].WorkspaceID != h.OrgID || l.Workspaces[0].Slug != "default" ||
		!l.Workspaces[0].Default || l.Workspaces[0].CreatedAt != nil {
		t.Fatalf("a new organization's workspaces: %+v", l)
	}

	res := h.Do(t, "identity", http.MethodPost, "/api/workspaces", manager, map[string]any{"slug": "brand-a", "name": "Brand A"})
	apptest.Must(t, res, http.StatusCreated, "create")
	res.JSON(t, &l)
	if len(l.Workspaces) != 2 || l.Workspaces[1].Slug != "brand-a" || l.Workspaces[1].Default || l.Workspaces[1].CreatedAt == nil {
		t.Fatalf("after create: %s", res.Body)
	}
	brandA := l.Workspaces[1].WorkspaceID

	t.Run("errors", func(t *testing.T) {
		apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodPost, "/api/workspaces", manager, map[string]any{"slug": "brand-a", "name": "Again"}),
			http.StatusConflict, "workspace_slug_taken")
		p := apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodPost, "/api/workspaces", manager, map[string]any{"slug": "Not A Slug", "name": ""}),
			http.StatusUnprocessableEntity, "invalid_input")
		named := map[string]bool{}
		for _, e := range p.Errors {
			named[e.Pointer] = true
		}
		if len(named) != 2 || !named["/slug"] || !named["/name"] {
			t.Errorf("pointers %+v", p.Errors)
		}
		apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodPost, "/api/workspaces", reader, map[string]any{"slug": "brand-b", "name": "B"}),
			http.StatusForbidden, "permission_denied")
		apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodPost, "/api/workspaces", "-", map[string]any{"slug": "brand-b", "name": "B"}),
			http.StatusUnauthorized, "authentication_required")
		apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodPatch, "/api/workspaces/nowhere", manager, map[string]any{"name": "X"}),
			http.StatusNotFound, "not_found")
		apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodPatch, "/api/workspaces/brand-a", manager, map[string]any{}),
			http.StatusUnprocessableEntity, "invalid_input")
		apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodPatch, "/api/workspaces/brand-a", manager, map[string]any{"slug": "default"}),
			http.StatusConflict, "workspace_slug_taken")
		apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodPut, "/api/workspaces/nowhere/default", manager, nil),
			http.StatusNotFound, "not_found")
	})

	res = h.Do(t, "identity", http.MethodPatch, "/api/workspaces/brand-a", manager, map[string]any{"slug": "brand-x", "name": "Brand X"})
	apptest.Must(t, res, http.StatusOK, "rename")
	res = h.Do(t, "identity", http.MethodPut, "/api/workspaces/brand-x/default", manager, nil)
	apptest.Must(t, res, http.StatusOK, "default.set")
	l = list(reader)
	if l.Workspaces[1].Slug != "brand-x" || l.Workspaces[1].Name != "Brand X" || !l.Workspaces[1].Default || l.Workspaces[0].Default {
		t.Fatalf("after rename and default.set: %+v", l)
	}

	// Another organization has its own slugs: the same slug is free there,
	// and this organization's slug names nothing of it.
	otherOrg, _ := h.NewOrganization(t, "Other", testenv.UniqueName("other"), "status:read")
	_, otherManager := accKey(t, h, otherOrg, "organizations:read", "organizations:manage")
	apptest.Must(t, h.Do(t, "identity", http.MethodPost, "/api/workspaces", otherManager, map[string]any{"slug": "brand-a", "name": "Theirs"}),
		http.StatusCreated, "the same slug in another organization")
	apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodPatch, "/api/workspaces/brand-x", otherManager, map[string]any{"name": "Mine"}),
		http.StatusNotFound, "not_found")

	// Key options offer every workspace as a bindable resource.
	res = h.Do(t, "identity", http.MethodGet, "/api/api-keys/options?appId=status", manager, nil)
	apptest.Must(t, res, http.StatusOK, "options")
	var opts accOptions
	res.JSON(t, &opts)
	var ids []string
	for _, r := range opts.Resources[0].Resources {
		ids = append(ids, r.ResourceID)
	}
	if len(ids) != 2 || ids[0] != h.OrgID || ids[1] != brandA {
		t.Fatalf("bindable workspaces %v, want the default and brand-x", ids)
	}
}
