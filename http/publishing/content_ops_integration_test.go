package publishing_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	pubcmd "github.com/platform/backend/commands/publishing"
	"github.com/platform/backend/domain/errs"
	domain "github.com/platform/backend/domain/publishing"
	"github.com/platform/backend/internal/apptest"
	view "github.com/platform/backend/projections/publishing"
)

// fakeAI stands in for the gateway: it writes copy and draws a small PNG,
// or answers the upstream's rate limit.
type fakeAI struct{ limited bool }

func (a fakeAI) GenerateImage(context.Context, string, string, string, string) (pubcmd.GeneratedImage, error) {
	if a.limited {
		return pubcmd.GeneratedImage{}, errs.RateLimited(7)
	}
	return pubcmd.GeneratedImage{Data: []byte("\x89PNG\r\n\x1a\nfake"), ContentType: "image/png", Model: "fake-image"}, nil
}

func (a fakeAI) Write(_ context.Context, _, _, _, prompt string, _ int) (string, error) {
	if a.limited {
		return "", errs.RateLimited(7)
	}
	return "Suggested: " + prompt[strings.Index(prompt, "\n")+1:][:20], nil
}

func getJSON[T any](t *testing.T, h *apptest.Harness, path string, headers ...string) T {
	t.Helper()
	res := h.Do(t, "publishing", http.MethodGet, path, "", nil, headers...)
	apptest.Must(t, res, http.StatusOK, "GET "+path)
	var v T
	res.JSON(t, &v)
	return v
}

// TestContentOperations: suggestions land as drafts awaiting approval;
// approve, reject, reschedule and retry do what the seed says; the queue,
// deck, items, events and daily views show it.
func TestContentOperations(t *testing.T) {
	f := newFake(t)
	h := apptest.Start(t, withFake(f))
	apptest.Provided[*pubcmd.Studio](h).SetAI(fakeAI{})
	b := newBrand(t, h, "", "Acme")
	connect(t, h, "", b.BrandID, "network_1")

	// Seeds and trends, with a machine key acting for the brand.
	machine := []string{"X-Api-Key", h.APIKey, "X-Brand-ID", b.BrandID}
	res := h.Do(t, "publishing", http.MethodPost, "/api/seeds/share", "-", map[string]any{"title": "Launch week", "text": "Five days of news"}, machine...)
	apptest.Must(t, res, http.StatusCreated, "share seed")
	apptest.Eventually(t, 10*time.Second, "trends", func() bool {
		return len(getJSON[struct {
			Items []map[string]any `json:"items"`
		}](t, h, "/api/trends?brandId="+b.BrandID).Items) == 1
	})

	res = h.Do(t, "publishing", http.MethodPost, "/api/content-strategy/suggestions/generate-from-trends", "", map[string]any{
		"brandId": b.BrandID, "items": []map[string]any{{"title": "Launch week", "text": "Five days of news"}}, "platforms": []string{"network_1", "network_2"}})
	apptest.Must(t, res, http.StatusCreated, "suggestions")
	var sugg pubcmd.Suggestions
	res.JSON(t, &sugg)
	if len(sugg.Suggestions) != 2 || sugg.Suggestions[0].Approval != domain.ApprovalPending {
		t.Fatalf("suggestions %+v", sugg)
	}
	approveID, rejectID := sugg.Suggestions[0].PostID, sugg.Suggestions[1].PostID
	apptest.Eventually(t, 10*time.Second, "deck", func() bool {
		return len(getJSON[struct {
			Items []view.DeckItem `json:"items"`
		}](t, h, "/api/content-ops/deck", machine...).Items) == 2
	})
	// A suggestion is not scheduled before approval.
	apptest.ExpectProblem(t, h.Do(t, "publishing", http.MethodPost, "/api/content-ops/items/"+approveID+"/reschedule", "",
		map[string]any{"publishAt": time.Now().Add(time.Hour).Format(time.RFC3339)}), http.StatusConflict, "approval_required")
	res = h.Do(t, "publishing", http.MethodPost, "/api/content-ops/items/"+approveID+"/approve", "-", nil, machine...)
	apptest.Must(t, res, http.StatusOK, "approve")
	res = h.Do(t, "publishing", http.MethodPost, "/api/content-ops/items/"+rejectID+"/reject", "", map[string]any{"reason": "off brand"})
	apptest.Must(t, res, http.StatusOK, "reject")
	apptest.ExpectProblem(t, h.Do(t, "publishing", http.MethodPost, "/api/content-ops/items/"+rejectID+"/approve", "", nil),
		http.StatusConflict, "not_awaiting_approval")

	// Safe edit of the approved draft, then schedule it; it fails once and
	// is rescheduled (failure cleared), then publishes.
	res = h.Do(t, "publishing", http.MethodPatch, "/api/content-ops/items/"+approveID, "", map[string]any{"text": "Launch week starts now"})
	apptest.Must(t, res, http.StatusOK, "safe edit")
	f.On("post").Next(1, faultServerError())
	res = h.Do(t, "publishing", http.MethodPut, "/api/posts/"+approveID, "", map[string]any{"publishAt": time.Now().Format(time.RFC3339Nano)})
	apptest.Must(t, res, http.StatusOK, "schedule")
	waitPost(t, h, approveID, 15*time.Second, "failed", allTargets(domain.StateFailed))
	apptest.ExpectProblem(t, h.Do(t, "publishing", http.MethodPatch, "/api/content-ops/items/"+approveID, "", map[string]any{"text": "x"}),
		http.StatusConflict, "not_a_draft")
	at := time.Now().Add(1500 * time.Millisecond)
	res = h.Do(t, "publishing", http.MethodPost, "/api/content-ops/items/"+approveID+"/reschedule", "", map[string]any{"publishAt": at.Format(time.RFC3339Nano)})
	apptest.Must(t, res, http.StatusOK, "reschedule")
	var queued domain.Post
	res.JSON(t, &queued)
	if queued.Status != domain.StateScheduled || queued.Targets[0].Failure != nil {
		t.Fatalf("rescheduled %+v", queued)
	}
	waitPost(t, h, approveID, 15*time.Second, "published", allTargets(domain.StatePublished))
	if f.PostCount() != 1 || f.Posts()[0].Text != "Launch week starts now" {
		t.Fatalf("the network received %+v", f.Posts())
	}
	apptest.Eventually(t, 10*time.Second, "views", func() bool {
		item := getJSON[struct {
			Item   view.QueueItem      `json:"item"`
			Events []view.ContentEvent `json:"events"`
		}](t, h, "/api/content-ops/items/"+approveID)
		return item.Item.PublishStatus == domain.StatePublished && len(item.Events) >= 7
	})
	daily := getJSON[struct {
		Days []view.Day `json:"days"`
	}](t, h, "/api/content-ops/daily")
	if len(daily.Days) != 1 || daily.Days[0].Created != 2 || daily.Days[0].Approved != 1 || daily.Days[0].Rejected != 1 ||
		daily.Days[0].Published != 1 || daily.Days[0].Failed != 1 || daily.Days[0].Scheduled != 2 {
		t.Fatalf("daily %+v", daily)
	}
	events := getJSON[struct {
		Events []view.ContentEvent `json:"events"`
	}](t, h, "/api/content-ops/events")
	if len(events.Events) < 10 {
		t.Fatalf("events %d", len(events.Events))
	}
	queue := getJSON[struct {
		Items []view.QueueItem `json:"items"`
	}](t, h, "/api/content-ops/queue")
	for _, it := range queue.Items {
		if it.ContentID == rejectID || it.ContentID == approveID {
			t.Fatalf("queue shows a settled item %+v", it)
		}
	}

	// AI images land in the media library; an upstream rate limit is 429.
	res = h.Do(t, "publishing", http.MethodPost, "/api/ai/generate-image", "", map[string]any{"brandId": b.BrandID, "prompt": "a rocket"})
	apptest.Must(t, res, http.StatusOK, "image")
	apptest.Provided[*pubcmd.Studio](h).SetAI(fakeAI{limited: true})
	res = h.Do(t, "publishing", http.MethodPost, "/api/ai/generate-image", "", map[string]any{"prompt": "a rocket"})
	apptest.ExpectProblem(t, res, http.StatusTooManyRequests, "rate_limited")
	if res.Header.Get("Retry-After") != "7" {
		t.Fatalf("Retry-After %q", res.Header.Get("Retry-After"))
	}
}
