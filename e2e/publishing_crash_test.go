package e2e

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/platform/backend/internal/app"
	"github.com/platform/backend/providers/fakekit"
	"github.com/platform/backend/providers/social/socialfake"
)

// TestPublishKillNineBetweenAcceptanceAndCommit: the network accepts a
// post and platformd is killed with SIGKILL before it can record that; the
// restarted platformd reconciles the attempt by reading the network and
// records the post published. The network received it exactly once, and
// the other posts due with it once each too.
func TestPublishKillNineBetweenAcceptanceAndCommit(t *testing.T) {
	c := startPublishing(t, "PUBLISHING_SEND_TIMEOUT=5s", "PUBLISHING_CLAIM_LEASE=6s", "PUBLISHING_RECONCILE_INTERVAL=300ms")
	s, srv, x, call, api := c.s, c.srv, c.x, c.call, c.srv.URL("publishing")
	brand := struct{ ID string }{c.brandID}

	// The first post the network sees is stored, and its answer never
	// comes: platformd is killed while it waits.
	x.On(socialfake.OpPost).Next(1, fakekit.Fault{Kind: fakekit.AcceptThenTimeout})
	at := time.Now().Add(2 * time.Second).UTC()
	const n = 5
	ids := make([]string, n)
	for i := range n {
		var p struct {
			ID string `json:"id"`
		}
		call(http.MethodPost, "/api/posts", map[string]any{"brandId": brand.ID, "text": "Due together #" + string(rune('A'+i)),
			"targets": []any{map[string]any{"network": "network_1"}}, "publishAt": at.Format(time.RFC3339Nano)}, http.StatusCreated, &p)
		ids[i] = p.ID
	}
	deadline := time.Now().Add(20 * time.Second)
	for x.PostCount() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the network never received the post")
		}
		time.Sleep(2 * time.Millisecond)
	}
	srv.Kill9()
	accepted := x.PostCount()
	t.Logf("killed platformd with %d post(s) on the network", accepted)

	srv.Start()
	for _, id := range ids {
		deadline := time.Now().Add(60 * time.Second)
		for {
			var p struct {
				Status  string `json:"status"`
				Targets []struct {
					State string `json:"state"`
				} `json:"targets"`
			}
			res := do(t, Req{Method: http.MethodGet, URL: api + "/api/posts/" + id, Key: s.APIKey})
			if res.Status == http.StatusOK && json.Unmarshal(res.Body, &p) == nil && p.Status == "published" {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("post %s not published after the restart: %s", id, res)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	time.Sleep(time.Second) // a second send would show now
	posts := x.Posts()
	if len(posts) != n {
		t.Fatalf("the network received %d posts, want %d (one per post)", len(posts), n)
	}
	seen := map[string]bool{}
	for _, p := range posts {
		if seen[p.Text] {
			t.Fatalf("%q was posted twice", p.Text)
		}
		seen[p.Text] = true
	}
}

// TestPublishingWorkerKillNine: the API runs without job workers; the
// posts' items are published by a worker process of their own
// (PLATFORM_SERVICES=publishing-jobs, liveness GET /health). It is killed
// with SIGKILL while the network holds a post it accepted and never
// answered; a second worker process takes over: the dead worker's attempt
// is reconciled by its probe (the network has it: published, not sent
// again), the other posts due with it go out, each exactly once.
func TestPublishingWorkerKillNine(t *testing.T) {
	c := startPublishingWith(t, app.Services(), "PUBLISHING_SEND_TIMEOUT=5s", "PUBLISHING_CLAIM_LEASE=6s")
	s, x, api := c.s, c.x, c.srv.URL("publishing")
	if len(c.srv.Workers) != 0 {
		t.Fatalf("the API process runs workers %v", c.srv.Workers)
	}
	worker := func(name string) *Server {
		return s.StartServer(ServerOptions{Name: name, Services: []string{"publishing-jobs"}, Env: c.env})
	}
	w1 := worker("worker-1")
	health := do(t, Req{Method: http.MethodGet, URL: w1.URL("publishing-jobs") + "/health"})
	var h struct{ Status, Service string }
	if health.Status != http.StatusOK || json.Unmarshal(health.Body, &h) != nil || h.Status != "ok" || h.Service != "publishing-jobs" {
		t.Fatalf("worker health: %s", health)
	}

	x.On(socialfake.OpPost).Next(1, fakekit.Fault{Kind: fakekit.AcceptThenTimeout})
	at := time.Now().Add(2 * time.Second).UTC()
	const n = 5
	ids := make([]string, n)
	for i := range n {
		var p struct {
			ID string `json:"id"`
		}
		c.call(http.MethodPost, "/api/posts", map[string]any{"brandId": c.brandID, "text": "Worker due #" + string(rune('A'+i)),
			"targets": []any{map[string]any{"network": "network_1"}}, "publishAt": at.Format(time.RFC3339Nano)}, http.StatusCreated, &p)
		ids[i] = p.ID
	}
	deadline := time.Now().Add(30 * time.Second)
	for len(x.RequestsOf(socialfake.OpPost)) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the worker never sent a post")
		}
		time.Sleep(2 * time.Millisecond)
	}
	w1.Kill9()
	t.Logf("killed the worker with %d post(s) on the network", x.PostCount())
	worker("worker-2")
	for _, id := range ids {
		deadline := time.Now().Add(60 * time.Second)
		for {
			var p struct {
				Status string `json:"status"`
			}
			res := do(t, Req{Method: http.MethodGet, URL: api + "/api/posts/" + id, Key: s.APIKey})
			if res.Status == http.StatusOK && json.Unmarshal(res.Body, &p) == nil && p.Status == "published" {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("post %s not published after the worker's restart: %s", id, res)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	time.Sleep(time.Second) // a second send would show now
	posts := x.Posts()
	if len(posts) != n {
		t.Fatalf("the network received %d posts, want %d (one per post)", len(posts), n)
	}
	seen := map[string]bool{}
	for _, p := range posts {
		if seen[p.Text] {
			t.Fatalf("%q was posted twice", p.Text)
		}
		seen[p.Text] = true
	}
}
