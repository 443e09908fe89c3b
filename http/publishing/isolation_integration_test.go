package publishing_test

import (
	"bytes"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/platform/backend/internal/app"
	"github.com/platform/backend/internal/apptest"
	"github.com/platform/backend/internal/module"
	pubmod "github.com/platform/backend/internal/modules/publishing"
	"github.com/platform/backend/internal/testenv"
)

// TestStatusCodes: the seed's statuses: 400 invalid create, 401 without a
// credential or with X-Api-Key on a bearer-only route, 404 unknown post or
// item, 409 for a provider that cannot connect (before any redirect), 413
// and 400 for uploads over the limits, before any byte is stored.
func TestStatusCodes(t *testing.T) {
	// No sandbox: every network is setup-required, so none can connect.
	h := apptest.Start(t, apptest.Options{Configure: func(cfg *app.Config) {
		module.SectionOf[*pubmod.Config](cfg.Modules).Sandbox = false
	}})
	b := newBrand(t, h, "", "Acme")
	do := func(method, path, token string, body any, headers ...string) apptest.Response {
		return h.Do(t, "publishing", method, path, token, body, headers...)
	}
	p := apptest.ExpectProblem(t, do(http.MethodPost, "/api/posts", "", map[string]any{"brandId": b.BrandID, "text": "x", "targets": []any{}}),
		http.StatusBadRequest, "invalid_input")
	if len(p.Errors) == 0 || p.Errors[0].Pointer != "/targets" {
		t.Fatalf("errors %+v", p.Errors)
	}
	apptest.ExpectProblem(t, do(http.MethodPost, "/api/posts", "", map[string]any{"brandId": b.BrandID, "text": "x\x00",
		"targets": []any{map[string]any{"network": "network_1"}}}), http.StatusBadRequest, "invalid_input")
	apptest.ExpectProblem(t, do(http.MethodPost, "/api/posts", "", map[string]any{"brandId": b.BrandID, "text": "past",
		"targets": []any{map[string]any{"network": "network_1"}}, "publishAt": time.Now().Add(-time.Hour).Format(time.RFC3339)}),
		http.StatusBadRequest, "invalid_input")
	apptest.ExpectProblem(t, do(http.MethodGet, "/api/posts", "-", nil), http.StatusUnauthorized, "authentication_required")
	apptest.ExpectProblem(t, do(http.MethodGet, "/api/posts", "-", nil, "X-Api-Key", h.APIKey), http.StatusUnauthorized, "authentication_required")
	apptest.ExpectProblem(t, do(http.MethodGet, "/api/content-ops/queue", "-", nil, "X-Api-Key", h.APIKey), http.StatusUnprocessableEntity, "invalid_input")
	apptest.Must(t, do(http.MethodGet, "/api/content-ops/queue", "-", nil, "X-Api-Key", h.APIKey, "X-Brand-ID", b.BrandID), http.StatusOK, "machine key")
	apptest.ExpectProblem(t, do(http.MethodGet, "/api/posts/0190aaaa-0000-7000-8000-000000000000", "", nil), http.StatusNotFound, "not_found")
	apptest.ExpectProblem(t, do(http.MethodPost, "/api/content-ops/items/nope/retry", "", nil), http.StatusNotFound, "not_found")
	apptest.ExpectProblem(t, do(http.MethodPost, "/api/integrations/network_5/connect", "", map[string]any{"brandId": b.BrandID}),
		http.StatusConflict, "provider_not_connectable")
	apptest.ExpectProblem(t, do(http.MethodPost, "/api/media/upload", "", map[string]any{"filename": "big.png", "contentType": "image/png",
		"size": 50 << 20}), http.StatusRequestEntityTooLarge, "media_too_large")
	apptest.ExpectProblem(t, do(http.MethodPost, "/api/media/upload", "", map[string]any{"filename": "a.exe", "contentType": "application/x-msdownload",
		"size": 10}), http.StatusBadRequest, "invalid_input")

	// A granted upload: the bytes go straight to the object store's signed
	// URL; more than granted is refused there, and the file is listed.
	res := do(http.MethodPost, "/api/media/upload", "", map[string]any{"brandId": b.BrandID, "filename": "logo.png", "contentType": "image/png", "size": 8})
	apptest.Must(t, res, http.StatusOK, "upload grant")
	var grant struct {
		Method  string            `json:"method"`
		URL     string            `json:"url"`
		Headers map[string]string `json:"headers"`
	}
	res.JSON(t, &grant)
	put := func(body []byte) int {
		req, _ := http.NewRequest(grant.Method, grant.URL, bytes.NewReader(body))
		for k, v := range grant.Headers {
			req.Header.Set(k, v)
		}
		resp, err := h.Client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if s := put([]byte(strings.Repeat("x", 64))); s != http.StatusRequestEntityTooLarge {
		t.Fatalf("oversized upload answered %d", s)
	}
	if s := put([]byte("\x89PNG\r\n\x1a\n")); s/100 != 2 {
		t.Fatalf("upload answered %d", s)
	}
	apptest.Eventually(t, 10*time.Second, "media listed", func() bool {
		return strings.Contains(string(do(http.MethodGet, "/api/media", "", nil).Body), "logo.png")
	})
	for _, path := range []string{"/health", "/healthz", "/readyz"} {
		apptest.Must(t, do(http.MethodGet, path, "-", nil), http.StatusOK, path)
	}
}

// TestCrossTenantProbes: another organization's brand, post, item and
// media ids answer like missing ones on every route, and its lists never
// show them.
func TestCrossTenantProbes(t *testing.T) {
	h := start(t)
	b := newBrand(t, h, "", "Acme")
	connect(t, h, "", b.BrandID, "network_1")
	p := createPost(t, h, "", map[string]any{"brandId": b.BrandID, "text": "Ours", "targets": []any{map[string]any{"network": "network_1"}}})
	apptest.Must(t, h.Do(t, "publishing", http.MethodPost, "/api/seeds/share", "", map[string]any{"brandId": b.BrandID, "title": "Secret seed"}),
		http.StatusCreated, "seed")
	apptest.Eventually(t, 10*time.Second, "read model", func() bool {
		return h.Do(t, "publishing", http.MethodGet, "/api/posts/"+p.PostID, "", nil).Status == http.StatusOK
	})
	_, other := h.NewOrganization(t, "Other", testenv.UniqueName("other"), apptest.DefaultScopes...)
	post, brand := p.PostID, b.BrandID
	for _, c := range []struct {
		method, path string
		body         any
		machine      bool
	}{
		{http.MethodGet, "/api/posts/" + post, nil, false},
		{http.MethodPut, "/api/posts/" + post, map[string]any{"text": "theirs"}, false},
		{http.MethodDelete, "/api/posts/" + post, nil, false},
		{http.MethodGet, "/api/content-ops/items/" + post, nil, true},
		{http.MethodPatch, "/api/content-ops/items/" + post, map[string]any{"text": "theirs"}, true},
		{http.MethodPost, "/api/content-ops/items/" + post + "/approve", nil, true},
		{http.MethodPost, "/api/content-ops/items/" + post + "/reject", nil, true},
		{http.MethodPost, "/api/content-ops/items/" + post + "/reschedule", map[string]any{"publishAt": time.Now().Add(time.Hour).Format(time.RFC3339)}, true},
		{http.MethodPost, "/api/content-ops/items/" + post + "/retry", nil, true},
		{http.MethodGet, "/api/brands/" + brand + "/publishing-readiness", nil, true},
		{http.MethodPost, "/api/brands/" + brand + "/transfer-organization", map[string]any{"organizationId": h.OrgID}, false},
		{http.MethodPost, "/api/posts", map[string]any{"brandId": brand, "text": "x", "targets": []any{map[string]any{"network": "network_1"}}}, false},
		{http.MethodPost, "/api/integrations/network_1/connect", map[string]any{"brandId": brand}, false},
		{http.MethodPost, "/api/media/upload", map[string]any{"brandId": brand, "filename": "a.png", "contentType": "image/png", "size": 1}, false},
		{http.MethodPost, "/api/seeds/share", map[string]any{"brandId": brand, "title": "x"}, true},
	} {
		var headers []string
		if c.machine {
			headers = []string{"X-Brand-ID", brand}
		}
		res := h.Do(t, "publishing", c.method, c.path, other, c.body, headers...)
		if res.Status != http.StatusNotFound {
			t.Errorf("%s %s by another organization: %d %s, want 404", c.method, c.path, res.Status, res.Body)
		}
	}
	for _, path := range []string{"/api/posts", "/api/brands", "/api/media", "/api/integrations", "/api/content-ops/queue",
		"/api/content-ops/events", "/api/content-ops/deck", "/api/content-ops/daily", "/api/seeds", "/api/trends",
		"/api/posts?threadId=" + post, "/api/content-ops/queue?brandId=" + brand} {
		res := h.Do(t, "publishing", http.MethodGet, path, other, nil)
		apptest.Must(t, res, http.StatusOK, path)
		if strings.Contains(string(res.Body), post) || strings.Contains(string(res.Body), brand) || strings.Contains(string(res.Body), "Secret seed") {
			t.Errorf("%s shows another organization's content: %s", path, res.Body)
		}
	}
	// The post is untouched.
	got := waitPost(t, h, post, time.Second, "unchanged", func(p2 domainPost) bool { return p2.Items[0].Text == "Ours" && !p2.Deleted })
	_ = got
}

// TestForeignMediaIsRefusedAtCreate: a post naming another organization's
// media file (or another brand's) was accepted and failed later as
// media_unavailable. Now create, update and a draft's edit answer 404 for
// it, exactly as for an id that exists nowhere, and write nothing; the
// brand's own file and a file of no brand of its organization are taken.
func TestForeignMediaIsRefusedAtCreate(t *testing.T) {
	h := start(t)
	_, other := h.NewOrganization(t, "Other", testenv.UniqueName("other"), apptest.DefaultScopes...)
	upload := func(token, brandID string) string {
		t.Helper()
		body := map[string]any{"filename": "a.png", "contentType": "image/png", "size": 8}
		if brandID != "" {
			body["brandId"] = brandID
		}
		res := h.Do(t, "publishing", http.MethodPost, "/api/media/upload", token, body)
		apptest.Must(t, res, http.StatusOK, "upload grant")
		var g struct {
			Media struct {
				ID string `json:"id"`
			} `json:"media"`
		}
		res.JSON(t, &g)
		return g.Media.ID
	}
	ours, sister := newBrand(t, h, "", "Acme"), newBrand(t, h, "", "Sister")
	theirs := newBrand(t, h, other, "Theirs")
	own, loose, sisters, foreign, foreignLoose := upload("", ours.BrandID), upload("", ""), upload("", sister.BrandID),
		upload(other, theirs.BrandID), upload(other, "")
	missing := "0190aaaa-0000-7000-8000-000000000000"
	create := func(media ...string) apptest.Response {
		return h.Do(t, "publishing", http.MethodPost, "/api/posts", "", map[string]any{"brandId": ours.BrandID, "text": "x", "media": media,
			"targets": []any{map[string]any{"network": "network_1"}}})
	}
	shape := func(res apptest.Response) string {
		p := apptest.ExpectProblem(t, res, http.StatusNotFound, "not_found")
		return p.Detail
	}
	want := shape(create(missing))
	for name, id := range map[string]string{"another organization's": foreign, "another organization's, of no brand": foreignLoose,
		"another brand's": sisters} {
		if got := shape(create(own, id)); got != want {
			t.Errorf("create with %s media: detail %q, want %q (as a missing id)", name, got, want)
		}
	}
	apptest.Must(t, create(own, loose), http.StatusCreated, "create with the brand's own media and one of no brand")
	draft := createPost(t, h, "", map[string]any{"brandId": ours.BrandID, "text": "draft", "targets": []any{map[string]any{"network": "network_1"}}})
	if got := shape(h.Do(t, "publishing", http.MethodPut, "/api/posts/"+draft.PostID, "", map[string]any{"media": []string{foreign}})); got != want {
		t.Errorf("update: detail %q", got)
	}
	if got := shape(h.Do(t, "publishing", http.MethodPut, "/api/posts/"+draft.PostID, "", map[string]any{
		"thread": []any{map[string]any{"text": "reply", "media": []string{foreign}}}})); got != want {
		t.Errorf("update of a thread item: detail %q", got)
	}
	if got := shape(h.Do(t, "publishing", http.MethodPatch, "/api/content-ops/items/"+draft.PostID, "", map[string]any{"text": "edit",
		"media": []string{foreign}})); got != want {
		t.Errorf("draft edit: detail %q", got)
	}
	apptest.Must(t, h.Do(t, "publishing", http.MethodPut, "/api/posts/"+draft.PostID, "", map[string]any{"media": []string{own}}),
		http.StatusOK, "update with the brand's own media")
	if n := h.Count(t, `SELECT count(*) FROM es_events WHERE stream_id=$1`, draft.PostID); n != 2 {
		t.Fatalf("the draft has %d events, want 2 (created, the accepted update)", n)
	}
}
