package e2e

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/platform/backend/providers/fakekit"
	"github.com/platform/backend/providers/social/socialfake"
)

// TestPublishingAsAClient: the publishing API over HTTP against the real
// platformd, as a client would use it: a brand, a connection through the
// network's OAuth server (the fake), a media upload straight to the signed
// URL, a scheduled post with the image that goes out at its time, and the
// content-operations desk: suggestions approved and rejected, a failed
// publish rescheduled, another retried.
func TestPublishingAsAClient(t *testing.T) {
	c := startPublishing(t)
	s, x, call, api := c.s, c.x, c.call, c.srv.URL("publishing")
	type post struct {
		ID      string `json:"id"`
		Status  string `json:"status"`
		Targets []struct {
			State   string `json:"state"`
			Failure *struct {
				Code string `json:"code"`
			} `json:"failure"`
		} `json:"targets"`
	}
	waitStatus := func(id, want string) post {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for {
			var p post
			res := do(t, Req{Method: http.MethodGet, URL: api + "/api/posts/" + id, Key: s.APIKey})
			if res.Status == http.StatusOK && json.Unmarshal(res.Body, &p) == nil && p.Status == want {
				return p
			}
			if time.Now().After(deadline) {
				t.Fatalf("post %s never became %s: %s", id, want, res)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}

	brand := struct{ ID string }{c.brandID}
	var integrations struct {
		Integrations []struct {
			Network     string `json:"network"`
			Status      string `json:"status"`
			Connections []any  `json:"connections"`
		} `json:"integrations"`
	}
	call(http.MethodGet, "/api/integrations", nil, http.StatusOK, &integrations)
	if in := integrations.Integrations[0]; in.Network != "network_1" || in.Status != "sandbox-only" {
		t.Fatalf("integrations: %+v", integrations.Integrations[0])
	}

	// Media: a signed URL, the bytes straight to it.
	png := []byte("\x89PNG\r\n\x1a\nimage bytes")
	var grant struct {
		Media struct {
			ID string `json:"id"`
		} `json:"media"`
		Method  string            `json:"method"`
		URL     string            `json:"url"`
		Headers map[string]string `json:"headers"`
	}
	call(http.MethodPost, "/api/media/upload", map[string]any{"brandId": brand.ID, "filename": "launch.png", "contentType": "image/png",
		"size": len(png)}, http.StatusOK, &grant)
	req, _ := http.NewRequest(grant.Method, grant.URL, bytes.NewReader(png))
	for k, v := range grant.Headers {
		req.Header.Set(k, v)
	}
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode/100 != 2 {
		t.Fatalf("upload: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(do(t, Req{Method: http.MethodGet, URL: api + "/api/media", Key: s.APIKey}).String(), grant.Media.ID) {
		if time.Now().After(deadline) {
			t.Fatal("the media file is not listed")
		}
		time.Sleep(100 * time.Millisecond)
	}

	// Schedule and publish.
	var scheduled post
	call(http.MethodPost, "/api/posts", map[string]any{"brandId": brand.ID, "text": "Launch day", "media": []string{grant.Media.ID},
		"targets": []any{map[string]any{"network": "network_1"}}, "publishAt": time.Now().Add(2 * time.Second).Format(time.RFC3339Nano)},
		http.StatusCreated, &scheduled)
	waitStatus(scheduled.ID, "published")
	if posts := x.Posts(); len(posts) != 1 || posts[0].Text != "Launch day" || len(posts[0].Media) != 1 {
		t.Fatalf("the network received %+v", posts)
	}

	// Content operations, with a machine key for the brand.
	machine := []string{"X-Brand-ID", brand.ID}
	var sugg struct {
		Suggestions []post `json:"suggestions"`
	}
	call(http.MethodPost, "/api/content-strategy/suggestions/generate-from-trends", map[string]any{"items": []any{map[string]any{
		"title": "Launch recap", "text": "What shipped this week"}}, "platforms": []string{"network_1", "network_6"}}, http.StatusCreated, &sugg, machine...)
	if len(sugg.Suggestions) != 2 {
		t.Fatalf("suggestions: %+v", sugg)
	}
	call(http.MethodPost, "/api/content-ops/items/"+sugg.Suggestions[0].ID+"/approve", nil, http.StatusOK, nil, machine...)
	call(http.MethodPost, "/api/content-ops/items/"+sugg.Suggestions[1].ID+"/reject", map[string]any{"reason": "not for this network"}, http.StatusOK, nil, machine...)

	// The approved suggestion fails once, is rescheduled, and goes out.
	x.On(socialfake.OpPost).Next(1, fakekit.Fault{Kind: fakekit.ServerError})
	call(http.MethodPut, "/api/posts/"+sugg.Suggestions[0].ID, map[string]any{"publishAt": time.Now().Format(time.RFC3339Nano)}, http.StatusOK, nil)
	failed := waitStatus(sugg.Suggestions[0].ID, "failed")
	if failed.Targets[0].Failure == nil || failed.Targets[0].Failure.Code != "provider_fault" {
		t.Fatalf("failed post: %+v", failed)
	}
	var rescheduled post
	call(http.MethodPost, "/api/content-ops/items/"+sugg.Suggestions[0].ID+"/reschedule",
		map[string]any{"publishAt": time.Now().Add(time.Second).Format(time.RFC3339Nano)}, http.StatusOK, &rescheduled, machine...)
	if rescheduled.Status != "scheduled" || rescheduled.Targets[0].Failure != nil {
		t.Fatalf("rescheduled: %+v", rescheduled)
	}
	waitStatus(sugg.Suggestions[0].ID, "published")

	// Another fails and is retried.
	x.On(socialfake.OpPost).Next(1, fakekit.Fault{Kind: fakekit.RateLimit})
	var retried post
	call(http.MethodPost, "/api/posts", map[string]any{"brandId": brand.ID, "text": "Retry me", "targets": []any{map[string]any{"network": "network_1"}},
		"publishAt": time.Now().Format(time.RFC3339Nano)}, http.StatusCreated, &retried)
	waitStatus(retried.ID, "failed")
	call(http.MethodPost, "/api/content-ops/items/"+retried.ID+"/retry", nil, http.StatusOK, nil, machine...)
	waitStatus(retried.ID, "published")

	var queue struct {
		Items []struct {
			ContentID string `json:"content_id"`
		} `json:"items"`
	}
	call(http.MethodGet, "/api/content-ops/queue", nil, http.StatusOK, &queue, machine...)
	var daily struct {
		Days []struct {
			Published int `json:"published"`
			Failed    int `json:"failed"`
			Approved  int `json:"approved"`
			Rejected  int `json:"rejected"`
		} `json:"days"`
	}
	call(http.MethodGet, "/api/content-ops/daily", nil, http.StatusOK, &daily, machine...)
	if len(daily.Days) == 0 || daily.Days[0].Published != 3 || daily.Days[0].Failed != 2 || daily.Days[0].Approved != 1 || daily.Days[0].Rejected != 1 {
		t.Fatalf("daily: %+v", daily.Days)
	}
	if n := x.PostCount(); n != 3 {
		t.Fatalf("the network received %d posts, want 3", n)
	}
}
