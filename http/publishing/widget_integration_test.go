package publishing_test

import (
	"net/http"
	"testing"
	"time"

	pubcmd "github.com/platform/backend/commands/publishing"
	domain "github.com/platform/backend/domain/publishing"
	"github.com/platform/backend/internal/apptest"
	"github.com/platform/backend/internal/testenv"
	"github.com/platform/backend/providers/fakekit"
	"github.com/platform/backend/providers/social/socialfake"
)

// TestWidgetCountsPosts: the publishing tile counts the organization's
// posts scheduled, with a failed target and awaiting review, from the read
// model; a published, a draft, a
// rejected and a deleted post count nowhere; another organization sees
// zeros.
func TestWidgetCountsPosts(t *testing.T) {
	f := newFake(t)
	h := apptest.Start(t, withFake(f))
	apptest.Provided[*pubcmd.Studio](h).SetAI(fakeAI{})
	b := newBrand(t, h, "", "Acme")
	connect(t, h, "", b.BrandID, "network_1")

	createPost(t, h, "", post(b.BrandID, "Later", time.Now().Add(time.Hour)))
	createPost(t, h, "", post(b.BrandID, "Later too", time.Now().Add(2*time.Hour)))
	f.On(socialfake.OpPost).Next(1, fakekit.Fault{Kind: fakekit.Reject, Code: "too_long"})
	refused := createPost(t, h, "", post(b.BrandID, "Refused", time.Now()))
	waitPost(t, h, refused.PostID, 15*time.Second, "failed", allTargets(domain.StateFailed))
	published := createPost(t, h, "", post(b.BrandID, "Now", time.Now()))
	waitPost(t, h, published.PostID, 15*time.Second, "published", allTargets(domain.StatePublished))
	apptest.Must(t, h.Do(t, "publishing", http.MethodPost, "/api/posts", "", map[string]any{"brandId": b.BrandID, "text": "A draft",
		"targets": []map[string]any{{"network": "network_1"}}}), http.StatusCreated, "draft")
	gone := createPost(t, h, "", post(b.BrandID, "Gone", time.Now().Add(time.Hour)))
	apptest.Must(t, h.Do(t, "publishing", http.MethodDelete, "/api/posts/"+gone.PostID, "", nil), http.StatusNoContent, "delete")
	res := h.Do(t, "publishing", http.MethodPost, "/api/content-strategy/suggestions/generate-from-trends", "", map[string]any{
		"brandId": b.BrandID, "items": []map[string]any{{"title": "Launch", "text": "News"}}, "platforms": []string{"network_1", "network_2", "network_3"}})
	apptest.Must(t, res, http.StatusCreated, "suggestions")
	var sugg pubcmd.Suggestions
	res.JSON(t, &sugg)
	res = h.Do(t, "publishing", http.MethodPost, "/api/content-ops/items/"+sugg.Suggestions[0].PostID+"/reject", "", map[string]any{"reason": "off brand"})
	apptest.Must(t, res, http.StatusOK, "reject")

	type tile struct {
		AppID          string `json:"appId"`
		Scheduled      int    `json:"scheduled"`
		Failed         int    `json:"failed"`
		AwaitingReview int    `json:"awaiting_review"`
	}
	widget := func(token string, headers ...string) tile {
		res := h.Do(t, "publishing", http.MethodGet, "/api/widget", token, nil, headers...)
		apptest.Must(t, res, http.StatusOK, "widget")
		var body struct {
			Widgets []tile `json:"widgets"`
		}
		res.JSON(t, &body)
		if len(body.Widgets) != 1 {
			t.Fatalf("widget: %s", res.Body)
		}
		return body.Widgets[0]
	}
	// The posts are streams of their own (partitions apart): wait until
	// the read model has every one.
	want := tile{AppID: "publishing", Scheduled: 2, Failed: 1, AwaitingReview: 2}
	var got tile
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("last widget %+v, want %+v", got, want)
		}
	})
	apptest.Eventually(t, 15*time.Second, "the widget's counts", func() bool {
		got = widget("", "X-Platform-Min-Position", res.Header.Get("X-Platform-Position"))
		return got == want
	})
	_, other := h.NewOrganization(t, "Other", testenv.UniqueName("other"), apptest.DefaultScopes...)
	if got := widget(other); got != (tile{AppID: "publishing"}) {
		t.Fatalf("another organization's widget %+v", got)
	}
}
