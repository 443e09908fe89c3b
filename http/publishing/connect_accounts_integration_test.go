package publishing_test

import (
	"net/http"
	"testing"
	"time"

	domain "github.com/platform/backend/domain/publishing"
	"github.com/platform/backend/internal/apptest"
	fbfake "github.com/platform/backend/providers/social/facebook/fake"
)

// TestConnectEveryGrantedPage: a person who picked two pages in Facebook's
// dialog gets both connected (one connection each, with its own page
// token); a post naming a page goes to that page only; connecting again
// keeps the same two connections.
func TestConnectEveryGrantedPage(t *testing.T) {
	h := start(t)
	fb, ok := fake(t, h, "network_3").(*fbfake.Fake)
	if !ok {
		t.Fatal("network_3's sandbox fake is not Facebook's")
	}
	const bakery = "104000000000002"
	fb.AddPage(bakery, "Fake Bakery")
	b := newBrand(t, h, "", "Acme")
	connected := func() map[string]string {
		var list struct {
			Integrations []struct {
				Network     string `json:"network"`
				Connections []struct {
					ConnectionID string `json:"connection_id"`
					AccountID    string `json:"account_id"`
					AccountName  string `json:"account_name"`
					Status       string `json:"status"`
				} `json:"connections"`
			} `json:"integrations"`
		}
		out := map[string]string{}
		h.Do(t, "publishing", http.MethodGet, "/api/integrations", "", nil).JSON(t, &list)
		for _, in := range list.Integrations {
			for _, c := range in.Connections {
				if in.Network == "network_3" && c.Status == domain.ConnectionActive {
					out[c.AccountID] = c.ConnectionID
				}
			}
		}
		return out
	}
	connect(t, h, "", b.BrandID, "network_3")
	var first map[string]string
	apptest.Eventually(t, 10*time.Second, "both pages connected", func() bool {
		first = connected()
		return len(first) == 2 && first[fbfake.PageID] != "" && first[bakery] != ""
	})
	connect(t, h, "", b.BrandID, "network_3")
	if again := connected(); len(again) != 2 || again[fbfake.PageID] != first[fbfake.PageID] || again[bakery] != first[bakery] {
		t.Fatalf("connecting again: %v, want the same connections %v", again, first)
	}

	p := createPost(t, h, "", post(b.BrandID, "Fresh bread today", time.Now(), map[string]any{"network": "network_3", "pageId": bakery}))
	waitPost(t, h, p.PostID, 20*time.Second, "published", allTargets(domain.StatePublished))
	posts := fb.Posts()
	if len(posts) != 1 || posts[0].Account != bakery || posts[0].Text != "Fresh bread today" {
		t.Fatalf("the network got %+v, want one post on the bakery's page", posts)
	}
}
