package dashboard_test

import (
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	dashboardhttp "github.com/platform/backend/http/dashboard"
	"github.com/platform/backend/internal/apptest"
	"github.com/platform/backend/internal/browsertest"
	view "github.com/platform/backend/projections/dashboard"
)

// TestPagesInABrowser opens the dashboard's pages in headless Chromium as a
// signed-in person: the widgets with one app down (its last figures, marked
// stale) and one that never answers (the catalog's overview, marked
// unavailable), the catalog with its install buttons, the action queue
// (a disconnected connection, linking to where it is resolved),
// onboarding, and the sign-in page; under the strict policy (no script,
// the stylesheet by its hash) Chromium reports no violation.
// DASHBOARD_SCREENSHOTS=<dir> keeps the screenshots.
func TestPagesInABrowser(t *testing.T) {
	browser := browsertest.Find(t)
	h := apptest.Start(t, apptest.Options{})
	l := apptest.Provided[*view.Launcher](h)
	clock := &testClock{now: time.Date(2026, 5, 4, 9, 0, 0, 0, time.UTC)}
	l.SetClock(clock.Now)
	var failing atomic.Bool
	slowAndFailing(l, &failing)
	owner := signUp(t, h, "gateway", "publishing", "design", "agent")
	for _, app := range []string{"status", "gateway", "publishing", "design", "agent"} {
		install(t, h, owner.Token, app, "organization", http.StatusOK)
	}
	// A disconnected connection: the action queue has an item to show.
	res := h.Do(t, "gateway", http.MethodPost, "/api/connections", owner.Token, map[string]any{"provider": "payments_provider_a", "name": "shop",
		"token_expires_at": time.Now().Add(30 * 24 * time.Hour).UTC().Format(time.RFC3339), "credentials": map[string]any{"secret_key": "sk_test_page"}})
	apptest.Must(t, res, http.StatusCreated, "connection")
	var conn struct {
		ConnectionID string `json:"connection_id"`
	}
	res.JSON(t, &conn)
	apptest.Must(t, h.Do(t, "gateway", http.MethodPost, "/api/connections/"+conn.ConnectionID+"/disconnect", owner.Token, map[string]any{}),
		http.StatusOK, "disconnect")
	apptest.Eventually(t, 15*time.Second, "the queue's item", func() bool {
		res := h.Do(t, "dashboard", http.MethodGet, "/api/action-items", owner.Token, nil)
		return res.Status == http.StatusOK && strings.Contains(string(res.Body), conn.ConnectionID)
	})
	// The agent answers once, then fails: a minute later its payload is stale.
	res = h.Do(t, "dashboard", http.MethodPost, "/api/widgets", owner.Token, map[string]any{})
	apptest.Must(t, res, http.StatusOK, "widgets")
	failing.Store(true)
	clock.Set(clock.Now().Add(time.Minute))

	// A person's browser carries the session cookie; headless Chromium
	// takes none on its command line, so a loopback proxy adds it.
	target, _ := url.Parse(h.URLs["dashboard"])
	proxy := httputil.NewSingleHostReverseProxy(target)
	signedIn := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Header.Set("Cookie", dashboardhttp.CookieSession+"="+owner.Token)
		proxy.ServeHTTP(w, r)
	}))
	defer signedIn.Close()

	page := browse(t, browser, signedIn.URL+"/dashboard", "dashboard-one-app-down")
	for _, want := range []string{`id="app-agent" data-state="stale"`, `id="app-design" data-state="fallback"`,
		`id="app-status" data-state="fresh"`, `id="app-gateway"`, `id="app-publishing"`} {
		if !strings.Contains(page.dom, want) {
			t.Errorf("the dashboard lacks %s:\n%s", want, page.text)
		}
	}
	for _, want := range []string{"2 of 5 apps could not be reached", "stale", "unavailable", "Open Design", "1 min ago"} {
		if !strings.Contains(page.text, want) {
			t.Errorf("the dashboard does not say %q:\n%s", want, page.text)
		}
	}
	apps := browse(t, browser, signedIn.URL+"/apps", "apps")
	if !strings.Contains(apps.dom, `action="/apps/contacts/install"`) || !strings.Contains(apps.dom, `action="/apps/status/uninstall"`) {
		t.Errorf("the catalog's buttons:\n%s", apps.text)
	}
	if actions := browse(t, browser, signedIn.URL+"/actions", "actions"); !strings.Contains(actions.text, "Actions") ||
		!strings.Contains(actions.dom, "/gateway/connections/"+conn.ConnectionID+`">Resolve</a>`) || !strings.Contains(actions.text, "critical") {
		t.Errorf("actions:\n%s", actions.text)
	}
	if onboarding := browse(t, browser, signedIn.URL+"/onboarding", "onboarding"); !strings.Contains(onboarding.text, owner.OrgID) {
		t.Errorf("onboarding:\n%s", onboarding.text)
	}
	if login := browse(t, browser, h.URLs["dashboard"]+"/login", "login"); !strings.Contains(login.dom, `id="key-form"`) {
		t.Errorf("login:\n%s", login.text)
	}

	// A person signs in through the form: the browser posts it (its Origin
	// null under the page's no-referrer policy, Sec-Fetch-Site
	// same-origin) with the CSRF cookie and field, and lands where it was
	// going with the session cookie.
	b := browsertest.Launch(t, browser, browsertest.Options{Keep: os.Getenv("DASHBOARD_SCREENSHOTS")})
	b.Navigate(h.URLs["dashboard"] + "/actions")
	b.Submit(`document.querySelector("#password-form input[name=email]").value = ` + strconv.Quote(owner.Email) + `;
		document.querySelector("#password-form input[name=password]").value = ` + strconv.Quote(owner.Password) + `;
		document.getElementById("password-form").requestSubmit()`)
	var where string
	b.Eval("location.pathname", &where)
	if p := b.Page(); where != "/actions" || !strings.Contains(p.Text, "Sign out") {
		t.Errorf("after signing in the browser is at %s:\n%s", where, p.Text)
	}
	b.Screenshot("dashboard-signed-in")

	// A link from another site (an email's, a chat's: here a page with no
	// origin of its own) opens the dashboard signed in: the session cookie
	// goes with a top-level navigation from elsewhere (SameSite=Lax). A
	// form posted from elsewhere still fails its CSRF and same-site checks.
	b.Navigate(`data:text/html,<a id="link" href="` + h.URLs["dashboard"] + `/actions">Open the action queue</a>`)
	b.Submit(`document.getElementById("link").click()`)
	b.Eval("location.pathname", &where)
	if p := b.Page(); where != "/actions" || !strings.Contains(p.Text, "Sign out") {
		t.Errorf("a link from another site lands at %s, not signed in:\n%s", where, p.Text)
	}
	b.CheckPolicy()
}

// browse opens a page in headless Chromium for its DOM and a screenshot
// (browsertest.Browse: a CSP violation fails the test);
// DASHBOARD_SCREENSHOTS=<dir> keeps the screenshots.
func browse(t *testing.T, browser, url, name string) seen {
	t.Helper()
	p := browsertest.Browse(t, browser, url, "dashboard-"+name, browsertest.Options{Keep: os.Getenv("DASHBOARD_SCREENSHOTS")})
	return seen{dom: p.DOM, text: p.Text}
}

type seen struct{ dom, text string }
