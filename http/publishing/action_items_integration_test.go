package publishing_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	pubcmd "github.com/platform/backend/commands/publishing"
	domain "github.com/platform/backend/domain/publishing"
	"github.com/platform/backend/internal/apptest"
	"github.com/platform/backend/internal/testenv"
	"github.com/platform/backend/providers/fakekit"
	"github.com/platform/backend/providers/social/socialfake"
)

// TestActionItemsInTheDashboardQueue: the dashboard's action queue (GET
// /api/action-items) lists publishing's posts that need a person: a
// suggestion awaiting review (linking to its item in the content queue,
// resolved by approving it) and a post whose publication is unconfirmed
// (the network took it and never answered, and cannot be read back:
// critical, linking to the post). Approving the suggestion takes it off
// the queue; another organization's queue has neither.
func TestActionItemsInTheDashboardQueue(t *testing.T) {
	f := newFake(t)
	h := apptest.Start(t, withFake(f))
	apptest.Provided[*pubcmd.Studio](h).SetAI(fakeAI{})
	b := newBrand(t, h, "", "Acme")
	connect(t, h, "", b.BrandID, "network_1")

	// Unconfirmed, and kept so: every read-back of the network fails.
	f.On(socialfake.OpLookup).Always(fakekit.Fault{Kind: fakekit.ServerError})
	f.On(socialfake.OpPost).Next(1, fakekit.Fault{Kind: fakekit.AcceptThenTimeout})
	silent := createPost(t, h, "", post(b.BrandID, "Accepted, then silence", time.Now()))
	waitPost(t, h, silent.PostID, 15*time.Second, "unconfirmed", allTargets(domain.StateUnconfirmed))

	res := h.Do(t, "publishing", http.MethodPost, "/api/content-strategy/suggestions/generate-from-trends", "", map[string]any{
		"brandId": b.BrandID, "items": []map[string]any{{"title": "Launch", "text": "News"}}, "platforms": []string{"network_1"}})
	apptest.Must(t, res, http.StatusCreated, "suggestions")
	var sugg pubcmd.Suggestions
	res.JSON(t, &sugg)
	if len(sugg.Suggestions) != 1 {
		t.Fatalf("suggestions %+v", sugg)
	}
	suggested := sugg.Suggestions[0].PostID

	type item struct {
		AppID    string `json:"appId"`
		Kind     string `json:"kind"`
		ObjectID string `json:"objectId"`
		Severity string `json:"severity"`
		Resolve  string `json:"resolve"`
		URL      string `json:"url"`
	}
	queue := func(token string) map[string]item {
		t.Helper()
		res := h.Do(t, "dashboard", http.MethodGet, "/api/action-items", token, nil)
		apptest.Must(t, res, http.StatusOK, "action items")
		var q struct {
			Items   []item `json:"items"`
			Sources []struct {
				AppID string `json:"appId"`
				State string `json:"state"`
			} `json:"sources"`
		}
		res.JSON(t, &q)
		for _, s := range q.Sources {
			if s.AppID == "publishing" && s.State != "ok" {
				t.Fatalf("publishing's items: %s", s.State)
			}
		}
		out := map[string]item{}
		for _, it := range q.Items {
			if it.AppID == "publishing" {
				out[it.Kind] = it
			}
		}
		return out
	}
	var got map[string]item
	apptest.Eventually(t, 15*time.Second, "both posts in the queue", func() bool {
		got = queue("")
		return len(got) == 2
	})
	review, unconfirmed := got["publishing.post.awaiting_review"], got["publishing.post.unconfirmed"]
	if review.ObjectID != suggested || review.Severity != "warning" || review.Resolve != "content_ops.items.approve" ||
		!strings.HasSuffix(review.URL, "/publishing/content-ops/items/"+suggested) {
		t.Fatalf("the suggestion's item %+v", review)
	}
	if unconfirmed.ObjectID != silent.PostID || unconfirmed.Severity != "critical" ||
		!strings.HasSuffix(unconfirmed.URL, "/publishing/posts/"+silent.PostID) {
		t.Fatalf("the unconfirmed post's item %+v", unconfirmed)
	}

	_, other := h.NewOrganization(t, "Other", testenv.UniqueName("other"), apptest.DefaultScopes...)
	if n := len(queue(other)); n != 0 {
		t.Fatalf("another organization's queue has %d publishing items", n)
	}

	apptest.Must(t, h.Do(t, "publishing", http.MethodPost, "/api/content-ops/items/"+suggested+"/approve", "", map[string]any{}),
		http.StatusOK, "approve")
	apptest.Eventually(t, 15*time.Second, "the approved suggestion off the queue", func() bool {
		got = queue("")
		_, pending := got["publishing.post.awaiting_review"]
		return !pending
	})
	if _, ok := got["publishing.post.unconfirmed"]; !ok {
		t.Fatalf("the unconfirmed post left the queue: %+v", got)
	}
	sent := 0
	for _, p := range f.Posts() {
		if p.Text == "Accepted, then silence" {
			sent++
		}
	}
	if sent != 1 {
		t.Fatalf("the network received the unconfirmed post %d times, want 1 (it is never sent again)", sent)
	}
}
