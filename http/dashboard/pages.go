package dashboard

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
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
	domain "github.com/platform/backend/domain/dashboard"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/principal"
	"github.com/platform/backend/eventstore"
	httpapi "github.com/platform/backend/http"
	"github.com/platform/backend/http/webpage"
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

	pages = template.Must(template.New("dashboard").Funcs(template.FuncMap{
		"when": func(t *time.Time) string {
			if t == nil {
				return ""
			}
			return t.UTC().Format("2006-01-02 15:04 UTC")
		},
	}).Parse(pageTemplate))

	// PageCSP: the pages' own stylesheet (by its hash), forms to this
	// origin, no script, no frame, no fetch.
	PageCSP = webpage.CSP()
)

// Cookie names. The refresh cookie is the identity service's own (its
// name and attributes): a sign-out there ends the dashboard's session too.
const (
	CookieSession = "platform_dashboard"
	CookieCSRF    = "platform_dashboard_csrf"
	CookieRefresh = webpage.RefreshCookie
)

// auth is the pages' sign-in (webpage.Auth, the dashboard's cookies).
func (d Deps) auth() webpage.Auth {
	return webpage.Auth{SessionCookie: CookieSession, CSRFCookie: CookieCSRF, Validator: d.Validator, Sessions: d.Sessions, Attempts: d.Attempts}
}

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
type signed = webpage.Signed

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
			if err := d.auth().CheckForm(r); err != nil {
				d.fail(w, r, err)
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
	data.CSS = template.CSS(webpage.CSS)
	var buf bytes.Buffer
	if err := pages.ExecuteTemplate(&buf, name, data); err != nil {
		d.Log.Error("dashboard page", "page", name, "err", err)
		status = http.StatusInternalServerError
		buf.Reset()
		_ = pages.ExecuteTemplate(&buf, "message", pageData{Title: "Error", Text: "This page cannot be shown.", CSS: template.CSS(webpage.CSS)})
	}
	webpage.Headers(w, PageCSP)
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// fail answers a person in HTML with the status a problem would carry.
func (d Deps) fail(w http.ResponseWriter, r *http.Request, err error) {
	status := httpapi.PageStatus(w, r, d.Log, err)
	if status == 0 {
		return
	}
	d.render(w, status, "message", pageData{Title: http.StatusText(status), Text: webpage.Message(status), CSRF: csrfOf(w, r)})
}

func csrfOf(w http.ResponseWriter, r *http.Request) string {
	return webpage.Auth{CSRFCookie: CookieCSRF}.CSRF(w, r)
}

// signedPage runs h for a signed-in caller; anyone else is sent to /login.
func (d Deps) signedPage(h func(w http.ResponseWriter, r *http.Request, s signed)) func(w http.ResponseWriter, r *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) {
		s, err := d.auth().Authenticate(w, r)
		if errs.KindOf(err) == errs.KindAuthenticationRequired {
			d.auth().ClearSession(w, r)
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
	return pageData{Title: title, Page: page, CSRF: csrfOf(w, r), SignedIn: true, Personal: domain.PersonOf(s.Principal) != "",
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
	b, err := d.Launcher.Load(r.Context(), view.Caller{Principal: s.Principal, Credential: s.Credential}, data.Context, d.Launcher.Now())
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
	if data.Catalog, err = d.catalog(r.Context(), s.Principal, ContextInput{Context: data.Context}); err != nil {
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
		if err := d.allow(s.Principal, "apps:write"); err != nil {
			d.fail(w, r, err)
			return
		}
		in := dashboardcmd.AppInput{AppID: mux.Vars(r)["appId"], Context: kind}
		run, verb := d.Commands.InstallApp, "installed"
		if !install {
			run, verb = d.Commands.UninstallApp, "uninstalled"
		}
		res, err := run(r.Context(), meta(r, s.Principal), s.Principal, in)
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
	if err := d.allow(s.Principal, "dashboard:read"); err != nil {
		d.fail(w, r, err)
		return
	}
	data := d.base(w, r, s, "actions", "Actions")
	q := d.Launcher.ActionQueue(r.Context(), s.Principal, d.Launcher.Now())
	data.Queue = &q
	d.render(w, http.StatusOK, "actions", data)
}

func safeNext(next string) string { return webpage.SafeNext(next, "/dashboard") }

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
	var refused *webpage.Refused
	if err := d.auth().SignIn(w, r); errors.As(err, &refused) {
		again(refused.Status, refused.Message)
		return
	} else if err != nil {
		d.fail(w, r, err)
		return
	}
	http.Redirect(w, r, next, http.StatusSeeOther)
}

// logout ends identity's session (a password sign-in) and clears the
// cookies.
func (d Deps) logout(w http.ResponseWriter, r *http.Request) {
	d.auth().SignOut(w, r)
	http.Redirect(w, r, "/login", http.StatusSeeOther)
}

func (d Deps) onboarding(w http.ResponseWriter, r *http.Request, s signed, data pageData, status int) {
	var err error
	if data.Catalog, err = d.catalog(r.Context(), s.Principal, ContextInput{}); err != nil {
		d.fail(w, r, err)
		return
	}
	data.OrganizationID = s.Principal.OrganizationID
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
	err := d.Sessions.Call(r.Context(), s.Credential, http.MethodPost, "/api/organizations",
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
	err := d.Sessions.Call(r.Context(), s.Credential, http.MethodPost, "/api/api-keys",
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
	if err := d.allow(s.Principal, "apps:write"); err != nil {
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
		res, err := d.Commands.InstallApp(r.Context(), meta(r, s.Principal), s.Principal, dashboardcmd.AppInput{AppID: app})
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

func problemText(err error) string { return webpage.ProblemText(err) }

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
