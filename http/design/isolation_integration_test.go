package design_test

import (
	"net/http"
	"testing"

	"github.com/platform/backend/internal/apptest"
	"github.com/platform/backend/internal/media/raster/testfonts"
	"github.com/platform/backend/internal/testenv"
)

type probe struct {
	svc, method, path string
	body              any
	contentType       string
}

// probes are every design and brand kit route that names an id.
func probes(k kit, project, design, asset, export, font string) []probe {
	w := base
	d := w + "/designs/" + design
	kit := "/api/brand-kits/" + k.ID
	return []probe{
		{"design", http.MethodGet, w + "/projects/" + project, nil, ""},
		{"design", http.MethodPatch, w + "/projects/" + project, map[string]any{"name": "Mallory"}, ""},
		{"design", http.MethodPost, w + "/projects/" + project + "/designs", map[string]any{"name": "X", "brandKitId": k.ID, "width": 100,
			"height": 100, "pages": []any{map[string]any{"pageId": "p"}}}, ""},
		{"design", http.MethodGet, d, nil, ""},
		{"design", http.MethodPatch, d, map[string]any{"name": "Mallory"}, ""},
		{"design", http.MethodPatch, d + "/pages/p1/layers/box", map[string]any{"x": 1}, ""},
		{"design", http.MethodGet, d + "/brand-kit", nil, ""},
		{"design", http.MethodPut, d + "/brand-kit", map[string]any{"brandKitId": k.ID}, ""},
		{"design", http.MethodPost, d + "/duplicate", nil, ""},
		{"design", http.MethodGet, d + "/preview", nil, ""},
		{"design", http.MethodPost, d + "/exports", map[string]any{"format": "png"}, ""},
		{"design", http.MethodGet, d + "/exports", nil, ""},
		{"design", http.MethodGet, w + "/exports/" + export, nil, ""},
		{"design", http.MethodPost, w + "/exports/" + export + "/cancel", nil, ""},
		{"design", http.MethodPost, w + "/exports/" + export + "/retry", nil, ""},
		{"design", http.MethodGet, w + "/exports/" + export + "/download", nil, ""},
		{"design", http.MethodGet, w + "/assets/" + asset, nil, ""},
		{"design", http.MethodDelete, w + "/assets/" + asset, nil, ""},
		{"design", http.MethodDelete, d, nil, ""},
		{"design", http.MethodDelete, w + "/projects/" + project, nil, ""},
		{"brands", http.MethodGet, kit, nil, ""},
		{"brands", http.MethodPatch, kit, map[string]any{"name": "Mallory"}, ""},
		{"brands", http.MethodGet, kit + "/versions", nil, ""},
		{"brands", http.MethodGet, kit + "/versions/" + k.VersionID, nil, ""},
		{"brands", http.MethodPost, kit + "/publish", nil, ""},
		{"brands", http.MethodPost, kit + "/fonts", testfonts.Dynalight, "font/otf"},
		{"brands", http.MethodGet, kit + "/fonts/" + font + "/download", nil, ""},
		{"brands", http.MethodDelete, kit + "/fonts/" + font, nil, ""},
		{"brands", http.MethodGet, kit + "/logos/" + k.LogoID + "/download", nil, ""},
		{"brands", http.MethodDelete, kit + "/logos/" + k.LogoID, nil, ""},
		{"brands", http.MethodDelete, kit, nil, ""},
	}
}

// TestAnotherTenantsIDsAreMissingOnes: every route naming an id, called by
// another organization with the first one's ids, answers exactly as for ids
// that exist nowhere (404 not_found, the same code and title), and nothing
// of the first organization changes.
func TestAnotherTenantsIDsAreMissingOnes(t *testing.T) {
	h := apptest.Start(t, apptest.Options{})
	owner := newClient(t, h, "")
	k := owner.newKit("Secret kit")
	project, design := owner.newDesign(k)
	var asset, kitState map[string]any
	owner.Do(http.MethodPost, base+"/assets?name=Photo", pngOf(t, 64, 64, primary), http.StatusCreated, "Content-Type", "image/png").JSON(t, &asset)
	x := owner.export(design, map[string]any{"format": "png", "scale": 0.25})
	owner.On("brands").JSON(http.MethodGet, "/api/brand-kits/"+k.ID, nil, http.StatusOK, &kitState)
	font := kitState["draft"].(map[string]any)["fonts"].([]any)[0].(map[string]any)["fontId"].(string)
	before := h.Events(t, "design") + h.Events(t, "brands")

	_, otherKey := h.NewOrganization(t, "Mallory", testenv.UniqueName("mallory"), apptest.DefaultScopes...)
	mallory := newClient(t, h, otherKey)
	missing := kit{ID: "00000000-0000-7000-8000-0000000000aa", VersionID: "00000000-0000-7000-8000-0000000000ab",
		LogoID: "00000000-0000-7000-8000-0000000000ac"}
	const nobody = "00000000-0000-7000-8000-0000000000ff"
	theirs := probes(k, project, design, asset["assetId"].(string), x["exportId"].(string), font)
	none := probes(missing, nobody, nobody, nobody, nobody, nobody)
	for i, p := range theirs {
		headers := []string{}
		if p.contentType != "" {
			headers = []string{"Content-Type", p.contentType}
		}
		got := apptest.ExpectProblem(t, h.Do(t, p.svc, p.method, p.path, mallory.token, p.body, headers...), http.StatusNotFound, "not_found")
		want := apptest.ExpectProblem(t, h.Do(t, none[i].svc, none[i].method, none[i].path, mallory.token, none[i].body, headers...),
			http.StatusNotFound, "not_found")
		if got.Title != want.Title || got.Detail != want.Detail {
			t.Errorf("%s %s: %q / %q, a missing id: %q / %q", p.method, p.path, got.Title, got.Detail, want.Title, want.Detail)
		}
	}
	if after := h.Events(t, "design") + h.Events(t, "brands"); after != before {
		t.Fatalf("the probes appended %d events", after-before)
	}
	// The owner's objects are as they were.
	var d map[string]any
	owner.JSON(http.MethodGet, base+"/designs/"+design, nil, http.StatusOK, &d)
	if d["name"] != "Poster" || d["revision"].(float64) != 1 {
		t.Fatalf("the design changed: %v", d)
	}
	owner.Do(http.MethodGet, base+"/exports/"+x["exportId"].(string)+"/download", nil, http.StatusOK)
}
