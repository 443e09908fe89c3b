package design_test

import (
	"context"
	"net/http"
	"slices"
	"sort"
	"testing"

	"github.com/google/uuid"

	"github.com/platform/backend/commands"
	identitycmd "github.com/platform/backend/commands/identity"
	domain "github.com/platform/backend/domain/identity"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/internal/app"
	"github.com/platform/backend/internal/apptest"
	"github.com/platform/backend/internal/module"
	brandsmod "github.com/platform/backend/internal/modules/brands"
	"github.com/platform/backend/internal/testenv"
)

func keys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// TestSeedActions: seed 000's shown actions. workspace.bootstrap answers
// exactly user and organization, with the four identity actions and the
// workspaces this credential may enter; brands.list answers exactly
// available and brands, each brand exactly id, name and currentVersionId,
// and lists only published kits the caller sees that are offered for
// governed design (the library owner's to every organization); widget.get
// is the platform's contract; the common errors: 401 without a credential,
// 403 without the permission or the workspace binding; /api/health.
func TestSeedActions(t *testing.T) {
	libraryOrg := uuid.Must(uuid.NewV7()).String()
	h := apptest.Start(t, apptest.Options{Configure: func(cfg *app.Config) {
		module.SectionOf[*brandsmod.Config](cfg.Modules).Commands.Library.OrganizationID = libraryOrg
	}})
	c := newClient(t, h, "")

	// The library's organization and its kits: one published, one not.
	system := commands.Meta{Actor: eventstore.Actor{ID: "test", Type: "system"}}
	if _, err := h.Identity().CreateOrganization(context.Background(), system, identitycmd.CreateOrganization{Name: "Library",
		Slug: "library-" + libraryOrg[len(libraryOrg)-12:], ID: libraryOrg}); err != nil {
		t.Fatal(err)
	}
	librarian := newClient(t, h, h.Key(t, libraryOrg, apptest.DefaultScopes))
	shared := librarian.newKit("Shared")
	var unpublished map[string]any
	librarian.On("brands").JSON(http.MethodPost, "/api/brand-kits", map[string]any{"name": "Not yet"}, http.StatusCreated, &unpublished)

	own := c.newKit("Acme")
	withdrawn := c.newKit("Withdrawn")
	c.On("brands").JSON(http.MethodPatch, "/api/brand-kits/"+withdrawn.ID, map[string]any{"availableForDesign": false}, http.StatusOK, nil)
	gone := c.newKit("Gone")
	c.On("brands").JSON(http.MethodDelete, "/api/brand-kits/"+gone.ID, nil, http.StatusOK, nil)
	var draftOnly map[string]any
	c.On("brands").JSON(http.MethodPost, "/api/brand-kits", map[string]any{"name": "Draft only"}, http.StatusCreated, &draftOnly)
	h.Workspace(t, h.OrgID, "brand-b")
	var wsKit map[string]any
	c.On("brands").JSON(http.MethodPost, "/api/brand-kits", map[string]any{"name": "Brand B", "workspaceSlug": "brand-b",
		"colours": []any{map[string]any{"name": "B", "hex": "#00AA00"}}}, http.StatusCreated, &wsKit)
	c.On("brands").JSON(http.MethodPost, "/api/brand-kits/"+wsKit["id"].(string)+"/publish", nil, http.StatusOK, &wsKit)
	_, strangerKey := h.NewOrganization(t, "Stranger", testenv.UniqueName("stranger"), apptest.DefaultScopes...)
	stranger := newClient(t, h, strangerKey)
	stranger.newKit("Theirs")

	var options map[string]any
	c.JSON(http.MethodGet, "/api/brand-options", nil, http.StatusOK, &options)
	if !slices.Equal(keys(options), []string{"available", "brands"}) || options["available"] != true {
		t.Fatalf("brands.list %v", options)
	}
	got := map[string]string{}
	for _, b := range options["brands"].([]any) {
		m := b.(map[string]any)
		if !slices.Equal(keys(m), []string{"currentVersionId", "id", "name"}) {
			t.Fatalf("a brand option has members %v", keys(m))
		}
		got[m["id"].(string)] = m["currentVersionId"].(string)
	}
	want := map[string]string{own.ID: own.VersionID, shared.ID: shared.VersionID, wsKit["id"].(string): wsKit["currentVersionId"].(string)}
	if len(got) != len(want) {
		t.Fatalf("brand options %v, want %v", got, want)
	}
	for id, v := range want {
		if got[id] != v {
			t.Fatalf("brand options %v, want %v", got, want)
		}
	}
	// A key bound to the default workspace does not see brand-b's kit; the
	// stranger sees its own and the library's.
	scopes := []string{"workspace:read", "brands:read", "kits:read"}
	bound := newClient(t, h, h.Key(t, h.OrgID, scopes, domain.ResourceBinding{ResourceType: "workspace", ResourceID: h.OrgID,
		AccessLevel: "read", AllowedScopes: scopes}))
	bound.JSON(http.MethodGet, "/api/brand-options", nil, http.StatusOK, &options)
	if len(options["brands"].([]any)) != 2 {
		t.Fatalf("the bound key's options %v", options)
	}
	stranger.JSON(http.MethodGet, "/api/brand-options", nil, http.StatusOK, &options)
	if len(options["brands"].([]any)) != 2 {
		t.Fatalf("the stranger's options %v", options)
	}
	// The library kit reads for the stranger, read-only; its unpublished
	// kit does not.
	var lib map[string]any
	stranger.On("brands").JSON(http.MethodGet, "/api/brand-kits/"+shared.ID, nil, http.StatusOK, &lib)
	if lib["library"] != true || lib["owned"] != false || lib["draft"] != nil {
		t.Fatalf("the library kit as the stranger reads it: %v", lib)
	}
	stranger.On("brands").Problem(http.MethodGet, "/api/brand-kits/"+unpublished["id"].(string), nil, http.StatusNotFound, "not_found")
	stranger.On("brands").Problem(http.MethodPatch, "/api/brand-kits/"+shared.ID, map[string]any{"name": "Mine"}, http.StatusNotFound, "not_found")
	// And a design may be governed by it.
	var p, d map[string]any
	stranger.JSON(http.MethodPost, base+"/projects", map[string]any{"name": "P"}, http.StatusCreated, &p)
	stranger.JSON(http.MethodPost, base+"/projects/"+p["projectId"].(string)+"/designs", map[string]any{"name": "From the library",
		"brandKitId": shared.ID, "width": 1080, "height": 1080, "pages": poster(shared.LogoID)}, http.StatusCreated, &d)
	if d["brandKitVersionId"] != shared.VersionID {
		t.Fatalf("governed by the library: %v", d)
	}

	// Bootstrap: user and organization only.
	var boot map[string]any
	c.JSON(http.MethodGet, "/api/bootstrap", nil, http.StatusOK, &boot)
	if !slices.Equal(keys(boot), []string{"organization", "user"}) {
		t.Fatalf("bootstrap %v", keys(boot))
	}
	org := boot["organization"].(map[string]any)
	var actions []string
	for _, a := range org["suggestedActions"].([]any) {
		actions = append(actions, a.(string))
	}
	if !slices.Equal(actions, []string{"app_platform_auth.workspaces.list", "app_platform_auth.workspaces.create",
		"app_platform_auth.workspaces.rename", "app_platform_auth.workspaces.default.set"}) || len(org["workspaces"].([]any)) != 2 {
		t.Fatalf("bootstrap organization %v", org)
	}
	bound.JSON(http.MethodGet, "/api/bootstrap", nil, http.StatusOK, &boot)
	if ws := boot["organization"].(map[string]any)["workspaces"].([]any); len(ws) != 1 {
		t.Fatalf("the bound key's workspaces %v", ws)
	}

	// Widget: the platform's contract.
	var widget map[string]any
	c.JSON(http.MethodGet, "/api/widget", nil, http.StatusOK, &widget)
	tiles := widget["widgets"].([]any)
	if widget["success"] != true || len(tiles) != 1 || tiles[0].(map[string]any)["appId"] != "design" {
		t.Fatalf("widget %v", widget)
	}

	// Common errors.
	for _, path := range []string{"/api/widget", "/api/bootstrap", "/api/brand-options", base + "/projects"} {
		apptest.ExpectProblem(t, h.Do(t, "design", http.MethodGet, path, "-", nil), http.StatusUnauthorized, "authentication_required")
	}
	noBrands := h.Key(t, h.OrgID, []string{"workspace:read"})
	apptest.ExpectProblem(t, h.Do(t, "design", http.MethodGet, "/api/brand-options", noBrands, nil), http.StatusForbidden, "permission_denied")
	apptest.Must(t, h.Do(t, "design", http.MethodGet, "/api/bootstrap", noBrands, nil), http.StatusOK, "bootstrap with workspace:read")
	noWorkspace := h.Key(t, h.OrgID, []string{"brands:read"})
	apptest.ExpectProblem(t, h.Do(t, "design", http.MethodGet, "/api/widget", noWorkspace, nil), http.StatusForbidden, "permission_denied")
	apptest.ExpectProblem(t, h.Do(t, "design", http.MethodGet, "/api/workspaces/brand-b/projects", bound.token, nil), http.StatusForbidden,
		"permission_denied")
	apptest.ExpectProblem(t, h.Do(t, "design", http.MethodPost, base+"/projects", bound.token, map[string]any{"name": "X"}), http.StatusForbidden,
		"permission_denied")
	apptest.Must(t, h.Do(t, "design", http.MethodGet, "/api/health", "-", nil), http.StatusOK, "health")
}
