package dashboard

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gorilla/mux"

	"github.com/platform/backend/commands"
	dashboardcmd "github.com/platform/backend/commands/dashboard"
	identitycmd "github.com/platform/backend/commands/identity"
	domain "github.com/platform/backend/domain/dashboard"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/principal"
	"github.com/platform/backend/eventstore"
	httpapi "github.com/platform/backend/http"
	view "github.com/platform/backend/projections/dashboard"
)

// The pages for people, rendered on the server with html/template and no
// script at all: /dashboard (the widgets), /apps (the catalog with install
// and uninstall buttons), /actions (the action queue), /login and
// /onboarding. The CSP allows the one stylesheet (by hash) and forms to this
// origin, nothing else. Forms are POSTs carrying a CSRF token (double
// submit: an HttpOnly SameSite=Strict cookie and a hidden field that must
// match), and their Origin, when sent, must be this host.

var (
	//go:embed page.html
	pageTemplate string
	//go:embed page.css
	pageCSS string

	pages = template.Must(template.New("dashboard").Funcs(template.FuncMap{
		"when": func(t *time.Time) string {
			if t == nil {
				return ""
			}
			return t.UTC().Format("2006-01-02 15:04 UTC")
		},
	}).Parse(pageTemplate))

	// PageCSP: the page's own stylesheet (by its hash), forms to this
	// origin, no script, no frame, no fetch.
	PageCSP = func() string {
		sum := sha256.Sum256([]byte(pageCSS))
		return "default-src 'none'; style-src 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'; " +
			"base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
	}()
)

// Cookie names. The refresh cookie is the identity service's own (its
// name and attributes): a sign-out there ends the dashboard's session too.
const (
	CookieSession = "platform_dashboard"
	CookieCSRF    = "platform_dashboard_csrf"
	CookieRefresh = "platform_refresh"
)

// pageData is what every page template gets.
type pageData struct {
	Title, Page, CSRF, Error, Flash string
	CSS                             template.CSS
	SignedIn, Personal              bool
	Context                         string
	// page-specific
	Batch           *batchView
	Catalog         Catalog
	Queue           *view.Queue
	Next            string
	OrganizationID  string
	NewOrganization string
	NewKey          string
	Text            string
}

// signed is a page request's signed-in caller.
type signed struct {
	p          principal.Principal
	credential string
}

func pageRoutes(d Deps) func(r *mux.Router) {
	limiter := httpapi.NewLimiter(httpapi.RateLimitConfig{})
	guard := func(h func(w http.ResponseWriter, r *http.Request)) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			if err := limiter.Allow("ip:" + httpapi.ClientAddress(r)); err != nil {
				d.fail(w, r, err)
				return
			}
			h(w, r)
		}
	}
	form := func(h func(w http.ResponseWriter, r *http.Request)) http.Handler {
		return httpapi.AcceptsForms(guard(func(w http.ResponseWriter, r *http.Request) {
			if !d.checkForm(w, r) {
				return
			}
			h(w, r)
		}))
	}
	return func(r *mux.Router) {
		r.HandleFunc("/", func(w http.ResponseWriter, req *http.Request) {
			http.Redirect(w, req, "/dashboard", http.StatusSeeOther)
		}).Methods(http.MethodGet, http.MethodHead)
		r.Handle("/login", guard(d.loginPage)).Methods(http.MethodGet, http.MethodHead)
		r.Handle("/login", form(d.login)).Methods(http.MethodPost)
		r.Handle("/logout", form(d.logout)).Methods(http.MethodPost)
		r.Handle("/dashboard", guard(d.signedPage(d.dashboardPage))).Methods(http.MethodGet, http.MethodHead)
		r.Handle("/apps", guard(d.signedPage(d.appsPage))).Methods(http.MethodGet, http.MethodHead)
		r.Handle("/apps/{appId}/install", form(d.signedPage(d.installForm(true)))).Methods(http.MethodPost)
		r.Handle("/apps/{appId}/uninstall", form(d.signedPage(d.installForm(false)))).Methods(http.MethodPost)
		r.Handle("/actions", guard(d.signedPage(d.actionsPage))).Methods(http.MethodGet, http.MethodHead)
		r.Handle("/onboarding", guard(d.signedPage(d.onboardingPage))).Methods(http.MethodGet, http.MethodHead)
		r.Handle("/onboarding/organization", form(d.signedPage(d.onboardingOrganization))).Methods(http.MethodPost)
		r.Handle("/onboarding/key", form(d.signedPage(d.onboardingKey))).Methods(http.MethodPost)
		r.Handle("/onboarding/apps", form(d.signedPage(d.onboardingApps))).Methods(http.MethodPost)
	}
}

// render writes a page with the house headers.
func (d Deps) render(w http.ResponseWriter, status int, name string, data pageData) {
	data.CSS = template.CSS(pageCSS)
	var buf bytes.Buffer
	if err := pages.ExecuteTemplate(&buf, name, data); err != nil {
		d.Log.Error("dashboard page", "page", name, "err", err)
		status = http.StatusInternalServerError
		buf.Reset()
		_ = pages.ExecuteTemplate(&buf, "message", pageData{Title: "Error", Text: "This page cannot be shown.", CSS: template.CSS(pageCSS)})
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", PageCSP)
	h.Set("Cache-Control", "private, no-store")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Frame-Options", "DENY")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// fail answers a person in HTML with the status a problem would carry.
func (d Deps) fail(w http.ResponseWriter, r *http.Request, err error) {
	status := httpapi.PageStatus(w, r, d.Log, err)
	if status == 0 {
		return
	}
	text := "This page cannot be shown right now. Please try again in a moment."
	switch status {
	case http.StatusTooManyRequests:
		text = "Too many requests from your address. Please wait a moment and try again."
	case http.StatusForbidden:
		text = "Your credential does not allow this."
	case http.StatusNotFound:
		text = "There is nothing here."
	}
	d.render(w, status, "message", pageData{Title: http.StatusText(status), Text: text, CSRF: csrfOf(w, r)})
}

// csrfOf is the request's CSRF token, set as a cookie when it has none.
func csrfOf(w http.ResponseWriter, r *http.Request) string {
	if ck, err := r.Cookie(CookieCSRF); err == nil && len(ck.Value) == 43 {
		return ck.Value
	}
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	token := base64.RawURLEncoding.EncodeToString(b)
	http.SetCookie(w, &http.Cookie{Name: CookieCSRF, Value: token, Path: "/", HttpOnly: true, Secure: secure(r), SameSite: http.SameSiteStrictMode})
	r.AddCookie(&http.Cookie{Name: CookieCSRF, Value: token})
	return token
}

// checkForm refuses a form post without the matching CSRF token, or sent
// from another origin (403).
func (d Deps) checkForm(w http.ResponseWriter, r *http.Request) bool {
	if err := r.ParseForm(); err != nil {
		d.fail(w, r, errs.InvalidField("", "the form does not parse"))
		return false
	}
	ck, err := r.Cookie(CookieCSRF)
	sent := r.PostForm.Get("csrf")
	sameOrigin := true
	if o := r.Header.Get("Origin"); o != "" && o != "null" {
		u, perr := url.Parse(o)
		sameOrigin = perr == nil && u.Host == r.Host
	} else if o == "null" || r.Header.Get("Sec-Fetch-Site") == "cross-site" {
		sameOrigin = false
	}
	if err != nil || sent == "" || subtle.ConstantTimeCompare([]byte(ck.Value), []byte(sent)) != 1 || !sameOrigin {
		d.fail(w, r, errs.PermissionDenied("the form's CSRF token does not match: reload the page and try again"))
		return false
	}
	return true
}

func secure(r *http.Request) bool {
	return r.TLS != nil || strings.EqualFold(r.Header.Get("X-Forwarded-Proto"), "https")
}

// authenticate validates the page session's credential on every request
// (a revoked key, an ended session or a changed membership applies at
// once). An expired access token is rotated through identity's refresh
// cookie, once for the pages that present it together (refresher);
// anything else is no session.
func (d Deps) authenticate(w http.ResponseWriter, r *http.Request) (signed, error) {
	ck, err := r.Cookie(CookieSession)
	if err != nil || ck.Value == "" {
		return signed{}, errs.AuthenticationRequired("sign in first")
	}
	p, err := d.Validator.Validate(r.Context(), ck.Value)
	if err == nil {
		return signed{p: p, credential: ck.Value}, nil
	}
	if errs.KindOf(err) != errs.KindAuthenticationRequired {
		return signed{}, err
	}
	rk, rerr := r.Cookie(CookieRefresh)
	if rerr != nil || rk.Value == "" || !strings.HasPrefix(ck.Value, identitycmd.AccessTokenPrefix) {
		return signed{}, err
	}
	s, err := d.refresh.Refresh(r.Context(), rk.Value)
	if err != nil {
		return signed{}, err
	}
	d.setSession(w, r, s.AccessToken, &s)
	p, err = d.Validator.Validate(r.Context(), s.AccessToken)
	return signed{p: p, credential: s.AccessToken}, err
}

// setSession sets the page session's cookie (and identity's refresh
// cookie for a password sign-in).
func (d Deps) setSession(w http.ResponseWriter, r *http.Request, credential string, s *Session) {
	ck := &http.Cookie{Name: CookieSession, Value: credential, Path: "/", HttpOnly: true, Secure: secure(r), SameSite: http.SameSiteStrictMode}
	if s != nil {
		ck.Expires, ck.MaxAge = s.ExpiresAt, int(time.Until(s.ExpiresAt).Seconds())
		http.SetCookie(w, &http.Cookie{Name: CookieRefresh, Value: s.RefreshToken, Path: "/", HttpOnly: true, Secure: secure(r),
			SameSite: http.SameSiteLaxMode, Expires: s.ExpiresAt, MaxAge: int(time.Until(s.ExpiresAt).Seconds())})
	}
	http.SetCookie(w, ck)
}

func clearSession(w http.ResponseWriter, r *http.Request) {
	for _, name := range []string{CookieSession, CookieRefresh} {
		http.SetCookie(w, &http.Cookie{Name: name, Value: "", Path: "/", HttpOnly: true, Secure: secure(r), MaxAge: -1})
	}
}

// signedPage runs h for a signed-in caller; anyone else is sent to /login.
func (d Deps) signedPage(h func(w http.ResponseWriter, r *http.Request, s signed)) func(w http.ResponseWriter, r *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) {
		s, err := d.authenticate(w, r)
		if errs.KindOf(err) == errs.KindAuthenticationRequired {
			clearSession(w, r)
			http.Redirect(w, r, "/login?next="+url.QueryEscape(r.URL.Path), http.StatusSeeOther)
			return
		}
		if err != nil {
			d.fail(w, r, err)
			return
		}
		h(w, r, s)
	}
}

// base is the data every signed-in page starts from.
func (d Deps) base(w http.ResponseWriter, r *http.Request, s signed, page, title string) pageData {
	return pageData{Title: title, Page: page, CSRF: csrfOf(w, r), SignedIn: true, Personal: domain.PersonOf(s.p) != "",
		Context: domain.ContextOrganization, Flash: r.URL.Query().Get("done")}
}

// contextOf reads ?context= (a form's context member): anything but
// personal or organization is refused (422).
func contextOf(r *http.Request) (string, error) {
	c := r.FormValue("context")
	if c != "" && c != domain.ContextOrganization && c != domain.ContextPersonal {
		return "", errs.InvalidField("/context", "must be personal or organization")
	}
	if c == "" {
		c = domain.ContextOrganization
	}
	return c, nil
}

func (d Deps) dashboardPage(w http.ResponseWriter, r *http.Request, s signed) {
	data := d.base(w, r, s, "dashboard", "Dashboard")
	var err error
	if data.Context, err = contextOf(r); err != nil {
		d.fail(w, r, err)
		return
	}
	b, err := d.Launcher.Load(r.Context(), view.Caller{Principal: s.p, Credential: s.credential}, data.Context, d.Launcher.Now())
	if err != nil {
		d.fail(w, r, err)
		return
	}
	data.Batch = batchOf(b)
	d.render(w, http.StatusOK, "dashboard", data)
}

func (d Deps) appsPage(w http.ResponseWriter, r *http.Request, s signed) {
	data := d.base(w, r, s, "apps", "Apps")
	var err error
	if data.Context, err = contextOf(r); err != nil {
		d.fail(w, r, err)
		return
	}
	if data.Catalog, err = d.catalog(r.Context(), s.p, ContextInput{Context: data.Context}); err != nil {
		d.fail(w, r, err)
		return
	}
	d.render(w, http.StatusOK, "apps", data)
}

// meta is a page command's metadata, as the kernel makes it for actions.
func meta(r *http.Request, p principal.Principal) commands.Meta {
	return commands.Meta{OrganizationID: p.OrganizationID, Actor: eventstore.Actor{ID: p.ID, Type: p.Type},
		ActingUser: p.ActingUser(), CorrelationID: httpapi.RequestID(r.Context())}
}

// installForm is the /apps buttons: the caller needs apps:write, as
// apps.install and apps.uninstall do.
func (d Deps) installForm(install bool) func(w http.ResponseWriter, r *http.Request, s signed) {
	return func(w http.ResponseWriter, r *http.Request, s signed) {
		kind, err := contextOf(r)
		if err != nil {
			d.fail(w, r, err)
			return
		}
		if err := d.allow(s.p, "apps:write"); err != nil {
			d.fail(w, r, err)
			return
		}
		in := dashboardcmd.AppInput{AppID: mux.Vars(r)["appId"], Context: kind}
		run, verb := d.Commands.InstallApp, "installed"
		if !install {
			run, verb = d.Commands.UninstallApp, "uninstalled"
		}
		res, err := run(r.Context(), meta(r, s.p), s.p, in)
		if err != nil {
			d.fail(w, r, err)
			return
		}
		_ = d.Reader.WaitFor(r.Context(), view.Name, res.Position) // bounded; the page shows what is applied
		http.Redirect(w, r, "/apps?context="+kind+"&done="+url.QueryEscape(in.AppID+" "+verb+"."), http.StatusSeeOther)
	}
}

// allow checks a dashboard scope for a page.
func (d Deps) allow(p principal.Principal, scope string) error {
	if perm := principal.Qualify(AppID, scope); !p.Allows(perm) {
		return errs.PermissionDenied("the credential lacks permission " + perm)
	}
	return nil
}

func (d Deps) actionsPage(w http.ResponseWriter, r *http.Request, s signed) {
	if err := d.allow(s.p, "dashboard:read"); err != nil {
		d.fail(w, r, err)
		return
	}
	data := d.base(w, r, s, "actions", "Actions")
	q := d.Launcher.ActionQueue(r.Context(), s.p, d.Launcher.Now())
	data.Queue = &q
	d.render(w, http.StatusOK, "actions", data)
}

// safeNext keeps a redirect target on this site: a local path only.
func safeNext(next string) string {
	if !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") || strings.ContainsAny(next, "\\\r\n") {
		return "/dashboard"
	}
	return next
}

func (d Deps) loginPage(w http.ResponseWriter, r *http.Request) {
	data := pageData{Title: "Sign in", Page: "login", CSRF: csrfOf(w, r), Next: safeNext(r.URL.Query().Get("next"))}
	if org := r.URL.Query().Get("organizationId"); len(org) <= 64 {
		data.OrganizationID = org
	}
	d.render(w, http.StatusOK, "login", data)
}

// login signs in with identity's POST /login (email and password) or an
// API key checked by the validator, into the page session's cookie.
func (d Deps) login(w http.ResponseWriter, r *http.Request) {
	next := safeNext(r.PostForm.Get("next"))
	again := func(status int, msg string) {
		d.render(w, status, "login", pageData{Title: "Sign in", Page: "login", CSRF: csrfOf(w, r), Next: next, Error: msg,
			OrganizationID: r.PostForm.Get("organizationId")})
	}
	if err := d.Attempts.AllowAttempt(r); err != nil {
		d.fail(w, r, err)
		return
	}
	switch r.PostForm.Get("mode") {
	case "key":
		key := strings.TrimSpace(r.PostForm.Get("key"))
		if key == "" || len(key) > 512 {
			again(http.StatusUnprocessableEntity, "Enter an API key.")
			return
		}
		if _, err := d.Validator.Validate(r.Context(), key); err != nil {
			if errs.KindOf(err) == errs.KindAuthenticationRequired {
				again(http.StatusUnauthorized, "That key is not valid.")
				return
			}
			d.fail(w, r, err)
			return
		}
		d.setSession(w, r, key, nil)
	default:
		email, password := strings.TrimSpace(r.PostForm.Get("email")), r.PostForm.Get("password")
		if email == "" || password == "" || len(email) > 254 || len(password) > 256 {
			again(http.StatusUnprocessableEntity, "Enter your email and password.")
			return
		}
		s, err := d.Sessions.SignIn(r.Context(), email, password, r.PostForm.Get("organizationId"))
		switch errs.KindOf(err) {
		case errs.KindAuthenticationRequired, errs.KindInvalidInput:
			again(http.StatusUnauthorized, "Invalid email or password (or a second factor is needed: sign in with the identity service first).")
			return
		case errs.KindPermissionDenied:
			again(http.StatusForbidden, "Your account has no access to that organization.")
			return
		}
		if err != nil {
			d.fail(w, r, err)
			return
		}
		d.setSession(w, r, s.AccessToken, &s)
	}
	http.Redirect(w, r, next, http.StatusSeeOther)
}

// logout ends identity's session (a password sign-in) and clears the
// cookies.
func (d Deps) logout(w http.ResponseWriter, r *http.Request) {
	if ck, err := r.Cookie(CookieSession); err == nil && strings.HasPrefix(ck.Value, identitycmd.AccessTokenPrefix) {
		_ = d.Sessions.SignOut(r.Context(), ck.Value) // an ended session is as good
	}
	clearSession(w, r)
	http.Redirect(w, r, "/login", http.StatusSeeOther)
}

func (d Deps) onboarding(w http.ResponseWriter, r *http.Request, s signed, data pageData, status int) {
	var err error
	if data.Catalog, err = d.catalog(r.Context(), s.p, ContextInput{}); err != nil {
		d.fail(w, r, err)
		return
	}
	data.OrganizationID = s.p.OrganizationID
	d.render(w, status, "onboarding", data)
}

func (d Deps) onboardingPage(w http.ResponseWriter, r *http.Request, s signed) {
	d.onboarding(w, r, s, d.base(w, r, s, "onboarding", "Get started"), http.StatusOK)
}

// onboardingOrganization creates an organization through identity's API
// with the caller's credential (the signed-in user becomes its owner).
func (d Deps) onboardingOrganization(w http.ResponseWriter, r *http.Request, s signed) {
	data := d.base(w, r, s, "onboarding", "Get started")
	var out struct {
		OrganizationID string `json:"organization_id"`
	}
	err := d.Sessions.Call(r.Context(), s.credential, http.MethodPost, "/api/organizations",
		map[string]string{"name": r.PostForm.Get("name"), "slug": r.PostForm.Get("slug")}, &out)
	status := http.StatusOK
	switch errs.KindOf(err) {
	case errs.KindInternal:
		if err != nil {
			d.fail(w, r, err)
			return
		}
		data.NewOrganization = out.OrganizationID
	case errs.KindInvalidInput, errs.KindConflict, errs.KindPermissionDenied:
		data.Error, status = "The organization could not be created: "+problemText(err), statusOf(err)
	default:
		d.fail(w, r, err)
		return
	}
	d.onboarding(w, r, s, data, status)
}

// onboardingKey creates an API key for the dashboard through identity's
// API (a key never exceeds its creator: identity narrows it).
func (d Deps) onboardingKey(w http.ResponseWriter, r *http.Request, s signed) {
	data := d.base(w, r, s, "onboarding", "Get started")
	var out struct {
		Token string `json:"token"`
	}
	err := d.Sessions.Call(r.Context(), s.credential, http.MethodPost, "/api/api-keys",
		map[string]any{"name": r.PostForm.Get("name"), "service": AppID, "scopes": KeyScopes}, &out)
	status := http.StatusOK
	switch errs.KindOf(err) {
	case errs.KindInternal:
		if err != nil {
			d.fail(w, r, err)
			return
		}
		data.NewKey = out.Token
	case errs.KindInvalidInput, errs.KindConflict, errs.KindPermissionDenied:
		data.Error, status = "The key could not be created: "+problemText(err), statusOf(err)
	default:
		d.fail(w, r, err)
		return
	}
	d.onboarding(w, r, s, data, status)
}

// KeyScopes are what onboarding's key holds: reading and arranging the
// dashboard.
var KeyScopes = []string{"apps:read", "apps:write", "dashboard:read", "widgets:read"}

// onboardingApps installs the chosen apps in the organization's context.
func (d Deps) onboardingApps(w http.ResponseWriter, r *http.Request, s signed) {
	if err := d.allow(s.p, "apps:write"); err != nil {
		d.fail(w, r, err)
		return
	}
	chosen := r.PostForm["app"]
	if len(chosen) > 64 {
		d.fail(w, r, errs.InvalidField("/app", "at most 64 apps"))
		return
	}
	var last *eventstore.Position
	for _, app := range chosen {
		res, err := d.Commands.InstallApp(r.Context(), meta(r, s.p), s.p, dashboardcmd.AppInput{AppID: app})
		if err != nil {
			d.fail(w, r, err)
			return
		}
		last = &res.Position
	}
	if last != nil {
		_ = d.Reader.WaitFor(r.Context(), view.Name, *last)
	}
	http.Redirect(w, r, "/dashboard?done="+url.QueryEscape(strconv.Itoa(len(chosen))+" apps installed."), http.StatusSeeOther)
}

func problemText(err error) string {
	if e, ok := errs.As(err); ok {
		parts := []string{}
		for _, f := range e.Fields {
			parts = append(parts, strings.TrimPrefix(f.Pointer, "/")+" "+f.Detail)
		}
		if len(parts) > 0 {
			return strings.Join(parts, "; ")
		}
		return e.Message
	}
	return "try again"
}

func statusOf(err error) int {
	switch errs.KindOf(err) {
	case errs.KindInvalidInput:
		return http.StatusUnprocessableEntity
	case errs.KindConflict:
		return http.StatusConflict
	case errs.KindPermissionDenied:
		return http.StatusForbidden
	}
	return http.StatusOK
}

// batchView is the launcher's answer shaped for the page.
type batchView struct {
	Apps    []appView
	Omitted []view.Omitted
	Down    int
	NoTitle string
}

type appView struct {
	AppID, Name, URL, State string
	Tiles                   []tileView
}

func (a appView) Class() string {
	switch a.State {
	case domain.StateStale:
		return "down"
	case domain.StateFallback:
		return "down fallback"
	}
	return ""
}

var stateLabels = map[string]string{domain.StateFresh: "live", domain.StateCached: "cached", domain.StateStale: "stale",
	domain.StateFallback: "unavailable"}

func (a appView) StateLabel() string { return stateLabels[a.State] }

func (a appView) StateHelp() string {
	switch a.State {
	case domain.StateCached:
		return "figures from the last 45 seconds"
	case domain.StateStale:
		return "the app did not answer: its last figures"
	case domain.StateFallback:
		return "the app did not answer: what the catalog says of it"
	}
	return "figures fetched just now"
}

type tileView struct {
	Title, Summary, URL string
	Overview            bool
	Figures             []figure
}

type figure struct{ Label, Value string }

func batchOf(b view.Batch) *batchView {
	out := &batchView{Omitted: b.Omitted}
	for _, a := range b.Apps {
		av := appView{AppID: a.AppID, Name: a.Name, URL: a.URL, State: a.State}
		if a.State == domain.StateStale || a.State == domain.StateFallback {
			out.Down++
		}
		if a.State == domain.StateStale && a.AgeSeconds > 0 {
			av.Name = a.Name
		}
		for _, raw := range a.Widgets {
			av.Tiles = append(av.Tiles, tileOf(raw))
		}
		if a.State == domain.StateCached || a.State == domain.StateStale {
			av.Tiles = append(av.Tiles, tileView{Figures: []figure{{"as of", ago(a.AgeSeconds)}}})
		}
		out.Apps = append(out.Apps, av)
	}
	return out
}

func ago(seconds int) string {
	if seconds < 60 {
		return strconv.Itoa(seconds) + " s ago"
	}
	return strconv.Itoa(seconds/60) + " min ago"
}

// tileOf reads a tile's members into labelled figures: numbers, strings
// and booleans as they are, a list by its length.
func tileOf(raw json.RawMessage) tileView {
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return tileView{}
	}
	t := tileView{}
	t.Title, _ = m["title"].(string)
	if ov, _ := m["overview"].(bool); ov {
		t.Overview = true
		t.Summary, _ = m["summary"].(string)
		t.URL, _ = m["url"].(string)
		return t
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		if k != "appId" && k != "title" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		label := strings.ReplaceAll(k, "_", " ")
		switch v := m[k].(type) {
		case float64:
			t.Figures = append(t.Figures, figure{label, strconv.FormatFloat(v, 'f', -1, 64)})
		case string:
			t.Figures = append(t.Figures, figure{label, v})
		case bool:
			t.Figures = append(t.Figures, figure{label, map[bool]string{true: "yes", false: "no"}[v]})
		case []any:
			t.Figures = append(t.Figures, figure{label, fmt.Sprintf("%d", len(v))})
		}
	}
	return t
}
