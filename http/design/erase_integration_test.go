package design_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/platform/backend/commands"
	identitycmd "github.com/platform/backend/commands/identity"
	domain "github.com/platform/backend/domain/identity"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/internal/apptest"
	"github.com/platform/backend/internal/testenv"
)

// member signs a new member of an organization in with a role, answering
// the session's token.
func member(t *testing.T, h *apptest.Harness, org, role string) string {
	t.Helper()
	email := testenv.UniqueName("design") + "@example.com"
	const password = "correct horse battery staple"
	m := commands.Meta{OrganizationID: org, Actor: eventstore.Actor{ID: "test", Type: "system"}}
	if _, err := h.Identity().CreateUser(context.Background(), m, domain.Actor{PlatformRole: domain.RolePlatformSuperAdmin},
		identitycmd.CreateUser{Email: email, Password: password, Role: role}); err != nil {
		t.Fatal(err)
	}
	var s struct {
		AccessToken string `json:"access_token"`
	}
	apptest.Eventually(t, 15*time.Second, "sign-in of "+email, func() bool {
		res := h.Do(t, "identity", http.MethodPost, "/login", "-", map[string]any{"email": email, "password": password, "organizationId": org})
		if res.Status != http.StatusOK {
			return false
		}
		res.JSON(t, &s)
		return true
	})
	return s.AccessToken
}

func exportCounts(t *testing.T, c *client) map[string]int {
	t.Helper()
	var e map[string]any
	c.json(http.MethodGet, "/api/organizations/data/export", nil, http.StatusOK, &e)
	out := map[string]int{}
	for k, v := range e {
		if l, ok := v.([]any); ok {
			out[k] = len(l)
		}
	}
	return out
}

// fill makes a project, a design, an image and a ready export.
func fill(t *testing.T, c *client) (design string) {
	t.Helper()
	k := c.newKit("Kit")
	_, design = c.newDesign(k)
	c.do(http.MethodPost, base+"/assets?name=Photo", pngOf(t, 32, 32, accent), http.StatusCreated, "Content-Type", "image/png")
	c.export(design, map[string]any{"format": "png", "scale": 0.25})
	return design
}

// TestExportEraseReplay: the organization's data export holds every design
// record and no file key or link, and only an admin's credential of the
// whole organization reads it; the erasure (confirmation ERASE, an
// admin's) removes the organization's projects, designs, images, exports
// and files and nothing of another organization; later commands find the
// erased objects missing; a rebuild of the read model from the log brings
// nothing erased back, while what was made after the erasure stays.
func TestExportEraseReplay(t *testing.T) {
	h := apptest.Start(t, apptest.Options{})
	c := newClient(t, h, "")
	design := fill(t, c)
	otherOrg, otherKey := h.NewOrganization(t, "Bystander", testenv.UniqueName("bystander"), apptest.DefaultScopes...)
	other := newClient(t, h, otherKey)
	fill(t, other)

	// Admins only, of the whole organization.
	memberToken := member(t, h, h.OrgID, "member")
	apptest.ExpectProblem(t, h.Do(t, "design", http.MethodGet, "/api/organizations/data/export", memberToken, nil), http.StatusForbidden,
		"permission_denied")
	apptest.ExpectProblem(t, h.Do(t, "design", http.MethodDelete, "/api/organizations/data/erase", memberToken,
		map[string]any{"confirmation": "ERASE"}), http.StatusForbidden, "permission_denied")
	admin := newClient(t, h, member(t, h, h.OrgID, "admin"))
	admin.do(http.MethodGet, "/api/organizations/data/export", nil, http.StatusOK)
	bound := key(t, h, h.OrgID, []string{"privacy:manage"}, domain.ResourceBinding{ResourceType: "workspace", ResourceID: h.OrgID,
		AccessLevel: "admin", AllowedScopes: []string{"privacy:manage"}})
	apptest.ExpectProblem(t, h.Do(t, "design", http.MethodGet, "/api/organizations/data/export", bound, nil), http.StatusForbidden,
		"permission_denied")

	var export map[string]any
	c.json(http.MethodGet, "/api/organizations/data/export", nil, http.StatusOK, &export)
	raw := string(mustJSON(t, export))
	for _, secret := range []string{"object_key", h.OrgID + "/design/", "signature", "url"} {
		if strings.Contains(raw, secret) {
			t.Errorf("the export holds %q", secret)
		}
	}
	full := exportCounts(t, c)
	for _, k := range []string{"projects", "designs", "assets", "exports"} {
		if full[k] != 1 {
			t.Errorf("the export has %d %s: %v", full[k], k, full)
		}
	}
	if objectsOf(t, h, h.OrgID) != 2 || objectsOf(t, h, otherOrg) != 2 {
		t.Fatalf("files %d and %d before the erasure", objectsOf(t, h, h.OrgID), objectsOf(t, h, otherOrg))
	}

	c.problem(http.MethodDelete, "/api/organizations/data/erase", map[string]any{"confirmation": "erase"}, http.StatusUnprocessableEntity, "invalid_input")
	var erased map[string]any
	c.json(http.MethodDelete, "/api/organizations/data/erase", map[string]any{"confirmation": "ERASE"}, http.StatusOK, &erased)
	if erased["objects"].(float64) != 4 || erased["files"].(float64) != 2 {
		t.Fatalf("erasure %v", erased)
	}
	empty := func(what string) {
		t.Helper()
		for k, n := range exportCounts(t, c) {
			if n != 0 {
				t.Errorf("%s: the export still has %d %s", what, n, k)
			}
		}
	}
	empty("after the erasure")
	if objectsOf(t, h, h.OrgID) != 0 || objectsOf(t, h, otherOrg) != 2 {
		t.Fatalf("files %d (erased) and %d (bystander) after the erasure", objectsOf(t, h, h.OrgID), objectsOf(t, h, otherOrg))
	}
	c.problem(http.MethodPatch, base+"/designs/"+design, map[string]any{"name": "Back"}, http.StatusNotFound, "not_found")
	c.problem(http.MethodPost, base+"/designs/"+design+"/exports", map[string]any{"format": "png"}, http.StatusNotFound, "not_found")
	bystander := exportCounts(t, other)
	if bystander["designs"] != 1 || bystander["exports"] != 1 {
		t.Fatalf("the bystander's export %v", bystander)
	}
	// Made after the erasure: kept, through the rebuild too.
	var fresh map[string]any
	c.json(http.MethodPost, base+"/projects", map[string]any{"name": "After"}, http.StatusCreated, &fresh)

	apptest.Must(t, h.Do(t, "ops", http.MethodPost, "/api/projections/design/replay", h.OperatorKey(t), nil), http.StatusAccepted, "replay design")
	apptest.Eventually(t, 90*time.Second, "generation 2 of design to become active", func() bool {
		return h.Count(t, `SELECT count(*) FROM proj_generations WHERE projection = 'design' AND generation = 2 AND state = 'active'`) == 1
	})
	after := exportCounts(t, c)
	if after["projects"] != 1 || after["designs"]+after["assets"]+after["exports"] != 0 {
		t.Fatalf("after the rebuild the export has %v, want only the project made after the erasure", after)
	}
	c.do(http.MethodGet, base+"/projects/"+fresh["projectId"].(string), nil, http.StatusOK)
	c.problem(http.MethodGet, base+"/designs/"+design, nil, http.StatusNotFound, "not_found")
	if got := exportCounts(t, other); got["designs"] != 1 || got["exports"] != 1 || got["assets"] != 1 || got["projects"] != 1 {
		t.Fatalf("the bystander's export after the rebuild %v", got)
	}
}
