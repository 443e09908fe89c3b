package publishing_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	identitycmd "github.com/platform/backend/commands/identity"
	domain "github.com/platform/backend/domain/publishing"
	"github.com/platform/backend/internal/app"
	"github.com/platform/backend/internal/apptest"
	"github.com/platform/backend/internal/module"
	pubmod "github.com/platform/backend/internal/modules/publishing"
	"github.com/platform/backend/internal/testenv"
	"github.com/platform/backend/providers/fakekit"
	"github.com/platform/backend/providers/social/socialfake"
)

// session registers a user (owner of a new organization) and answers its
// access token, email and password.
func session(t *testing.T, h *apptest.Harness) (token, email, password, org string) {
	t.Helper()
	slug := testenv.UniqueName("pub")
	email, password = slug+"@example.com", "correct horse battery "+slug
	tok, _, err := h.Access().SignupToken(context.Background(), identitycmd.Register{Email: email, Password: password, Name: "Person",
		OrganizationName: "Org " + slug, OrganizationSlug: strings.ReplaceAll(slug, "_", "-"), CreateOrganization: true})
	if err != nil {
		t.Fatal(err)
	}
	res := h.Do(t, "identity", http.MethodPost, "/register/confirm", "-", map[string]any{"token": tok})
	apptest.Must(t, res, http.StatusCreated, "register")
	var body struct {
		Organization struct {
			OrganizationID string `json:"organization_id"`
		} `json:"organization"`
		Session struct {
			AccessToken string `json:"access_token"`
		} `json:"session"`
	}
	res.JSON(t, &body)
	return body.Session.AccessToken, email, password, body.Organization.OrganizationID
}

// TestTransferOrganization: a member of two organizations moves a brand
// from one to the other; its id, posts and connections go with it, the
// first organization no longer sees them, and an organization the caller
// does not belong to is refused (400).
func TestTransferOrganization(t *testing.T) {
	h := start(t)
	token, email, password, org1 := session(t, h)
	res := h.Do(t, "identity", http.MethodPost, "/api/organizations", token, map[string]any{"name": "Second", "slug": strings.ReplaceAll(testenv.UniqueName("second"), "_", "-")})
	apptest.Must(t, res, http.StatusCreated, "second organization")
	var second struct {
		OrganizationID string `json:"organization_id"`
	}
	res.JSON(t, &second)
	b := newBrand(t, h, token, "Moving brand")
	p := createPost(t, h, token, map[string]any{"brandId": b.BrandID, "text": "Stays with the brand", "targets": []any{map[string]any{"network": "network_1"}}})

	apptest.ExpectProblem(t, h.Do(t, "publishing", http.MethodPost, "/api/brands/"+b.BrandID+"/transfer-organization", token,
		map[string]any{"organizationId": h.OrgID}), http.StatusBadRequest, "invalid_input")
	res = h.Do(t, "publishing", http.MethodPost, "/api/brands/"+b.BrandID+"/transfer-organization", token,
		map[string]any{"organizationId": second.OrganizationID})
	apptest.Must(t, res, http.StatusOK, "transfer")
	var moved domain.Brand
	res.JSON(t, &moved)
	if moved.BrandID != b.BrandID || moved.OrganizationID != second.OrganizationID {
		t.Fatalf("moved %+v", moved)
	}
	// The first organization no longer has it.
	apptest.ExpectProblem(t, h.Do(t, "publishing", http.MethodGet, "/api/brands/"+b.BrandID+"/publishing-readiness", token, nil),
		http.StatusNotFound, "not_found")
	// In the second organization: the same brand, the same post.
	res = h.Do(t, "identity", http.MethodPost, "/login", "-", map[string]any{"email": email, "password": password, "organizationId": second.OrganizationID})
	apptest.Must(t, res, http.StatusOK, "sign in to the second organization")
	var s struct {
		AccessToken string `json:"access_token"`
	}
	res.JSON(t, &s)
	apptest.Eventually(t, 10*time.Second, "the post in the second organization", func() bool {
		r := h.Do(t, "publishing", http.MethodGet, "/api/posts/"+p.PostID, s.AccessToken, nil)
		return r.Status == http.StatusOK
	})
	apptest.Must(t, h.Do(t, "publishing", http.MethodPut, "/api/posts/"+p.PostID, s.AccessToken, map[string]any{"text": "Edited after the move"}),
		http.StatusOK, "edit in the second organization")
	apptest.ExpectProblem(t, h.Do(t, "publishing", http.MethodGet, "/api/posts/"+p.PostID, token, nil), http.StatusNotFound, "not_found")
	_ = org1
}

// TestIntegrationsNeverDowngradeConnected: accounts connected through the
// sandbox keep their provider reported as sandbox-only when the platform
// restarts without it (setup-required for the others).
func TestIntegrationsNeverDowngradeConnected(t *testing.T) {
	h1 := start(t)
	b := newBrand(t, h1, "", "Acme")
	connect(t, h1, "", b.BrandID, "network_2")
	h1.Stop()
	h2 := apptest.Start(t, apptest.Options{Configure: func(cfg *app.Config) {
		cfg.DatabaseURL, cfg.Kafka = h1.Config.DatabaseURL, h1.Config.Kafka
		module.SectionOf[*pubmod.Config](cfg.Modules).Sandbox = false
	}})
	var list struct {
		Integrations []struct {
			Network     string `json:"network"`
			Status      string `json:"status"`
			Connectable bool   `json:"connectable"`
			Connections []any  `json:"connections"`
		} `json:"integrations"`
	}
	apptest.Eventually(t, 10*time.Second, "integrations", func() bool {
		res := h2.Do(t, "publishing", http.MethodGet, "/api/integrations", h1.APIKey, nil)
		res.JSON(t, &list)
		return len(list.Integrations) == 6 && len(list.Integrations[1].Connections) == 1
	})
	for _, in := range list.Integrations {
		want := "setup-required"
		if in.Network == "network_2" {
			want = "sandbox-only"
		}
		if in.Status != want || in.Connectable {
			t.Errorf("%s: %s (connectable %v), want %s", in.Network, in.Status, in.Connectable, want)
		}
	}
}

// TestTokenRefresh: a token about to expire is refreshed before a send; a
// transient refresh error keeps the connection (and the token, still
// valid) so the post goes out; a revoked grant marks it for reconnecting.
func TestTokenRefresh(t *testing.T) {
	f := newFake(t)
	f.SetTokenPolicy(socialfake.TokenPolicy{AccessTTL: 3 * time.Minute, Refresh: true, RefreshScope: "offline.access", Rotate: true})
	h := apptest.Start(t, withFake(f))
	b := newBrand(t, h, "", "Acme")
	connect(t, h, "", b.BrandID, "network_1")
	brand := func() domain.Brand {
		bb, err := apptest.Provided[*pubcmdHandlers](h).BrandAny(context.Background(), b.BrandID)
		if err != nil {
			t.Fatal(err)
		}
		return *bb
	}
	f.On(socialfake.OpToken).Next(1, fakekit.Fault{Kind: fakekit.ServerError})
	p := createPost(t, h, "", post(b.BrandID, "Despite a flaky refresh", time.Now()))
	waitPost(t, h, p.PostID, 15*time.Second, "published", allTargets(domain.StatePublished))
	c := brand().Connections[0]
	if c.Status != domain.ConnectionActive || c.LastError == nil {
		t.Fatalf("after a transient refresh error: %+v", c)
	}
	// The next send refreshes for real.
	p = createPost(t, h, "", post(b.BrandID, "After a refresh", time.Now()))
	waitPost(t, h, p.PostID, 15*time.Second, "published", allTargets(domain.StatePublished))
	c = brand().Connections[0]
	if c.Status != domain.ConnectionActive || c.RefreshedAt == nil || c.LastError != nil || !c.TokenValidUntil.After(time.Now()) {
		t.Fatalf("after a refresh: %+v", c)
	}
	// A revoked grant: reconnect required, and the target fails reconnect,
	// not retryable (only connecting again renews the grant).
	f.RevokeGrants()
	f.SetTokenPolicy(socialfake.TokenPolicy{AccessTTL: time.Minute, Refresh: true, RefreshScope: "offline.access", Rotate: true})
	p = createPost(t, h, "", post(b.BrandID, "After revocation", time.Now()))
	got := waitPost(t, h, p.PostID, 15*time.Second, "failed", allTargets(domain.StateFailed))
	if f := got.Targets[0].Failure; brand().Connections[0].Status != domain.ConnectionReconnect || f.Code != domain.FailureReconnect || f.Retryable {
		t.Fatalf("after revocation: %+v, %+v", brand().Connections[0], got.Targets[0].Failure)
	}
	if f.PostCount() != 2 {
		t.Fatalf("the network received %d posts, want 2", f.PostCount())
	}
}
