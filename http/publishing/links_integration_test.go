package publishing_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/platform/backend/internal/apptest"
)

// TestURLsWithCredentialsAreRefused: a post's link (first item or a thread's)
// and a seed's source URL with user:password@ are refused at the member, as a
// status check URL is (the same check, domain/text.URL): they were stored and
// would be published or shown with the credentials in them. posts.create
// answers 400 (the seed's table), the others 422.
func TestURLsWithCredentialsAreRefused(t *testing.T) {
	h := apptest.Start(t, apptest.Options{NoWorkers: true})
	b := newBrand(t, h, "", "Links")
	before := h.Events(t, "publishing")
	targets := []any{map[string]any{"network": "network_1"}}
	for _, c := range []struct {
		name, method, path string
		body               map[string]any
		status             int
		pointer            string
	}{
		{"post link", http.MethodPost, "/api/posts", map[string]any{"brandId": b.BrandID, "text": "t", "targets": targets,
			"link": "https://user:secret@example.com/launch"}, http.StatusBadRequest, "/link"},
		{"thread link", http.MethodPost, "/api/posts", map[string]any{"brandId": b.BrandID, "text": "t", "targets": targets,
			"thread": []any{map[string]any{"text": "more", "link": "http://admin@example.com/"}}}, http.StatusBadRequest, "/thread/0/link"},
		{"seed source", http.MethodPost, "/api/seeds/share", map[string]any{"brandId": b.BrandID, "title": "Seed",
			"sourceUrl": "https://u:p@news.example.com/item"}, http.StatusUnprocessableEntity, "/sourceUrl"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := apptest.ExpectProblem(t, h.Do(t, "publishing", c.method, c.path, "", c.body), c.status, "invalid_input")
			if len(p.Errors) != 1 || p.Errors[0].Pointer != c.pointer || p.Errors[0].Detail != "must not contain credentials (user:password@)" {
				t.Fatalf("errors %+v, want %s: must not contain credentials", p.Errors, c.pointer)
			}
		})
	}
	if after := h.Events(t, "publishing"); after != before {
		t.Fatalf("refused input appended %d events", after-before)
	}
	// The same URL without credentials is taken.
	res := h.Do(t, "publishing", http.MethodPost, "/api/posts", "", map[string]any{"brandId": b.BrandID, "text": "t", "targets": targets,
		"link": "https://example.com/launch?by=@user"})
	apptest.Must(t, res, http.StatusCreated, "a link without credentials")
	var post struct {
		PostID string `json:"id"`
	}
	res.JSON(t, &post)
	p := apptest.ExpectProblem(t, h.Do(t, "publishing", http.MethodPut, "/api/posts/"+post.PostID, "", map[string]any{
		"link": "https://user:secret@example.com/"}), http.StatusUnprocessableEntity, "invalid_input")
	if len(p.Errors) != 1 || p.Errors[0].Pointer != "/link" {
		t.Fatalf("update: errors %+v, want /link", p.Errors)
	}
}

// TestScheduledCreateNeedsATimeInItsSchema: posts.create's schema says what
// the domain checks (status scheduled needs publishAt: nothing stored to fall
// back on), so the fuzzing gate's schema-valid posts are ones the server
// takes; the refusal names publishAt.
func TestScheduledCreateNeedsATimeInItsSchema(t *testing.T) {
	h := apptest.Start(t, apptest.Options{NoWorkers: true})
	b := newBrand(t, h, "", "Schedules")
	p := apptest.ExpectProblem(t, h.Do(t, "publishing", http.MethodPost, "/api/posts", "", map[string]any{"brandId": b.BrandID, "text": "t",
		"targets": []any{map[string]any{"network": "network_1"}}, "status": "scheduled"}), http.StatusBadRequest, "invalid_input")
	found := false
	for _, e := range p.Errors {
		found = found || e.Pointer == "/publishAt"
	}
	if !found {
		t.Fatalf("errors %+v, want /publishAt", p.Errors)
	}
	var doc struct {
		Paths map[string]map[string]struct {
			RequestBody struct {
				Content map[string]struct {
					Schema json.RawMessage `json:"schema"`
				} `json:"content"`
			} `json:"requestBody"`
		} `json:"paths"`
	}
	res := h.Do(t, "publishing", http.MethodGet, "/api/openapi.json", "-", nil)
	apptest.Must(t, res, http.StatusOK, "openapi")
	res.JSON(t, &doc)
	body := doc.Paths["/api/posts"]["post"].RequestBody.Content["application/json"].Schema
	if !strings.Contains(string(body), `{"anyOf":[{"properties":{"status":{"const":"draft"}}},{"required":["publishAt"]}]}`) {
		t.Fatalf("posts.create's body schema does not say a scheduled post needs publishAt: %s", body)
	}
}
