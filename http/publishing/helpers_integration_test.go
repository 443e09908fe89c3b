package publishing_test

import (
	"net/http"
	"testing"
	"time"

	domain "github.com/platform/backend/domain/publishing"
	"github.com/platform/backend/internal/apptest"
	pubmod "github.com/platform/backend/internal/modules/publishing"
	"github.com/platform/backend/providers/fakekit"
	"github.com/platform/backend/providers/social/networks/fakes"
)

// start runs a platform whose publishing talks to local fakes; fast
// reconciliation so crash and timeout cases settle within a test.
func start(t *testing.T) *apptest.Harness {
	t.Helper()
	return apptest.Start(t, apptest.Options{})
}

func fake(t *testing.T, h *apptest.Harness, network string) fakes.Fake {
	t.Helper()
	f, ok := apptest.Provided[pubmod.Sandbox](h)[network]
	if !ok {
		t.Fatalf("no sandbox fake for %s", network)
	}
	return f
}

func newBrand(t *testing.T, h *apptest.Harness, token, name string) domain.Brand {
	t.Helper()
	res := h.Do(t, "publishing", http.MethodPost, "/api/brands", token, map[string]any{"name": name})
	apptest.Must(t, res, http.StatusCreated, "create brand")
	var b domain.Brand
	res.JSON(t, &b)
	return b
}

// connect runs the OAuth flow against the network's fake: connect, follow
// the authorization URL (the fake approves and redirects to our callback).
func connect(t *testing.T, h *apptest.Harness, token, brandID, network string) {
	t.Helper()
	res := h.Do(t, "publishing", http.MethodPost, "/api/integrations/"+network+"/connect", token, map[string]any{"brandId": brandID})
	apptest.Must(t, res, http.StatusOK, "connect")
	var started struct {
		AuthorizationURL string `json:"authorization_url"`
	}
	res.JSON(t, &started)
	resp, err := h.Client.Get(started.AuthorizationURL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("callback answered %d", resp.StatusCode)
	}
}

func createPost(t *testing.T, h *apptest.Harness, token string, body map[string]any) domain.Post {
	t.Helper()
	res := h.Do(t, "publishing", http.MethodPost, "/api/posts", token, body)
	apptest.Must(t, res, http.StatusCreated, "create post")
	var p domain.Post
	res.JSON(t, &p)
	return p
}

// waitPost polls the write side until the post satisfies cond.
func waitPost(t *testing.T, h *apptest.Harness, postID string, timeout time.Duration, what string, cond func(domain.Post) bool) domain.Post {
	t.Helper()
	var last domain.Post
	apptest.Eventually(t, timeout, what, func() bool {
		p, err := apptest.Provided[*pubcmdHandlers](h).PostAny(t.Context(), postID)
		if err != nil {
			t.Fatal(err)
		}
		last = *p
		return cond(last)
	})
	return last
}

func allTargets(state string) func(domain.Post) bool {
	return func(p domain.Post) bool {
		for _, t := range p.Targets {
			if t.State != state {
				return false
			}
		}
		return len(p.Targets) > 0
	}
}

func faultServerError() fakekit.Fault { return fakekit.Fault{Kind: fakekit.ServerError} }

type domainPost = domain.Post
