package brands_test

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"io"
	"net/http"
	"slices"
	"testing"
	"time"

	domain "github.com/platform/backend/domain/identity"
	"github.com/platform/backend/internal/apptest"
	"github.com/platform/backend/internal/media/raster/testfonts"
	"github.com/platform/backend/internal/objectstore"
)

func call(t *testing.T, h *apptest.Harness, token, method, path string, body any, want int, v any, headers ...string) {
	t.Helper()
	res := h.Do(t, "brands", method, path, token, body, headers...)
	apptest.Must(t, res, want, method+" "+path)
	if v != nil {
		res.JSON(t, v)
	}
}

func tinyPNG(t *testing.T) []byte {
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewRGBA(image.Rect(0, 0, 40, 20))); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestKitFilesAreCheckedByParsing: a font is kept with the family, weight
// and style its own tables name (an OpenType CFF file and a WOFF2 file);
// a file that is not a TTF, OTF or WOFF2 font (a PNG, a WOFF2 header on
// garbage, a truncated font) is refused at /body and nothing is stored; a
// second font of one family, weight and style is 409; a logo must decode as
// the type it is sent as; the files download through signed links.
func TestKitFilesAreCheckedByParsing(t *testing.T) {
	h := apptest.Start(t, apptest.Options{})
	var k map[string]any
	call(t, h, "", http.MethodPost, "/api/brand-kits", map[string]any{"name": "Acme", "colours": []any{map[string]any{"name": "Primary",
		"hex": "#0a66c2"}}}, http.StatusCreated, &k)
	kit := "/api/brand-kits/" + k["id"].(string)
	if c := k["draft"].(map[string]any)["colours"].([]any)[0].(map[string]any); c["hex"] != "#0A66C2" || k["availableForDesign"] != true {
		t.Fatalf("kit %v", k)
	}
	call(t, h, "", http.MethodPost, kit+"/fonts", testfonts.Dynalight, http.StatusCreated, &k, "Content-Type", "font/otf")
	call(t, h, "", http.MethodPost, kit+"/fonts", testfonts.DejaVuSerif, http.StatusCreated, &k, "Content-Type", "application/octet-stream")
	fonts := k["draft"].(map[string]any)["fonts"].([]any)
	got := []string{}
	for _, f := range fonts {
		m := f.(map[string]any)
		got = append(got, m["family"].(string)+"/"+m["format"].(string)+"/"+m["style"].(string))
		if m["weight"].(float64) != 400 || m["size"].(float64) < 1000 || len(m["sha256"].(string)) != 64 {
			t.Errorf("font %v", m)
		}
	}
	if !slices.Equal(got, []string{"Dynalight/otf/normal", "DejaVu Serif/woff2/normal"}) {
		t.Fatalf("fonts %v", got)
	}
	stored := h.Count(t, `SELECT count(*) FROM brands_kits`)
	for name, body := range map[string][]byte{"png": tinyPNG(t), "woff2 header": append([]byte("wOF2"), make([]byte, 200)...),
		"truncated": testfonts.Dynalight[:2000], "empty-ish": []byte("OTTO")} {
		p := apptest.ExpectProblem(t, h.Do(t, "brands", http.MethodPost, kit+"/fonts", "", body, "Content-Type", "font/otf"),
			http.StatusUnprocessableEntity, "invalid_input")
		if !slices.Equal(p.Pointers(), []string{"/body"}) {
			t.Errorf("%s: %v", name, p.Pointers())
		}
	}
	apptest.ExpectProblem(t, h.Do(t, "brands", http.MethodPost, kit+"/fonts", "", testfonts.Dynalight, "Content-Type", "font/otf"),
		http.StatusConflict, "font_exists")
	files, err := h.App.Platform.Objects.List(context.Background(), h.OrgID+"/brands/fonts/", objectListAll)
	if err != nil {
		t.Fatal(err)
	}
	if len(files.Objects) != 2 || h.Count(t, `SELECT count(*) FROM brands_kits`) != stored {
		t.Fatalf("%d font files stored, want the 2 accepted", len(files.Objects))
	}

	// Logos.
	apptest.ExpectProblem(t, h.Do(t, "brands", http.MethodPost, kit+"/logos", "", tinyPNG(t), "Content-Type", "image/jpeg"),
		http.StatusUnprocessableEntity, "invalid_input")
	call(t, h, "", http.MethodPost, kit+"/logos?name=Mark", tinyPNG(t), http.StatusCreated, &k, "Content-Type", "image/png")
	logo := k["draft"].(map[string]any)["logos"].([]any)[0].(map[string]any)
	if logo["name"] != "Mark" || logo["width"].(float64) != 40 || logo["height"].(float64) != 20 {
		t.Fatalf("logo %v", logo)
	}
	var link map[string]any
	call(t, h, "", http.MethodGet, kit+"/logos/"+logo["logoId"].(string)+"/download", nil, http.StatusOK, &link)
	res, err := h.Client.Get(link["url"].(string))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK || !bytes.Equal(body, tinyPNG(t)) {
		t.Fatalf("signed logo download: %d, %d bytes", res.StatusCode, len(body))
	}
	font := fonts[0].(map[string]any)["fontId"].(string)
	call(t, h, "", http.MethodGet, kit+"/fonts/"+font+"/download", nil, http.StatusOK, &link)
	res, err = h.Client.Get(link["url"].(string))
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(res.Body)
	res.Body.Close()
	if !bytes.Equal(body, testfonts.Dynalight) {
		t.Fatal("the signed font download is not the file")
	}

	// Publishing freezes the draft; a font removed from the draft stays
	// the version's (and downloadable).
	call(t, h, "", http.MethodPost, kit+"/publish", map[string]any{"note": "v1"}, http.StatusOK, &k)
	v1 := k["currentVersionId"].(string)
	apptest.ExpectProblem(t, h.Do(t, "brands", http.MethodPost, kit+"/publish", "", nil), http.StatusConflict, "nothing_to_publish")
	call(t, h, "", http.MethodDelete, kit+"/fonts/"+font, nil, http.StatusOK, &k)
	if len(k["draft"].(map[string]any)["fonts"].([]any)) != 1 || k["draftChanged"] != true {
		t.Fatalf("after removing a font: %v", k)
	}
	var version map[string]any
	apptest.Eventually(t, 30*time.Second, "version 1 readable", func() bool {
		res := h.Do(t, "brands", http.MethodGet, kit+"/versions/"+v1, "", nil)
		if res.Status != http.StatusOK {
			return false
		}
		res.JSON(t, &version)
		return true
	})
	if len(version["fonts"].([]any)) != 2 || version["number"].(float64) != 1 || version["note"] != "v1" {
		t.Fatalf("version 1 %v", version)
	}
	call(t, h, "", http.MethodGet, kit+"/fonts/"+font+"/download", nil, http.StatusOK, &link)
}

// TestKitPermissions: members edit drafts (kits:write) but publishing,
// deleting and the offer for governed design are a brand manager's
// (kits:manage); a key bound to a workspace manages that workspace's kits
// only, and no kit of the whole organization.
func TestKitPermissions(t *testing.T) {
	h := apptest.Start(t, apptest.Options{})
	writer := h.Key(t, h.OrgID, []string{"kits:read", "kits:write"})
	var k map[string]any
	call(t, h, writer, http.MethodPost, "/api/brand-kits", map[string]any{"name": "Acme", "colours": []any{map[string]any{"name": "A",
		"hex": "#000000"}}}, http.StatusCreated, &k)
	kit := "/api/brand-kits/" + k["id"].(string)
	call(t, h, writer, http.MethodPatch, kit, map[string]any{"name": "Acme 2"}, http.StatusOK, nil)
	for _, r := range []struct {
		method, path string
		body         any
	}{{http.MethodPost, kit + "/publish", nil}, {http.MethodDelete, kit, nil}, {http.MethodPatch, kit, map[string]any{"availableForDesign": false}}} {
		apptest.ExpectProblem(t, h.Do(t, "brands", r.method, r.path, writer, r.body), http.StatusForbidden, "permission_denied")
	}
	call(t, h, "", http.MethodPost, kit+"/publish", nil, http.StatusOK, nil)

	ws := h.Workspace(t, h.OrgID, "brand-a")
	scopes := []string{"kits:read", "kits:write", "kits:manage"}
	bound := h.Key(t, h.OrgID, scopes, domain.ResourceBinding{ResourceType: "workspace", ResourceID: ws, AccessLevel: "admin", AllowedScopes: scopes})
	apptest.ExpectProblem(t, h.Do(t, "brands", http.MethodPost, "/api/brand-kits", bound, map[string]any{"name": "Org-wide"}),
		http.StatusForbidden, "permission_denied")
	apptest.ExpectProblem(t, h.Do(t, "brands", http.MethodPatch, kit, bound, map[string]any{"name": "X"}), http.StatusForbidden, "permission_denied")
	var mine map[string]any
	call(t, h, bound, http.MethodPost, "/api/brand-kits", map[string]any{"name": "Brand A", "workspaceSlug": "brand-a",
		"colours": []any{map[string]any{"name": "A", "hex": "#00AA00"}}}, http.StatusCreated, &mine)
	if mine["workspaceId"] != ws {
		t.Fatalf("kit %v", mine)
	}
	call(t, h, bound, http.MethodPost, "/api/brand-kits/"+mine["id"].(string)+"/publish", nil, http.StatusOK, nil)
	apptest.ExpectProblem(t, h.Do(t, "brands", http.MethodPost, "/api/brand-kits", bound, map[string]any{"name": "X", "workspaceSlug": "default"}),
		http.StatusForbidden, "permission_denied")
	// The list: the bound key sees its workspace's kit and the
	// organization's; a key bound elsewhere does not see brand-a's.
	elsewhere := h.Key(t, h.OrgID, []string{"kits:read"}, domain.ResourceBinding{ResourceType: "workspace", ResourceID: h.OrgID,
		AccessLevel: "read", AllowedScopes: []string{"kits:read"}})
	var list map[string]any
	apptest.Eventually(t, 30*time.Second, "the list", func() bool {
		call(t, h, elsewhere, http.MethodGet, "/api/brand-kits", nil, http.StatusOK, &list)
		return len(list["kits"].([]any)) == 1
	})
	apptest.ExpectProblem(t, h.Do(t, "brands", http.MethodGet, "/api/brand-kits/"+mine["id"].(string), elsewhere, nil), http.StatusNotFound, "not_found")
}

var objectListAll = objectstore.ListOptions{Limit: 1000}
