package dashboard_test

import (
	"bytes"
	"context"
	"html"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	dashboardhttp "github.com/platform/backend/http/dashboard"
	"github.com/platform/backend/internal/apptest"
	"github.com/platform/backend/internal/testenv"
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
	browser := chromium(t)
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
}

// chromium finds the browser: CHROMIUM, else chromium on PATH.
func chromium(t *testing.T) string {
	t.Helper()
	names := []string{"chromium", "chromium-browser"}
	if v := os.Getenv("CHROMIUM"); v != "" {
		names = []string{v}
	}
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	if testenv.InfraRequired() {
		t.Fatal("no headless browser: run scripts/chromium.sh (required: PLATFORM_REQUIRE_INFRA=1 or CI is set)")
	}
	t.Skip("no headless browser: run scripts/chromium.sh")
	return ""
}

type seen struct{ dom, text string }

var (
	tags   = regexp.MustCompile(`(?s)<style.*?</style>|<[^>]*>`)
	spaces = regexp.MustCompile(`[ \t\r\f]+`)
	blank  = regexp.MustCompile(`\n\s*\n+`)
)

// browse opens url in headless Chromium for its DOM and a screenshot; a
// Content-Security-Policy violation fails the test.
func browse(t *testing.T, browser, url, name string) seen {
	t.Helper()
	dir := t.TempDir()
	run := func(args ...string) string {
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		base := []string{"--headless", "--disable-gpu", "--no-sandbox", "--disable-dev-shm-usage", "--no-first-run",
			"--no-default-browser-check", "--disable-extensions", "--disable-background-networking", "--disable-component-update",
			"--disable-sync", "--hide-scrollbars", "--enable-logging=stderr", "--v=0",
			"--user-data-dir=" + filepath.Join(dir, "profile"), "--window-size=1200,1000"}
		cmd := exec.CommandContext(ctx, browser, append(base, args...)...)
		cmd.Env = append(os.Environ(), "HOME="+dir)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("%s %s: %v\n%s", browser, strings.Join(args, " "), err, stderr.String())
		}
		if strings.Contains(stderr.String(), "Content Security Policy") {
			t.Errorf("Chromium reports a Content-Security-Policy violation on %s:\n%s", url, stderr.String())
		}
		return stdout.String()
	}
	dom := run("--dump-dom", url)
	if !strings.Contains(dom, "</html>") {
		t.Fatalf("chromium --dump-dom %s printed no document: %q", url, dom)
	}
	shot := filepath.Join(dir, "dashboard-"+name+".png")
	run("--screenshot="+shot, url)
	if st, err := os.Stat(shot); err != nil || st.Size() < 1000 {
		t.Fatalf("no screenshot of %s: %v", url, err)
	}
	if keep := os.Getenv("DASHBOARD_SCREENSHOTS"); keep != "" {
		raw, _ := os.ReadFile(shot)
		if err := os.WriteFile(filepath.Join(keep, filepath.Base(shot)), raw, 0o644); err != nil {
			t.Error(err)
		}
	}
	text := html.UnescapeString(tags.ReplaceAllString(dom, ""))
	return seen{dom: dom, text: blank.ReplaceAllString(spaces.ReplaceAllString(text, " "), "\n")}
}
