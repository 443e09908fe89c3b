package publishing_test

import (
	"net/http"
	"testing"

	"github.com/platform/backend/internal/apptest"
)

// TestBrandKitOfABrand: a brand names the brand kit it follows: one the
// caller sees (its organization's); another organization's kit, a deleted
// one or an id of nothing is refused at /brandKitId (400, publishing's
// status for invalid input), null clears it.
func TestBrandKitOfABrand(t *testing.T) {
	h := start(t)
	token, _, _, _ := session(t, h)
	other, _, _, _ := session(t, h)
	kit := func(token string) string {
		var k map[string]any
		res := h.Do(t, "brands", http.MethodPost, "/api/brand-kits", token, map[string]any{"name": "Kit"})
		apptest.Must(t, res, http.StatusCreated, "kit")
		res.JSON(t, &k)
		return k["id"].(string)
	}
	mine, theirs, gone := kit(token), kit(other), kit(token)
	apptest.Must(t, h.Do(t, "brands", http.MethodDelete, "/api/brand-kits/"+gone, token, nil), http.StatusOK, "delete kit")
	b := newBrand(t, h, token, "Brand")
	path := "/api/brands/" + b.BrandID + "/brand-kit"
	for _, id := range []string{theirs, gone, "00000000-0000-7000-8000-000000000001"} {
		p := apptest.ExpectProblem(t, h.Do(t, "publishing", http.MethodPut, path, token, map[string]any{"brandKitId": id}), http.StatusBadRequest,
			"invalid_input")
		if len(p.Errors) != 1 || p.Errors[0].Pointer != "/brandKitId" {
			t.Errorf("kit %s: %+v", id, p.Errors)
		}
	}
	var got map[string]any
	res := h.Do(t, "publishing", http.MethodPut, path, token, map[string]any{"brandKitId": mine})
	apptest.Must(t, res, http.StatusOK, "set the kit")
	res.JSON(t, &got)
	if got["brand_kit_id"] != mine {
		t.Fatalf("brand %v", got)
	}
	apptest.ExpectProblem(t, h.Do(t, "publishing", http.MethodPut, path, other, map[string]any{"brandKitId": theirs}), http.StatusNotFound, "not_found")
	res = h.Do(t, "publishing", http.MethodPut, path, token, map[string]any{"brandKitId": nil})
	apptest.Must(t, res, http.StatusOK, "clear the kit")
	res.JSON(t, &got)
	if got["brand_kit_id"] != nil {
		t.Fatalf("cleared brand %v", got)
	}
}
