package studio_test

import (
	"net/http"
	"slices"
	"testing"

	"github.com/platform/backend/internal/apptest"
	"github.com/platform/backend/internal/testenv"
)

// TestProjectsBrandKitIsChecked: a project's brandKitId must be a brand kit
// the caller sees (its organization's, not deleted): another
// organization's kit, a deleted one or an id of nothing is refused at
// /brandKitId, on create and update; "" clears it.
func TestProjectsBrandKitIsChecked(t *testing.T) {
	h := apptest.Start(t, apptest.Options{})
	c := newClient(t, h, "")
	kit := func(token string) string {
		var k map[string]any
		res := h.Do(t, "brands", http.MethodPost, "/api/brand-kits", token, map[string]any{"name": "Kit"})
		apptest.Must(t, res, http.StatusCreated, "kit")
		res.JSON(t, &k)
		return k["id"].(string)
	}
	mine := kit("")
	_, otherKey := h.NewOrganization(t, "Other", testenv.UniqueName("other"), apptest.DefaultScopes...)
	theirs := kit(otherKey)
	gone := kit("")
	apptest.Must(t, h.Do(t, "brands", http.MethodDelete, "/api/brand-kits/"+gone, "", nil), http.StatusOK, "delete kit")

	for _, id := range []string{theirs, gone, "00000000-0000-7000-8000-000000000001"} {
		p := c.Problem(http.MethodPost, base+"/projects", map[string]any{"title": "P", "brandKitId": id}, http.StatusUnprocessableEntity, "invalid_input")
		if !slices.Equal(p.Pointers(), []string{"/brandKitId"}) {
			t.Errorf("kit %s: %v", id, p.Pointers())
		}
	}
	var p map[string]any
	c.JSON(http.MethodPost, base+"/projects", map[string]any{"title": "P", "brandKitId": mine}, http.StatusCreated, &p)
	if p["brandKitId"] != mine {
		t.Fatalf("project %v", p)
	}
	project := base + "/projects/" + p["projectId"].(string)
	pr := c.Problem(http.MethodPatch, project, map[string]any{"brandKitId": theirs}, http.StatusUnprocessableEntity, "invalid_input")
	if !slices.Equal(pr.Pointers(), []string{"/brandKitId"}) {
		t.Errorf("update: %v", pr.Pointers())
	}
	c.JSON(http.MethodPatch, project, map[string]any{"brandKitId": ""}, http.StatusOK, &p)
	if p["brandKitId"] != nil {
		t.Fatalf("cleared: %v", p)
	}
}
