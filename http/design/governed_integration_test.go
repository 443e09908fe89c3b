package design_test

import (
	"bytes"
	"image/png"
	"net/http"
	"slices"
	"testing"

	"github.com/platform/backend/internal/apptest"
)

// TestGovernedDesigns: a colour or a font outside the pinned kit version
// is refused with 422 at the member's pointer (creating, saving, changing
// one layer), and so are a logo the version does not hold, an image of no
// workspace, a kit not offered for governed design; a colour of the kit in
// any case is kept as the kit writes it.
func TestGovernedDesigns(t *testing.T) {
	h := apptest.Start(t, apptest.Options{})
	c := newClient(t, h, "")
	k := c.newKit("Acme")
	project, design := c.newDesign(k)
	designs := base + "/projects/" + project + "/designs"

	pages := poster(k.LogoID)
	layers := pages[0].(map[string]any)["layers"].([]any)
	layers[0].(map[string]any)["fill"] = "#FF0000"                      // not a kit colour
	layers[1].(map[string]any)["fontFamily"] = "Comic Sans"             // not a kit font
	layers[2].(map[string]any)["image"] = map[string]any{"logoId": "x"} // not a kit logo
	pages[1].(map[string]any)["background"] = "#0a66c3"                 // one off
	p := c.Problem(http.MethodPost, designs, map[string]any{"name": "Off", "brandKitId": k.ID, "width": 1080, "height": 1080,
		"pages": pages}, http.StatusUnprocessableEntity, "invalid_input")
	want := []string{"/pages/0/layers/0/fill", "/pages/0/layers/1/fontFamily", "/pages/0/layers/2/image/logoId", "/pages/1/background"}
	for _, w := range want {
		if !slices.Contains(p.Pointers(), w) {
			t.Errorf("pointers %v lack %s", p.Pointers(), w)
		}
	}
	// A weight the family does not have is the weight's fault.
	pages = poster(k.LogoID)
	pages[0].(map[string]any)["layers"].([]any)[1].(map[string]any)["fontWeight"] = 700
	p = c.Problem(http.MethodPost, designs, map[string]any{"name": "Bold", "brandKitId": k.ID, "width": 1080, "height": 1080, "pages": pages},
		http.StatusUnprocessableEntity, "invalid_input")
	if !slices.Equal(p.Pointers(), []string{"/pages/0/layers/1/fontWeight"}) {
		t.Errorf("a missing weight: %v", p.Pointers())
	}
	// Images must be the workspace's.
	pages = poster(k.LogoID)
	pages[0].(map[string]any)["layers"].([]any)[2].(map[string]any)["image"] = map[string]any{"assetId": "00000000-0000-7000-8000-000000000009"}
	p = c.Problem(http.MethodPost, designs, map[string]any{"name": "Img", "brandKitId": k.ID, "width": 1080, "height": 1080, "pages": pages},
		http.StatusUnprocessableEntity, "invalid_input")
	if !slices.Equal(p.Pointers(), []string{"/pages/0/layers/2/image/assetId"}) {
		t.Errorf("a foreign image: %v", p.Pointers())
	}
	// An unpublished kit, or one not offered, governs nothing.
	var draft map[string]any
	c.On("brands").JSON(http.MethodPost, "/api/brand-kits", map[string]any{"name": "Draft", "colours": []any{map[string]any{"name": "A", "hex": "#000000"}}},
		http.StatusCreated, &draft)
	p = c.Problem(http.MethodPost, designs, map[string]any{"name": "D", "brandKitId": draft["id"], "width": 100, "height": 100,
		"pages": []any{map[string]any{"pageId": "p"}}}, http.StatusUnprocessableEntity, "invalid_input")
	if !slices.Equal(p.Pointers(), []string{"/brandKitId"}) {
		t.Errorf("an unpublished kit: %v", p.Pointers())
	}
	c.On("brands").JSON(http.MethodPatch, "/api/brand-kits/"+k.ID, map[string]any{"availableForDesign": false}, http.StatusOK, nil)
	c.Problem(http.MethodPost, designs, map[string]any{"name": "D", "brandKitId": k.ID, "width": 100, "height": 100,
		"pages": []any{map[string]any{"pageId": "p"}}}, http.StatusUnprocessableEntity, "invalid_input")
	c.On("brands").JSON(http.MethodPatch, "/api/brand-kits/"+k.ID, map[string]any{"availableForDesign": true}, http.StatusOK, nil)

	// Saving and one layer's change are governed the same way.
	pages = poster(k.LogoID)
	pages[0].(map[string]any)["layers"].([]any)[0].(map[string]any)["stroke"] = "#123456"
	p = c.Problem(http.MethodPatch, base+"/designs/"+design, map[string]any{"pages": pages}, http.StatusUnprocessableEntity, "invalid_input")
	if !slices.Equal(p.Pointers(), []string{"/pages/0/layers/0/stroke"}) {
		t.Errorf("saving: %v", p.Pointers())
	}
	layer := base + "/designs/" + design + "/pages/p1/layers/"
	p = c.Problem(http.MethodPatch, layer+"box", map[string]any{"fill": "#00FF00"}, http.StatusUnprocessableEntity, "invalid_input")
	if !slices.Equal(p.Pointers(), []string{"/fill"}) {
		t.Errorf("one layer: %v", p.Pointers())
	}
	p = c.Problem(http.MethodPatch, layer+"title", map[string]any{"fontFamily": "Helvetica"}, http.StatusUnprocessableEntity, "invalid_input")
	if !slices.Equal(p.Pointers(), []string{"/fontFamily"}) {
		t.Errorf("one layer's font: %v", p.Pointers())
	}
	c.Problem(http.MethodPatch, layer+"nope", map[string]any{"fill": "#FFB000"}, http.StatusNotFound, "not_found")
	var d map[string]any
	c.JSON(http.MethodPatch, layer+"box", map[string]any{"fill": "#ffb000"}, http.StatusOK, &d)
	box := d["pages"].([]any)[0].(map[string]any)["layers"].([]any)[0].(map[string]any)
	if box["fill"] != "#FFB000" || d["revision"].(float64) != 2 {
		t.Fatalf("after the change: %v (revision %v)", box, d["revision"])
	}
	c.JSON(http.MethodPatch, layer+"title", map[string]any{"fontFamily": "dejavu serif", "text": "Summer"}, http.StatusOK, &d)
	if title := d["pages"].([]any)[0].(map[string]any)["layers"].([]any)[1].(map[string]any); title["fontFamily"] != "DejaVu Serif" {
		t.Fatalf("the kit's family is kept as the kit names it: %v", title)
	}
}

// TestPinnedVersionIsKept: a kit version published later changes no design
// pinned to the earlier one (its answers and its renders keep the old
// palette); the design moves only when asked (designs.brand_kit.update),
// and then only when its content is governed by the new version.
func TestPinnedVersionIsKept(t *testing.T) {
	h := apptest.Start(t, apptest.Options{})
	c := newClient(t, h, "")
	k := c.newKit("Acme")
	_, design := c.newDesign(k)

	// Version 2 drops Primary, the rectangle's colour.
	c.On("brands").JSON(http.MethodPatch, "/api/brand-kits/"+k.ID, map[string]any{"colours": []any{map[string]any{"name": "Accent", "hex": "#FFB000"},
		map[string]any{"name": "Ink", "hex": "#111111"}, map[string]any{"name": "Paper", "hex": "#FFFFFF"}}}, http.StatusOK, nil)
	var kit2 map[string]any
	c.On("brands").JSON(http.MethodPost, "/api/brand-kits/"+k.ID+"/publish", nil, http.StatusOK, &kit2)
	v2 := kit2["currentVersionId"].(string)
	if v2 == k.VersionID || kit2["versionCount"].(float64) != 2 {
		t.Fatalf("second publication %v", kit2)
	}

	var d map[string]any
	c.JSON(http.MethodGet, base+"/designs/"+design, nil, http.StatusOK, &d)
	if d["brandKitVersionId"] != k.VersionID {
		t.Fatalf("the design follows the kit: %v", d["brandKitVersionId"])
	}
	var pinned map[string]any
	c.JSON(http.MethodGet, base+"/designs/"+design+"/brand-kit", nil, http.StatusOK, &pinned)
	if pinned["versionId"] != k.VersionID || len(pinned["colours"].([]any)) != 4 {
		t.Fatalf("the pinned version %v", pinned)
	}
	// Its renders keep the old palette.
	res := c.Do(http.MethodGet, base+"/designs/"+design+"/preview?scale=1", nil, http.StatusOK)
	img, err := png.Decode(bytes.NewReader(res.Body))
	if err != nil {
		t.Fatal(err)
	}
	if got := rgba(img.At(190, 140)); got != primary {
		t.Fatalf("the pinned design's rectangle renders %v, want %v", got, primary)
	}
	// Saving with the old palette still works: the design is governed by
	// its own version.
	c.Do(http.MethodPatch, base+"/designs/"+design+"/pages/p1/layers/box", map[string]any{"x": 50}, http.StatusOK)

	// Moving to version 2 is refused while the rectangle is Primary...
	p := c.Problem(http.MethodPut, base+"/designs/"+design+"/brand-kit", map[string]any{"brandKitId": k.ID}, http.StatusUnprocessableEntity,
		"invalid_input")
	if !slices.Equal(p.Pointers(), []string{"/pages/0/layers/0/fill", "/pages/1/background"}) {
		t.Fatalf("rebrand refused at %v", p.Pointers())
	}
	p = c.Problem(http.MethodPut, base+"/designs/"+design+"/brand-kit", map[string]any{"brandKitId": k.ID, "brandKitVersionId": "nope"},
		http.StatusUnprocessableEntity, "invalid_input")
	if !slices.Equal(p.Pointers(), []string{"/brandKitVersionId"}) {
		t.Fatalf("an unknown version: %v", p.Pointers())
	}
	// ... and accepted once it is governed by it.
	c.Do(http.MethodPatch, base+"/designs/"+design+"/pages/p1/layers/box", map[string]any{"fill": "#FFB000"}, http.StatusOK)
	c.Do(http.MethodPatch, base+"/designs/"+design, map[string]any{"pages": func() []any {
		pages := poster(k.LogoID)
		pages[0].(map[string]any)["layers"].([]any)[0].(map[string]any)["fill"] = "#FFB000"
		pages[1].(map[string]any)["background"] = "#111111"
		return pages
	}()}, http.StatusOK)
	c.JSON(http.MethodPut, base+"/designs/"+design+"/brand-kit", map[string]any{"brandKitId": k.ID}, http.StatusOK, &d)
	if d["brandKitVersionId"] != v2 {
		t.Fatalf("rebranded to %v, want %s", d["brandKitVersionId"], v2)
	}
}
