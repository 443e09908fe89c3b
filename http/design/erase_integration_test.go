package design_test

import (
	"net/http"
	"strings"
	"testing"

	domain "github.com/platform/backend/domain/identity"
	"github.com/platform/backend/internal/apptest"
	"github.com/platform/backend/internal/testenv"
)

// fill makes a project, a design, an image and a ready export.
func fill(t *testing.T, c *client) (design string) {
	t.Helper()
	k := c.newKit("Kit")
	_, design = c.newDesign(k)
	c.Do(http.MethodPost, base+"/assets?name=Photo", pngOf(t, 32, 32, accent), http.StatusCreated, "Content-Type", "image/png")
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
	files := func(org string) int { return h.Objects(t, org+"/design/") }
	fill(t, other)

	// Admins only, of the whole organization.
	memberToken := h.NewPerson(t, h.OrgID, "member").Session
	apptest.ExpectProblem(t, h.Do(t, "design", http.MethodGet, "/api/organizations/data/export", memberToken, nil), http.StatusForbidden,
		"permission_denied")
	apptest.ExpectProblem(t, h.Do(t, "design", http.MethodDelete, "/api/organizations/data/erase", memberToken,
		map[string]any{"confirmation": "ERASE"}), http.StatusForbidden, "permission_denied")
	admin := newClient(t, h, h.NewPerson(t, h.OrgID, "admin").Session)
	admin.Do(http.MethodGet, "/api/organizations/data/export", nil, http.StatusOK)
	bound := h.Key(t, h.OrgID, []string{"privacy:manage"}, domain.ResourceBinding{ResourceType: "workspace", ResourceID: h.OrgID,
		AccessLevel: "admin", AllowedScopes: []string{"privacy:manage"}})
	apptest.ExpectProblem(t, h.Do(t, "design", http.MethodGet, "/api/organizations/data/export", bound, nil), http.StatusForbidden,
		"permission_denied")

	var export map[string]any
	c.JSON(http.MethodGet, "/api/organizations/data/export", nil, http.StatusOK, &export)
	raw := string(mustJSON(t, export))
	for _, secret := range []string{"object_key", h.OrgID + "/design/", "signature", "url"} {
		if strings.Contains(raw, secret) {
			t.Errorf("the export holds %q", secret)
		}
	}
	full := c.ExportCounts()
	for _, k := range []string{"projects", "designs", "assets", "exports"} {
		if full[k] != 1 {
			t.Errorf("the export has %d %s: %v", full[k], k, full)
		}
	}
	if files(h.OrgID) != 2 || files(otherOrg) != 2 {
		t.Fatalf("files %d and %d before the erasure", files(h.OrgID), files(otherOrg))
	}

	c.Problem(http.MethodDelete, "/api/organizations/data/erase", map[string]any{"confirmation": "erase"}, http.StatusUnprocessableEntity, "invalid_input")
	var erased map[string]any
	c.JSON(http.MethodDelete, "/api/organizations/data/erase", map[string]any{"confirmation": "ERASE"}, http.StatusOK, &erased)
	if erased["objects"].(float64) != 4 || erased["files"].(float64) != 2 {
		t.Fatalf("erasure %v", erased)
	}
	c.ExpectErased("after the erasure")
	if files(h.OrgID) != 0 || files(otherOrg) != 2 {
		t.Fatalf("files %d (erased) and %d (bystander) after the erasure", files(h.OrgID), files(otherOrg))
	}
	c.Problem(http.MethodPatch, base+"/designs/"+design, map[string]any{"name": "Back"}, http.StatusNotFound, "not_found")
	c.Problem(http.MethodPost, base+"/designs/"+design+"/exports", map[string]any{"format": "png"}, http.StatusNotFound, "not_found")
	bystander := other.ExportCounts()
	if bystander["designs"] != 1 || bystander["exports"] != 1 {
		t.Fatalf("the bystander's export %v", bystander)
	}
	// Made after the erasure: kept, through the rebuild too.
	var fresh map[string]any
	c.JSON(http.MethodPost, base+"/projects", map[string]any{"name": "After"}, http.StatusCreated, &fresh)

	h.Rebuild(t, "design")
	after := c.ExportCounts()
	if after["projects"] != 1 || after["designs"]+after["assets"]+after["exports"] != 0 {
		t.Fatalf("after the rebuild the export has %v, want only the project made after the erasure", after)
	}
	c.Do(http.MethodGet, base+"/projects/"+fresh["projectId"].(string), nil, http.StatusOK)
	c.Problem(http.MethodGet, base+"/designs/"+design, nil, http.StatusNotFound, "not_found")
	if got := other.ExportCounts(); got["designs"] != 1 || got["exports"] != 1 || got["assets"] != 1 || got["projects"] != 1 {
		t.Fatalf("the bystander's export after the rebuild %v", got)
	}
}
