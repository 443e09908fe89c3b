package publishing_test

import (
	"net/http"
	"testing"
	"time"

	pubcmd "github.com/platform/backend/commands/publishing"
	domain "github.com/platform/backend/domain/publishing"
	"github.com/platform/backend/internal/apptest"
)

type pubcmdHandlers = pubcmd.Handlers

// TestScheduledPostPublishesOnce: a brand connects network_1 through the
// fake's OAuth server, a post scheduled a second ahead goes out once at its
// time, and the post, the queue and the readiness say so.
func TestScheduledPostPublishesOnce(t *testing.T) {
	h := start(t)
	b := newBrand(t, h, "", "Acme")
	connect(t, h, "", b.BrandID, "network_1")
	x := fake(t, h, "network_1")
	at := time.Now().Add(time.Second).UTC()
	p := createPost(t, h, "", map[string]any{"brandId": b.BrandID, "text": "Hello from the scheduler",
		"targets": []map[string]any{{"network": "network_1"}}, "publishAt": at.Format(time.RFC3339Nano)})
	if p.Status != domain.StateScheduled || p.Targets[0].State != domain.StateScheduled {
		t.Fatalf("created %+v", p)
	}
	got := waitPost(t, h, p.PostID, 20*time.Second, "published", allTargets(domain.StatePublished))
	if got.Status != domain.StatePublished || got.Targets[0].PlatformPostID == nil {
		t.Fatalf("published post %+v", got)
	}
	if n := x.PostCount(); n != 1 {
		t.Fatalf("the network received %d posts, want 1", n)
	}
	if posts := x.Posts(); posts[0].Text != "Hello from the scheduler" || posts[0].Created.Before(at.Add(-time.Second)) {
		t.Fatalf("the network received %+v", posts[0])
	}
	// The read model catches up.
	apptest.Eventually(t, 10*time.Second, "read model", func() bool {
		res := h.Do(t, "publishing", http.MethodGet, "/api/posts/"+p.PostID, "", nil)
		var v domain.Post
		if res.Status == http.StatusOK {
			res.JSON(t, &v)
		}
		return v.Status == domain.StatePublished
	})
	res := h.Do(t, "publishing", http.MethodGet, "/api/brands/"+b.BrandID+"/publishing-readiness", "", nil)
	apptest.Must(t, res, http.StatusOK, "readiness")
}
