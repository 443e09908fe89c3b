package dashboard_test

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	identitycmd "github.com/platform/backend/commands/identity"
	dashboardhttp "github.com/platform/backend/http/dashboard"
	"github.com/platform/backend/internal/apptest"
	"github.com/platform/backend/internal/testenv"
)

// visitor is a person's browser as the pages see it: a cookie jar, no
// script, redirects not followed (each one is asserted).
type visitor struct {
	t      *testing.T
	base   string
	client *http.Client
	jar    *cookiejar.Jar
}

func newVisitor(t *testing.T, base string) *visitor {
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &visitor{t: t, base: base, jar: jar, client: &http.Client{Jar: jar,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// page is a page's answer.
type page struct {
	Status   int
	Header   http.Header
	Body     string
	Location string
}

var csrfField = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// csrf is the token the page's forms carry.
func (p page) csrf(t *testing.T) string {
	t.Helper()
	m := csrfField.FindStringSubmatch(p.Body)
	if m == nil {
		t.Fatalf("the page has no CSRF field:\n%s", p.Body)
	}
	return m[1]
}

func (v *visitor) do(req *http.Request) page {
	v.t.Helper()
	res, err := v.client.Do(req)
	if err != nil {
		v.t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	return page{Status: res.StatusCode, Header: res.Header, Body: string(raw), Location: res.Header.Get("Location")}
}

func (v *visitor) get(path string) page {
	v.t.Helper()
	req, _ := http.NewRequest(http.MethodGet, v.base+path, nil)
	return v.do(req)
}

// post sends a form as a browser does from this origin (headers: extra
// request headers, name then value).
func (v *visitor) post(path string, form url.Values, headers ...string) page {
	v.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, v.base+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", v.base)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	return v.do(req)
}

func (v *visitor) cookie(name string) string {
	u, _ := url.Parse(v.base)
	for _, c := range v.jar.Cookies(u) {
		if c.Name == name {
			return c.Value
		}
	}
	return ""
}

// strict asserts the house headers of a page: the strict policy (no
// script, the one stylesheet by its hash), no caching, no framing, and no
// script in the document.
func strict(t *testing.T, what string, p page) {
	t.Helper()
	if got := p.Header.Get("Content-Security-Policy"); got != dashboardhttp.PageCSP {
		t.Errorf("%s: Content-Security-Policy %q, want %q", what, got, dashboardhttp.PageCSP)
	}
	if !strings.Contains(dashboardhttp.PageCSP, "default-src 'none'") || strings.Contains(dashboardhttp.PageCSP, "script-src") {
		t.Errorf("the policy allows more than it should: %s", dashboardhttp.PageCSP)
	}
	if p.Header.Get("X-Frame-Options") != "DENY" || p.Header.Get("Cache-Control") != "private, no-store" ||
		!strings.HasPrefix(p.Header.Get("Content-Type"), "text/html") {
		t.Errorf("%s: headers %v", what, p.Header)
	}
	if strings.Contains(strings.ToLower(p.Body), "<script") {
		t.Errorf("%s: the page carries a script", what)
	}
}

// TestSignInAndOnboarding walks the pages as a person: the sign-in page
// (its CSRF token a cookie and a hidden field), a refused password, a
// sign-in with the right one (identity's session in the page cookie, its
// refresh token in identity's cookie, sent on to a local next only);
// onboarding creates an organization through identity (the person its
// owner), signing in to it, a dashboard key there (shown once, holding the
// dashboard's scopes) and the first apps installed, which the dashboard
// then shows; signing out ends identity's session. Every page answers
// under the strict policy.
func TestSignInAndOnboarding(t *testing.T) {
	h := apptest.Start(t, apptest.Options{})
	owner := signUp(t, h)
	v := newVisitor(t, h.URLs["dashboard"])

	if p := v.get("/dashboard"); p.Status != http.StatusSeeOther || p.Location != "/login?next=%2Fdashboard" {
		t.Fatalf("signed out, /dashboard answered %d to %q", p.Status, p.Location)
	}
	login := v.get("/login?next=/onboarding")
	apptestPage(t, "login", login, http.StatusOK)
	token := login.csrf(t)
	if v.cookie(dashboardhttp.CookieCSRF) != token {
		t.Fatalf("the CSRF field %q is not the cookie's %q", token, v.cookie(dashboardhttp.CookieCSRF))
	}
	form := url.Values{"csrf": {token}, "mode": {"password"}, "next": {"/onboarding"}, "email": {owner.Email}, "password": {"not the password"}}
	wrong := v.post("/login", form)
	apptestPage(t, "a wrong password", wrong, http.StatusUnauthorized)
	if !strings.Contains(wrong.Body, "Invalid email or password") || v.cookie(dashboardhttp.CookieSession) != "" {
		t.Fatalf("a wrong password: %s", wrong.Body)
	}
	form.Set("password", owner.Password)
	in := v.post("/login", form)
	if in.Status != http.StatusSeeOther || in.Location != "/onboarding" {
		t.Fatalf("sign-in answered %d to %q: %s", in.Status, in.Location, in.Body)
	}
	session := v.cookie(dashboardhttp.CookieSession)
	if !strings.HasPrefix(session, identitycmd.AccessTokenPrefix) || !strings.HasPrefix(v.cookie(dashboardhttp.CookieRefresh), identitycmd.RefreshTokenPrefix) {
		t.Fatalf("after sign-in: session %q, refresh cookie %q", session, v.cookie(dashboardhttp.CookieRefresh))
	}

	// An access token that no longer validates (expired) is rotated through
	// identity's refresh cookie: the page answers, with a new session.
	u, _ := url.Parse(v.base)
	v.jar.SetCookies(u, []*http.Cookie{{Name: dashboardhttp.CookieSession, Value: identitycmd.AccessTokenPrefix + "expired.x", Path: "/"}})
	apptestPage(t, "the dashboard after the access token expired", v.get("/dashboard"), http.StatusOK)
	if got := v.cookie(dashboardhttp.CookieSession); got == session || !strings.HasPrefix(got, identitycmd.AccessTokenPrefix) {
		t.Fatalf("the session was not refreshed: %q", got)
	}
	session = v.cookie(dashboardhttp.CookieSession)

	// Onboarding: a new organization, through identity, the person its owner.
	onboarding := v.get("/onboarding")
	apptestPage(t, "onboarding", onboarding, http.StatusOK)
	if !strings.Contains(onboarding.Body, owner.OrgID) {
		t.Fatalf("onboarding does not name the organization:\n%s", onboarding.Body)
	}
	slug := strings.ReplaceAll(testenv.UniqueName("first"), "_", "-")
	created := v.post("/onboarding/organization", url.Values{"csrf": {token}, "name": {"First of mine"}, "slug": {slug}})
	apptestPage(t, "organization created", created, http.StatusOK)
	m := regexp.MustCompile(`Organization <code>([0-9a-f-]{36})</code> created`).FindStringSubmatch(created.Body)
	if m == nil {
		t.Fatalf("no new organization on the page:\n%s", created.Body)
	}
	org := m[1]
	if n := h.Count(t, `SELECT count(*) FROM es_events WHERE stream_id=$1 AND event_type='identity.organization.created'`, org); n != 1 {
		t.Fatalf("%d organization.created events for %s", n, org)
	}
	// The same slug again: identity's refusal, shown on the page.
	again := v.post("/onboarding/organization", url.Values{"csrf": {token}, "name": {"Twice"}, "slug": {slug}})
	apptestPage(t, "slug taken", again, http.StatusConflict)
	if !strings.Contains(again.Body, "could not be created") {
		t.Fatalf("a taken slug:\n%s", again.Body)
	}

	// Sign in to it (the page's link), then a key and the first apps there.
	link := "/login?organizationId=" + org + "&next=/onboarding"
	if !strings.Contains(created.Body, strings.ReplaceAll(link, "&", "&amp;")) {
		t.Fatalf("no link to sign in to the new organization:\n%s", created.Body)
	}
	login = v.get(link)
	form = url.Values{"csrf": {login.csrf(t)}, "mode": {"password"}, "next": {"/onboarding"}, "email": {owner.Email},
		"password": {owner.Password}, "organizationId": {org}}
	if in := v.post("/login", form); in.Status != http.StatusSeeOther || in.Location != "/onboarding" {
		t.Fatalf("sign-in to the new organization answered %d: %s", in.Status, in.Body)
	}
	if v.cookie(dashboardhttp.CookieSession) == session {
		t.Fatal("the session did not change with the organization")
	}
	session = v.cookie(dashboardhttp.CookieSession)
	onboarding = v.get("/onboarding")
	if !strings.Contains(onboarding.Body, org) {
		t.Fatalf("onboarding after signing in to the new organization:\n%s", onboarding.Body)
	}
	keyPage := v.post("/onboarding/key", url.Values{"csrf": {token}, "name": {"my dashboard"}})
	apptestPage(t, "key created", keyPage, http.StatusOK)
	km := regexp.MustCompile(`<code class="secret" id="new-key">([^<]+)</code>`).FindStringSubmatch(keyPage.Body)
	if km == nil {
		t.Fatalf("no key on the page:\n%s", keyPage.Body)
	}
	key := km[1]
	if again := v.get("/onboarding"); strings.Contains(again.Body, key) {
		t.Fatal("the key is shown twice")
	}
	apps := v.post("/onboarding/apps", url.Values{"csrf": {token}, "app": {"status", "gateway"}})
	if apps.Status != http.StatusSeeOther || !strings.HasPrefix(apps.Location, "/dashboard?done=") {
		t.Fatalf("installing apps answered %d to %q: %s", apps.Status, apps.Location, apps.Body)
	}
	// The key holds the dashboard's scopes (it reads the catalog of the new
	// organization: the apps just installed), nothing more (no key of its own).
	res := h.Do(t, "dashboard", http.MethodGet, "/api/apps", key, nil)
	apptest.Must(t, res, http.StatusOK, "the catalog with the onboarding key")
	var c struct {
		Apps []struct {
			AppID     string `json:"appId"`
			Installed bool   `json:"installed"`
		} `json:"apps"`
	}
	res.JSON(t, &c)
	var installed []string
	for _, a := range c.Apps {
		if a.Installed {
			installed = append(installed, a.AppID)
		}
	}
	if slices.Sort(installed); strings.Join(installed, ",") != "gateway,status" {
		t.Fatalf("installed in the new organization: %v", installed)
	}
	apptest.Must(t, h.Do(t, "dashboard", http.MethodPost, "/api/widgets", key, map[string]any{}), http.StatusOK, "widgets with the key")
	apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodPost, "/api/api-keys", key, map[string]any{"name": "more", "service": "dashboard",
		"scopes": []string{"apps:read"}}), http.StatusForbidden, "permission_denied")
	dash := v.get("/dashboard")
	apptestPage(t, "dashboard", dash, http.StatusOK)
	if !strings.Contains(dash.Body, `id="app-status"`) {
		t.Errorf("the dashboard lacks status:\n%s", dash.Body)
	}
	var b batch
	// The organization signed in first has none of them.
	res = h.Do(t, "dashboard", http.MethodPost, "/api/widgets", owner.Token, map[string]any{})
	apptest.Must(t, res, http.StatusOK, "the first organization's widgets")
	res.JSON(t, &b)
	if len(b.Apps) != 0 {
		t.Fatalf("the first organization shows %v", b.states())
	}

	// Signing out ends identity's session: the access token is refused.
	out := v.post("/logout", url.Values{"csrf": {token}})
	if out.Status != http.StatusSeeOther || out.Location != "/login" || v.cookie(dashboardhttp.CookieSession) != "" {
		t.Fatalf("sign-out answered %d to %q", out.Status, out.Location)
	}
	apptest.ExpectProblem(t, h.Do(t, "dashboard", http.MethodGet, "/api/apps", session, nil), http.StatusUnauthorized, "authentication_required")

	// An API key signs in too; a wrong one is refused; next stays local.
	login = v.get("/login?next=//evil.example/x")
	if strings.Contains(login.Body, "evil.example") {
		t.Fatalf("the sign-in page carries a foreign next:\n%s", login.Body)
	}
	form = url.Values{"csrf": {login.csrf(t)}, "mode": {"key"}, "next": {"//evil.example/x"}, "key": {"pk_not_a_key"}}
	apptestPage(t, "a wrong key", v.post("/login", form), http.StatusUnauthorized)
	form.Set("key", key)
	if in := v.post("/login", form); in.Status != http.StatusSeeOther || in.Location != "/dashboard" || v.cookie(dashboardhttp.CookieSession) != key {
		t.Fatalf("a key's sign-in answered %d to %q", in.Status, in.Location)
	}
	apptestPage(t, "apps with a key", v.get("/apps"), http.StatusOK)
}

// apptestPage asserts a page's status and the strict policy.
func apptestPage(t *testing.T, what string, p page, status int) {
	t.Helper()
	if p.Status != status {
		t.Fatalf("%s: status %d, want %d:\n%s", what, p.Status, status, p.Body)
	}
	strict(t, what, p)
}

// TestFormsRefuseForgery: every form of the pages refuses a post without
// the CSRF token, with another token than the cookie's, or from another
// origin (403, nothing done), and every page, error pages included,
// answers under the strict policy.
func TestFormsRefuseForgery(t *testing.T) {
	h := apptest.Start(t, apptest.Options{})
	owner := signUp(t, h)
	v := newVisitor(t, h.URLs["dashboard"])
	token := v.get("/login").csrf(t)
	u, _ := url.Parse(v.base)
	v.jar.SetCookies(u, []*http.Cookie{{Name: dashboardhttp.CookieSession, Value: owner.Token, Path: "/"}})

	slug := strings.ReplaceAll(testenv.UniqueName("forged"), "_", "-")
	forms := map[string]url.Values{
		"/login":                   {"mode": {"password"}, "email": {owner.Email}, "password": {owner.Password}},
		"/logout":                  {},
		"/apps/status/install":     {},
		"/apps/status/uninstall":   {},
		"/onboarding/organization": {"name": {"Forged"}, "slug": {slug}},
		"/onboarding/key":          {"name": {"forged"}},
		"/onboarding/apps":         {"app": {"status"}},
	}
	forged := []struct {
		what    string
		csrf    string
		headers []string
	}{
		{"no token", "", nil},
		{"another token", strings.Repeat("A", 43), nil},
		{"another origin", token, []string{"Origin", "https://evil.example"}},
		{"an opaque origin", token, []string{"Origin", "null"}},
		{"a cross-site fetch", token, []string{"Origin", "", "Sec-Fetch-Site", "cross-site"}},
	}
	for path, form := range forms {
		for _, f := range forged {
			send := url.Values{}
			for k, vs := range form {
				send[k] = vs
			}
			if f.csrf != "" {
				send.Set("csrf", f.csrf)
			}
			p := v.post(path, send, f.headers...)
			apptestPage(t, path+" with "+f.what, p, http.StatusForbidden)
		}
	}
	// Nothing was done: no install, no organization, no key, still signed in.
	if n := h.Count(t, `SELECT count(*) FROM es_events WHERE stream_id=$1 AND event_type LIKE 'dashboard.%'`, "organization:"+owner.OrgID); n != 0 {
		t.Fatalf("forged forms appended %d dashboard events", n)
	}
	if n := h.Count(t, `SELECT count(*) FROM es_events WHERE event_type='identity.organization.created' AND payload::text LIKE '%' || $1 || '%'`, slug); n != 0 {
		t.Fatalf("a forged form created an organization")
	}
	if n := h.Count(t, `SELECT count(*) FROM es_events WHERE organization_id=$1 AND event_type='identity.api_key.created'`, owner.OrgID); n != 0 {
		t.Fatalf("a forged form created %d keys", n)
	}
	if v.cookie(dashboardhttp.CookieSession) != owner.Token {
		t.Fatal("a forged sign-out signed the person out")
	}
	// The same form with the token and this origin works.
	if p := v.post("/apps/status/install", url.Values{"csrf": {token}}); p.Status != http.StatusSeeOther {
		t.Fatalf("the genuine install answered %d: %s", p.Status, p.Body)
	}
	// Every page, and the answers that are not pages of their own.
	for _, path := range []string{"/dashboard", "/apps", "/actions", "/onboarding", "/login", "/apps?context=platform"} {
		p := v.get(path)
		want := http.StatusOK
		if path == "/apps?context=platform" {
			want = http.StatusUnprocessableEntity
		}
		apptestPage(t, path, p, want)
	}
}

// TestConcurrentPagesRefreshOnce: pages opened at once after the access
// token expired (tabs restored together) each carry the same refresh
// cookie; identity ends a session whose retired refresh token is presented
// again, so the dashboard refreshes once and every page gets the new
// session (a tab a moment later too): none is sent to sign in, and the
// session lives on.
func TestConcurrentPagesRefreshOnce(t *testing.T) {
	h := apptest.Start(t, apptest.Options{})
	owner := signUp(t, h)
	v := newVisitor(t, h.URLs["dashboard"])
	login := v.get("/login")
	form := url.Values{"csrf": {login.csrf(t)}, "mode": {"password"}, "email": {owner.Email}, "password": {owner.Password}}
	if in := v.post("/login", form); in.Status != http.StatusSeeOther {
		t.Fatalf("sign-in answered %d: %s", in.Status, in.Body)
	}
	u, _ := url.Parse(v.base)
	refresh := v.cookie(dashboardhttp.CookieRefresh)
	const tabs = 4
	pages := make([]page, tabs)
	var wg sync.WaitGroup
	for i := range tabs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Each tab sends what the browser held: the expired access
			// token and the same refresh token.
			req, _ := http.NewRequest(http.MethodGet, v.base+"/apps", nil)
			req.AddCookie(&http.Cookie{Name: dashboardhttp.CookieSession, Value: identitycmd.AccessTokenPrefix + "expired.x"})
			req.AddCookie(&http.Cookie{Name: dashboardhttp.CookieRefresh, Value: refresh})
			res, err := (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			defer res.Body.Close()
			raw, _ := io.ReadAll(res.Body)
			pages[i] = page{Status: res.StatusCode, Header: res.Header, Body: string(raw), Location: res.Header.Get("Location")}
			v.jar.SetCookies(u, res.Cookies())
		}()
	}
	wg.Wait()
	// A tab whose request comes a moment after the rotation (the browser
	// still held the old cookies) gets the same session.
	late := page{}
	{
		req, _ := http.NewRequest(http.MethodGet, v.base+"/apps", nil)
		req.AddCookie(&http.Cookie{Name: dashboardhttp.CookieSession, Value: identitycmd.AccessTokenPrefix + "expired.x"})
		req.AddCookie(&http.Cookie{Name: dashboardhttp.CookieRefresh, Value: refresh})
		late = (&visitor{t: t, client: &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}).do(req)
	}
	pages = append(pages, late)
	sessions := map[string]bool{}
	for i, p := range pages {
		if p.Status != http.StatusOK {
			t.Fatalf("tab %d answered %d to %q", i, p.Status, p.Location)
		}
		for _, c := range (&http.Response{Header: p.Header}).Cookies() {
			if c.Name == dashboardhttp.CookieSession {
				sessions[c.Value] = true
			}
		}
	}
	if len(sessions) != 1 {
		t.Fatalf("the tabs got %d sessions, want the one refreshed", len(sessions))
	}
	for s := range sessions {
		apptest.Must(t, h.Do(t, "dashboard", http.MethodGet, "/api/apps", s, nil), http.StatusOK, "the refreshed session")
	}
	if p := v.get("/dashboard"); p.Status != http.StatusOK {
		t.Fatalf("after the tabs, /dashboard answered %d to %q", p.Status, p.Location)
	}
}
