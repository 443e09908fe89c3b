package publishing_test

import (
	"net/http"
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
