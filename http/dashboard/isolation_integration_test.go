package dashboard_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	dashboardhttp "github.com/platform/backend/http/dashboard"
	"github.com/platform/backend/internal/apptest"
)

// TestInstallsAreTheirContexts: cross-tenant probes of every route with an
// id (/api/apps/{appId}/installation) and of the reads: one organization's
// installs (and a person's own) are not another's, an app outside the
// catalog is 404 alike, and a caller without apps:write cannot install.
func TestInstallsAreTheirContexts(t *testing.T) {
	h := apptest.Start(t, apptest.Options{})
	a, b := signUp(t, h), signUp(t, h)
	install(t, h, a.Token, "status", "organization", http.StatusOK)
	install(t, h, a.Token, "status", "organization", http.StatusOK) // twice: the same answer, nothing appended
	if n := h.Count(t, `SELECT count(*) FROM es_events WHERE stream_id = $1`, "organization:"+a.OrgID); n != 1 {
		t.Errorf("installing twice appended %d events", n)
	}
	installed := func(token, context string) []string {
		res := h.Do(t, "dashboard", http.MethodGet, "/api/apps?context="+context, token, nil)
		apptest.Must(t, res, http.StatusOK, "apps")
		var c struct {
			Apps []struct {
				AppID     string `json:"appId"`
				Installed bool   `json:"installed"`
			} `json:"apps"`
		}
		res.JSON(t, &c)
		var out []string
		for _, app := range c.Apps {
			if app.Installed {
				out = append(out, app.AppID)
			}
		}
		return out
	}
	if got := installed(b.Token, "organization"); len(got) != 0 {
		t.Fatalf("another organization sees %v installed", got)
	}
	if got := installed(a.Token, "personal"); len(got) != 0 {
		t.Fatalf("the personal context sees the organization's %v", got)
	}
	// B uninstalling the app changes nothing of A's.
	apptest.Must(t, h.Do(t, "dashboard", http.MethodDelete, "/api/apps/status/installation", b.Token, nil), http.StatusOK, "b uninstalls")
	if got := installed(a.Token, "organization"); strings.Join(got, ",") != "status" {
		t.Fatalf("a's installs after b's uninstall: %v", got)
	}
	res := h.Do(t, "dashboard", http.MethodPost, "/api/widgets", b.Token, map[string]any{})
	apptest.Must(t, res, http.StatusOK, "b's widgets")
	var bb batch
	res.JSON(t, &bb)
	if len(bb.Apps) != 0 || len(bb.Widgets) != 0 {
		t.Fatalf("b sees a's widgets: %v", bb.states())
	}
	for _, method := range []string{http.MethodPut, http.MethodDelete} {
		apptest.ExpectProblem(t, h.Do(t, "dashboard", method, "/api/apps/nosuchapp/installation", a.Token, map[string]any{}), http.StatusNotFound, "not_found")
		apptest.ExpectProblem(t, h.Do(t, "dashboard", method, "/api/apps/BAD!/installation", a.Token, map[string]any{}), http.StatusUnprocessableEntity, "invalid_input")
	}
	reader := ownerKey(t, h, a, []string{"apps:read", "widgets:read"})
	apptest.ExpectProblem(t, h.Do(t, "dashboard", http.MethodPut, "/api/apps/gateway/installation", reader, map[string]any{}), http.StatusForbidden, "permission_denied")
	apptest.ExpectProblem(t, h.Do(t, "dashboard", http.MethodPost, "/api/widgets", "-", map[string]any{}), http.StatusUnauthorized, "authentication_required")
}

// TestActionQueue: the gateway's disconnected and expiring connections are
// in the organization's queue, most urgent first, each linking to where it
// is resolved, on GET /api/action-items and on the /actions page; another
// organization's queue has none of them.
func TestActionQueue(t *testing.T) {
	h := apptest.Start(t, apptest.Options{})
	a, b := signUp(t, h, "gateway", "publishing"), signUp(t, h, "gateway", "publishing")
	connect := func(name string, expires time.Time) string {
		res := h.Do(t, "gateway", http.MethodPost, "/api/connections", a.Token, map[string]any{"provider": "payments_provider_a", "name": name,
			"token_expires_at": expires.UTC().Format(time.RFC3339), "credentials": map[string]any{"secret_key": "sk_test_queue"}})
		apptest.Must(t, res, http.StatusCreated, "connection")
		var c struct {
			ConnectionID string `json:"connection_id"`
		}
		res.JSON(t, &c)
		return c.ConnectionID
	}
	now := time.Now()
	connect("later", now.Add(30*24*time.Hour))
	soon := connect("soon", now.Add(3*24*time.Hour))
	gone := connect("gone", now.Add(30*24*time.Hour))
	apptest.Must(t, h.Do(t, "gateway", http.MethodPost, "/api/connections/"+gone+"/disconnect", a.Token, map[string]any{}), http.StatusOK, "disconnect")
	type queue struct {
		Items []struct {
			AppID    string `json:"appId"`
			Kind     string `json:"kind"`
			ObjectID string `json:"objectId"`
			Severity string `json:"severity"`
			URL      string `json:"url"`
		} `json:"items"`
		Sources []struct {
			AppID string `json:"appId"`
			State string `json:"state"`
		} `json:"sources"`
	}
	var q queue
	apptest.Eventually(t, 15*time.Second, "the queue", func() bool {
		res := h.Do(t, "dashboard", http.MethodGet, "/api/action-items", a.Token, nil)
		apptest.Must(t, res, http.StatusOK, "queue")
		q = queue{}
		res.JSON(t, &q)
		return len(q.Items) == 2
	})
	if q.Items[0].ObjectID != gone || q.Items[0].Kind != "gateway.connection.disconnected" || q.Items[0].Severity != "critical" ||
		q.Items[1].ObjectID != soon || q.Items[1].Kind != "gateway.connection.expiring" ||
		!strings.HasSuffix(q.Items[0].URL, "/gateway/connections/"+gone) {
		t.Fatalf("queue: %+v", q.Items)
	}
	for _, s := range q.Sources {
		if s.State != "ok" {
			t.Errorf("source %s: %s", s.AppID, s.State)
		}
	}
	// The /actions page shows the same items, each with its link.
	v := newVisitor(t, h.URLs["dashboard"])
	u, _ := url.Parse(v.base)
	v.jar.SetCookies(u, []*http.Cookie{{Name: dashboardhttp.CookieSession, Value: a.Token, Path: "/"}})
	actions := v.get("/actions")
	apptestPage(t, "/actions", actions, http.StatusOK)
	for _, it := range q.Items {
		if !strings.Contains(actions.Body, `<a href="`+it.URL+`">Resolve</a>`) {
			t.Errorf("/actions lacks the link to %s:\n%s", it.URL, actions.Body)
		}
	}
	res := h.Do(t, "dashboard", http.MethodGet, "/api/action-items", b.Token, nil)
	apptest.Must(t, res, http.StatusOK, "b's queue")
	var qb queue
	res.JSON(t, &qb)
	if len(qb.Items) != 0 {
		t.Fatalf("another organization's queue: %+v", qb.Items)
	}
}

// TestSeedKeyScopes: a key for the dashboard, and one for the agent, can be
// minted with every scope seed 002 lists for it (authentication, items 6
// and 7, in the catalog's resource:action syntax), and a scope the seed
// does not list is refused.
func TestSeedKeyScopes(t *testing.T) {
	h := apptest.Start(t, apptest.Options{})
	owner := signUp(t, h, "agent")
	seed := map[string][]string{
		"dashboard": {"api_keys:write", "apps:read", "apps:write", "dashboard:read", "entitlements:read", "launcher:read", "launches:read",
			"notifications:read", "notifications:write", "settings:read", "settings:write", "widgets:read", "workflows:read", "workflows:write"},
		"agent": {"agents:read", "agents:write", "approvals:write", "knowledge:read", "knowledge:write", "reports:read", "runs:invoke",
			"workflows:read", "workflows:write", "workspace:read", "workspace:write"},
	}
	for service, scopes := range seed {
		res := h.Do(t, "identity", http.MethodPost, "/api/api-keys", owner.Token, map[string]any{"name": service, "service": service, "scopes": scopes})
		apptest.Must(t, res, http.StatusCreated, service+" key with the seed's scopes")
		apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodPost, "/api/api-keys", owner.Token, map[string]any{"name": service,
			"service": service, "scopes": []string{"apps:delete"}}), http.StatusUnprocessableEntity, "invalid_input")
	}
}
