package studio_test

import (
	"net/http"
	"testing"

	domain "github.com/platform/backend/domain/identity"
	"github.com/platform/backend/internal/apptest"
)

// TestWorkspaceBindings: a key bound to a workspace acts there only; in
// another workspace of its organization it answers 403 permission_denied,
// and a read binding does not write. Objects of one workspace named through
// another's path are missing (404).
func TestWorkspaceBindings(t *testing.T) {
	h := apptest.Start(t, apptest.Options{})
	brand := h.Workspace(t, h.OrgID, "brand-a")
	scopes := []string{"workspace:read", "workspace:write", "briefs:write", "assets:write", "exports:read"}
	bound := h.Key(t, h.OrgID, scopes, domain.ResourceBinding{ResourceType: "workspace", ResourceID: brand, AccessLevel: "write", AllowedScopes: scopes})
	reader := h.Key(t, h.OrgID, []string{"workspace:read", "workspace:write"}, domain.ResourceBinding{ResourceType: "workspace",
		ResourceID: brand, AccessLevel: "read", AllowedScopes: []string{"workspace:read"}})
	owner := newClient(t, h, "")
	b := newClient(t, h, bound)

	var mine map[string]any
	b.JSON(http.MethodPost, "/api/workspaces/brand-a/projects", map[string]any{"title": "Brand A launch"}, http.StatusCreated, &mine)
	if mine["workspaceId"] != brand {
		t.Fatalf("project %v", mine)
	}
	var theirs map[string]any
	owner.JSON(http.MethodPost, base+"/projects", map[string]any{"title": "Default"}, http.StatusCreated, &theirs)

	// The bound key in the default workspace: 403, whatever the route.
	for _, r := range []struct{ method, path string }{
		{http.MethodGet, base + "/projects"},
		{http.MethodPost, base + "/projects"},
		{http.MethodGet, base + "/projects/" + theirs["projectId"].(string)},
		{http.MethodPatch, base + "/projects/" + theirs["projectId"].(string)},
		{http.MethodGet, base + "/assets"},
		{http.MethodGet, base + "/quota"},
	} {
		var body any
		if r.method != http.MethodGet {
			body = map[string]any{"title": "X"}
		}
		apptest.ExpectProblem(t, h.Do(t, "studio", r.method, r.path, bound, body), http.StatusForbidden, "permission_denied")
	}
	h.Settle(t)
	apptest.ExpectProblem(t, h.Do(t, "studio", http.MethodGet, "/app/projects/"+theirs["projectId"].(string)+"/brief", h.Key(t, h.OrgID,
		[]string{"projects:read"}, domain.ResourceBinding{ResourceType: "workspace", ResourceID: brand, AccessLevel: "read",
			AllowedScopes: []string{"projects:read"}}), nil), http.StatusForbidden, "permission_denied")
	// A read binding reads, and does not write.
	apptest.Must(t, h.Do(t, "studio", http.MethodGet, "/api/workspaces/brand-a/projects", reader, nil), http.StatusOK, "read binding lists")
	apptest.ExpectProblem(t, h.Do(t, "studio", http.MethodPost, "/api/workspaces/brand-a/projects", reader, map[string]any{"title": "X"}),
		http.StatusForbidden, "permission_denied")
	// whoami and the list of workspaces show only the bound one.
	var who map[string]any
	b.JSON(http.MethodGet, "/api/whoami", nil, http.StatusOK, &who)
	if who["boundToWorkspaces"] != true || len(who["workspaces"].([]any)) != 1 {
		t.Fatalf("whoami %v", who)
	}
	// Another workspace's project through this workspace's path: missing.
	owner.Problem(http.MethodGet, "/api/workspaces/brand-a/projects/"+theirs["projectId"].(string), nil, http.StatusNotFound, "not_found")
	owner.Problem(http.MethodPatch, "/api/workspaces/brand-a/projects/"+theirs["projectId"].(string), map[string]any{"title": "X"},
		http.StatusNotFound, "not_found")
	owner.Problem(http.MethodGet, base+"/projects/"+mine["projectId"].(string), nil, http.StatusNotFound, "not_found")
}

// TestWorkspacesDelete: only a non-default empty workspace is deleted (409
// default_workspace, 409 workspace_not_empty); afterwards its slug names
// nothing and nothing is created in it.
func TestWorkspacesDelete(t *testing.T) {
	h := apptest.Start(t, apptest.Options{})
	c := newClient(t, h, "")
	h.Workspace(t, h.OrgID, "brand-b")
	c.Problem(http.MethodDelete, "/api/workspaces/default", nil, http.StatusConflict, "default_workspace")
	var p map[string]any
	c.JSON(http.MethodPost, "/api/workspaces/brand-b/projects", map[string]any{"title": "Keep"}, http.StatusCreated, &p)
	c.Problem(http.MethodDelete, "/api/workspaces/brand-b", nil, http.StatusConflict, "workspace_not_empty")
	var tpl map[string]any
	c.JSON(http.MethodPost, "/api/workspaces/brand-b/project-templates", map[string]any{"name": "T"}, http.StatusCreated, &tpl)
	c.Do(http.MethodDelete, "/api/workspaces/brand-b/projects/"+p["projectId"].(string), nil, http.StatusOK)
	c.Problem(http.MethodDelete, "/api/workspaces/brand-b", nil, http.StatusConflict, "workspace_not_empty") // the template
	noDelete := h.Key(t, h.OrgID, []string{"workspace:read", "workspace:write"})
	apptest.ExpectProblem(t, h.Do(t, "studio", http.MethodDelete, "/api/workspaces/brand-b", noDelete, nil), http.StatusForbidden, "permission_denied")

	// An empty workspace: its only template moved out by deleting the
	// workspace it would block is not possible, so a fresh one is deleted.
	h.Workspace(t, h.OrgID, "brand-c")
	var list map[string]any
	c.JSON(http.MethodDelete, "/api/workspaces/brand-c", nil, http.StatusOK, &list)
	for _, w := range list["workspaces"].([]any) {
		if w.(map[string]any)["slug"] == "brand-c" {
			t.Fatalf("brand-c is still listed: %v", list)
		}
	}
	c.Problem(http.MethodPost, "/api/workspaces/brand-c/projects", map[string]any{"title": "X"}, http.StatusNotFound, "not_found")
	c.Problem(http.MethodDelete, "/api/workspaces/brand-c", nil, http.StatusNotFound, "not_found")
}
