package design

import (
	"bytes"
	"crypto/rand"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"errors"
	"html/template"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/gorilla/mux"

	"github.com/platform/backend/commands/workspace"
	"github.com/platform/backend/domain/brands"
	domain "github.com/platform/backend/domain/design"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/eventstore"
	httpapi "github.com/platform/backend/http"
	"github.com/platform/backend/http/webpage"
	designview "github.com/platform/backend/projections/design"
)

// The web component (seed 000; issue 20 §3): pages for people under /app,
// rendered on the server, a thin client of the API. Every read and every
// change is forwarded to the service's own API actions with the page
// session's credential as the bearer, through the same router (so the same
// authentication, permission and workspace checks, input schemas, rate
// limits and Idempotency-Key as any caller). Sign-in, CSRF, the
// stylesheet and the house headers are the shared pages' (http/webpage).
// One script file of the service's own (/app/static/design.js) polls the
// exports until they are ready; the policy allows it and nothing else.

var (
	//go:embed page.html
	pageTemplate string
	//go:embed design.js
	pageScript []byte

	pages = template.Must(template.New("design").Funcs(template.FuncMap{
		"when": func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04 UTC") },
		"deref": func(s *string) string {
			if s == nil {
				return ""
			}
			return *s
		},
		"seconds": func(ms int) string { return strconv.FormatFloat(float64(ms)/1000, 'f', -1, 64) + " s" },
		"kib":     func(n int64) string { return strconv.FormatInt((n+1023)/1024, 10) + " KiB" },
	}).Parse(pageTemplate))

	// PageCSP: the shared stylesheet by its hash, the service's own script
	// file, its own images (the preview) and fetches (the exports' poll),
	// forms to this origin; no inline script, no other origin, no frame.
	PageCSP = webpage.CSP("script-src 'self'", "img-src 'self'", "connect-src 'self'")
)

// Cookie names: the design pages' own (the dashboard's live on the same
// host).
const (
	CookieSession = "platform_design"
	CookieCSRF    = "platform_design_csrf"
)

// web is the pages' state: the sign-in and the API they forward to.
type web struct {
	auth     webpage.Auth
	log      *slog.Logger
	limiter  *httpapi.Limiter
	insights string
	// api is the service's router: a page's forwarded call is served by
	// the same actions as any caller's.
	api http.Handler
}

// pageData is what every page template gets.
type pageData struct {
	Title, Page, CSRF, Error, Flash, Next, Text string
	CSS                                         template.CSS
	SignedIn                                    bool
	Insights                                    string
	// the workspace the pages act in, and the ones this credential may enter
	Workspace  string
	Workspaces []workspace.View
	// page-specific
	Projects   []domain.Project
	Project    *domain.Project
	Designs    []designview.Summary
	NextCursor string
	Design     *domain.Design
	PageID     string
	Layers     []layerView
	Palette    []brands.Colour
	Exports    []domain.Export
	Formats    []string
	Pending    bool
	Key        func() string
}

// layerView is a layer the design page offers to change: a text's text and
// colour, a shape's fill.
type layerView struct {
	domain.Layer
}

func (l layerView) Label() string {
	if l.Name != nil && *l.Name != "" {
		return *l.Name
	}
	return l.LayerID
}

func (l layerView) Editable() bool { return l.Type == domain.LayerText || l.Fill != nil }

func (l layerView) FillHex() string {
	if l.Fill == nil {
		return ""
	}
	return strings.ToUpper(*l.Fill)
}

func pageRoutes(d Deps, router httpapi.Deps) func(r *mux.Router) {
	wb := &web{log: router.Log, limiter: httpapi.NewLimiter(httpapi.RateLimitConfig{}), insights: d.InsightsSiteKey,
		auth: webpage.Auth{SessionCookie: CookieSession, CSRFCookie: CookieCSRF, Validator: router.Validator, Sessions: webpage.RefreshOnce(d.Sessions),
			Attempts: router.Attempts}}
	if wb.log == nil {
		wb.log = slog.Default()
	}
	guard := func(h func(w http.ResponseWriter, r *http.Request)) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			if err := wb.limiter.Allow("ip:" + httpapi.ClientAddress(r)); err != nil {
				wb.fail(w, r, err)
				return
			}
			h(w, r)
		}
	}
	form := func(h func(w http.ResponseWriter, r *http.Request)) http.Handler {
		return httpapi.AcceptsForms(guard(func(w http.ResponseWriter, r *http.Request) {
			if err := wb.auth.CheckForm(r); err != nil {
				wb.fail(w, r, err)
				return
			}
			h(w, r)
		}))
	}
	get := []string{http.MethodGet, http.MethodHead}
	return func(r *mux.Router) {
		wb.api = r
		r.HandleFunc("/app", func(w http.ResponseWriter, req *http.Request) {
			http.Redirect(w, req, "/app/projects", http.StatusSeeOther)
		}).Methods(get...)
		r.Handle("/app/static/design.js", guard(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
			w.Header().Set("Cache-Control", "public, max-age=300")
			w.Header().Set("X-Content-Type-Options", "nosniff")
			_, _ = w.Write(pageScript)
		})).Methods(get...)
		r.Handle("/app/login", guard(wb.loginPage)).Methods(get...)
		r.Handle("/app/login", form(wb.login)).Methods(http.MethodPost)
		r.Handle("/app/logout", form(wb.logout)).Methods(http.MethodPost)
		r.Handle("/app/projects", guard(wb.signed(wb.projectsPage))).Methods(get...)
		r.Handle("/app/projects/{projectId}", guard(wb.signed(wb.projectPage))).Methods(get...)
		r.Handle("/app/designs/{designId}", guard(wb.signed(wb.designPage))).Methods(get...)
		r.Handle("/app/designs/{designId}/preview.png", guard(wb.signed(wb.preview))).Methods(get...)
		r.Handle("/app/designs/{designId}/exports", guard(wb.signed(wb.exportsFragment))).Methods(get...)
		r.Handle("/app/designs/{designId}/layers", form(wb.signed(wb.changeLayer))).Methods(http.MethodPost)
		r.Handle("/app/designs/{designId}/exports", form(wb.signed(wb.export))).Methods(http.MethodPost)
		r.Handle("/app/exports/{exportId}/download", guard(wb.signed(wb.download))).Methods(get...)
	}
}

// render writes a page with the house headers.
func (wb *web) render(w http.ResponseWriter, status int, name string, data pageData) {
	data.CSS, data.Insights = template.CSS(webpage.CSS), wb.insights
	if data.Key == nil {
		data.Key = newKey
	}
	var buf bytes.Buffer
	if err := pages.ExecuteTemplate(&buf, name, data); err != nil {
		wb.log.Error("design page", "page", name, "err", err)
		status = http.StatusInternalServerError
		buf.Reset()
		_ = pages.ExecuteTemplate(&buf, "message", pageData{Title: "Error", Text: "This page cannot be shown.", CSS: template.CSS(webpage.CSS)})
	}
	webpage.Headers(w, PageCSP)
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// fail answers a person in HTML with the status the API's problem carries.
func (wb *web) fail(w http.ResponseWriter, r *http.Request, err error) {
	status := httpapi.PageStatus(w, r, wb.log, err)
	if status == 0 {
		return
	}
	wb.render(w, status, "message", pageData{Title: http.StatusText(status), Text: webpage.Message(status), CSRF: wb.auth.CSRF(w, r)})
}

// newKey is a form's Idempotency-Key: a form posted twice (a reload, a
// double click) is applied once.
func newKey() string {
	b := make([]byte, 18)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// signed runs h for a signed-in caller; anyone else is sent to the sign-in
// page, back here afterwards.
func (wb *web) signed(h func(w http.ResponseWriter, r *http.Request, s webpage.Signed)) func(w http.ResponseWriter, r *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) {
		s, err := wb.auth.Authenticate(w, r)
		if errs.KindOf(err) == errs.KindAuthenticationRequired {
			wb.auth.ClearSession(w, r)
			next := r.URL.Path
			if r.Method != http.MethodGet || strings.HasSuffix(next, ".png") {
				next = "/app/projects"
			} else if r.URL.RawQuery != "" {
				next += "?" + r.URL.RawQuery
			}
			http.Redirect(w, r, "/app/login?next="+url.QueryEscape(next), http.StatusSeeOther)
			return
		}
		if err != nil {
			wb.fail(w, r, err)
			return
		}
		h(w, r, s)
	}
}

// recorded is a forwarded call's answer.
type recorded struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (c *recorded) Header() http.Header { return c.header }
func (c *recorded) WriteHeader(status int) {
	if c.status == 0 {
		c.status = status
	}
}
func (c *recorded) Write(b []byte) (int, error) {
	c.WriteHeader(http.StatusOK)
	return c.body.Write(b)
}

// call is one forwarded API call.
type call struct {
	method, path string
	query        url.Values
	body         any
	key          string // Idempotency-Key
	after        string // X-Platform-Min-Position
}

// forward serves an API call with the page session's credential through
// the service's router and decodes a success into out; a problem comes
// back as the error the API answered.
func (wb *web) forward(r *http.Request, s webpage.Signed, c call, out any) (*recorded, error) {
	var body io.Reader = http.NoBody // a server's request always has a body
	if c.body != nil {
		raw, err := json.Marshal(c.body)
		if err != nil {
			return nil, err
		}
		body = bytes.NewReader(raw)
	}
	target := c.path
	if len(c.query) > 0 {
		target += "?" + c.query.Encode()
	}
	req, err := http.NewRequestWithContext(r.Context(), c.method, target, body)
	if err != nil {
		return nil, errs.NotFound("the page")
	}
	req.RemoteAddr, req.Host = r.RemoteAddr, r.Host
	req.Header.Set("Authorization", "Bearer "+s.Credential)
	req.Header.Set("Accept", "application/json")
	if c.body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.key != "" {
		req.Header.Set(httpapi.HeaderIdempotencyKey, c.key)
	}
	if c.after != "" {
		req.Header.Set(httpapi.HeaderMinPosition, c.after)
	}
	res := &recorded{header: http.Header{}}
	wb.api.ServeHTTP(res, req)
	if res.status >= 300 {
		return res, webpage.ProblemError("the design API", res.status, res.header, res.body.Bytes())
	}
	if out != nil {
		if err := json.Unmarshal(res.body.Bytes(), out); err != nil {
			return res, errs.Unavailable("the design API's answer does not decode", err)
		}
	}
	return res, nil
}

// get forwards a read.
func (wb *web) get(r *http.Request, s webpage.Signed, path string, query url.Values, out any) error {
	_, err := wb.forward(r, s, call{method: http.MethodGet, path: path, query: query, after: after(r)}, out)
	return err
}

// after is the position a page waits for (?after=, set by the redirect
// after a change: the page shows what was just saved); anything else is
// ignored.
func after(r *http.Request) string {
	v := r.URL.Query().Get("after")
	if v == "" || len(v) > 1024 {
		return ""
	}
	if _, err := eventstore.ParsePositions(v); err != nil {
		return ""
	}
	return v
}

// scope is a page's workspace: ?workspace=<workspaceId> (as the
// notifications' links name it), else the credential's default one. A
// workspace this credential may not enter, or another organization's, is
// the page's 404.
type scope struct {
	id, slug string
	all      []workspace.View
}

func (sc scope) api() string { return "/api/workspaces/" + url.PathEscape(sc.slug) }

func (wb *web) scope(r *http.Request, s webpage.Signed) (scope, error) {
	var boot workspace.Bootstrap
	if err := wb.get(r, s, "/api/bootstrap", nil, &boot); err != nil {
		return scope{}, err
	}
	want := r.URL.Query().Get("workspace")
	for _, w := range boot.Organization.Workspaces {
		if (want != "" && w.WorkspaceID == want) || (want == "" && boot.Organization.DefaultWorkspace != nil && w.Slug == *boot.Organization.DefaultWorkspace) {
			return scope{id: w.WorkspaceID, slug: w.Slug, all: boot.Organization.Workspaces}, nil
		}
	}
	if want == "" && len(boot.Organization.Workspaces) > 0 {
		w := boot.Organization.Workspaces[0]
		return scope{id: w.WorkspaceID, slug: w.Slug, all: boot.Organization.Workspaces}, nil
	}
	return scope{}, errs.NotFound("workspace")
}

func (wb *web) base(w http.ResponseWriter, r *http.Request, sc scope, page, title string) pageData {
	return pageData{Title: title, Page: page, CSRF: wb.auth.CSRF(w, r), SignedIn: true, Workspace: sc.id, Workspaces: sc.all,
		Flash: notes[r.URL.Query().Get("done")]}
}

// notes are what a redirect after a form says (?done=): a word of ours,
// never text from the link.
var notes = map[string]string{"saved": "Saved.", "queued": "Export queued: it is listed below until it is ready."}

func (wb *web) loginPage(w http.ResponseWriter, r *http.Request) {
	data := pageData{Title: "Sign in", Page: "login", CSRF: wb.auth.CSRF(w, r), Next: webpage.SafeNext(r.URL.Query().Get("next"), "/app/projects")}
	wb.render(w, http.StatusOK, "login", data)
}

// login signs in with an API key or identity's email and password
// (webpage.Auth.SignIn) and goes back where the person was going.
func (wb *web) login(w http.ResponseWriter, r *http.Request) {
	next := webpage.SafeNext(r.PostForm.Get("next"), "/app/projects")
	var refused *webpage.Refused
	if err := wb.auth.SignIn(w, r); errors.As(err, &refused) {
		wb.render(w, refused.Status, "login", pageData{Title: "Sign in", Page: "login", CSRF: wb.auth.CSRF(w, r), Next: next, Error: refused.Message})
		return
	} else if err != nil {
		wb.fail(w, r, err)
		return
	}
	http.Redirect(w, r, next, http.StatusSeeOther)
}

func (wb *web) logout(w http.ResponseWriter, r *http.Request) {
	wb.auth.SignOut(w, r)
	http.Redirect(w, r, "/app/login", http.StatusSeeOther)
}

// listQuery is a list page's paging: ?cursor= passed on.
func listQuery(r *http.Request) url.Values {
	q := url.Values{"limit": {"50"}}
	if c := r.URL.Query().Get("cursor"); c != "" {
		q.Set("cursor", c)
	}
	return q
}

func (wb *web) projectsPage(w http.ResponseWriter, r *http.Request, s webpage.Signed) {
	sc, err := wb.scope(r, s)
	if err != nil {
		wb.fail(w, r, err)
		return
	}
	var list designview.ProjectPage
	if err := wb.get(r, s, sc.api()+"/projects", listQuery(r), &list); err != nil {
		wb.fail(w, r, err)
		return
	}
	data := wb.base(w, r, sc, "projects", "Projects")
	data.Projects = list.Projects
	if list.NextCursor != nil {
		data.NextCursor = *list.NextCursor
	}
	wb.render(w, http.StatusOK, "projects", data)
}

func (wb *web) projectPage(w http.ResponseWriter, r *http.Request, s webpage.Signed) {
	sc, err := wb.scope(r, s)
	if err != nil {
		wb.fail(w, r, err)
		return
	}
	id := mux.Vars(r)["projectId"]
	var project domain.Project
	if err := wb.get(r, s, sc.api()+"/projects/"+url.PathEscape(id), nil, &project); err != nil {
		wb.fail(w, r, err)
		return
	}
	q := listQuery(r)
	q.Set("projectId", id)
	var list designview.DesignPage
	if err := wb.get(r, s, sc.api()+"/designs", q, &list); err != nil {
		wb.fail(w, r, err)
		return
	}
	data := wb.base(w, r, sc, "projects", project.Name)
	data.Project, data.Designs = &project, list.Designs
	if list.NextCursor != nil {
		data.NextCursor = *list.NextCursor
	}
	wb.render(w, http.StatusOK, "project", data)
}

func (wb *web) designPage(w http.ResponseWriter, r *http.Request, s webpage.Signed) {
	wb.showDesign(w, r, s, http.StatusOK, "")
}

// showDesign is the design page: the preview of one page, its layers with
// the forms that change them, the export buttons and the exports.
func (wb *web) showDesign(w http.ResponseWriter, r *http.Request, s webpage.Signed, status int, problem string) {
	sc, err := wb.scope(r, s)
	if err != nil {
		wb.fail(w, r, err)
		return
	}
	id := url.PathEscape(mux.Vars(r)["designId"])
	var ds domain.Design
	if err := wb.get(r, s, sc.api()+"/designs/"+id, nil, &ds); err != nil {
		wb.fail(w, r, err)
		return
	}
	var kit brands.Version
	if err := wb.get(r, s, sc.api()+"/designs/"+id+"/brand-kit", nil, &kit); err != nil {
		wb.fail(w, r, err)
		return
	}
	var exports struct {
		Exports []domain.Export `json:"exports"`
	}
	if err := wb.get(r, s, sc.api()+"/designs/"+id+"/exports", nil, &exports); err != nil {
		wb.fail(w, r, err)
		return
	}
	data := wb.base(w, r, sc, "projects", ds.Name)
	data.Error = problem
	data.Design, data.Palette, data.Exports, data.Formats = &ds, kit.Colours, exports.Exports, domain.Formats
	data.Pending = pending(exports.Exports)
	want := r.FormValue("pageId")
	for i, p := range ds.Pages {
		if p.PageID == want || (i == 0 && want == "") {
			data.PageID = p.PageID
			data.Layers = flatten(p.Layers, nil)
		}
	}
	if data.PageID == "" {
		wb.fail(w, r, errs.NotFound("page"))
		return
	}
	wb.render(w, status, "design", data)
}

func pending(list []domain.Export) bool {
	for _, x := range list {
		if x.Status == domain.ExportQueued || x.Status == domain.ExportRendering {
			return true
		}
	}
	return false
}

// flatten lists a page's layers top to bottom as a person reads a layer
// panel, a group's children under it.
func flatten(layers []domain.Layer, out []layerView) []layerView {
	for i := len(layers) - 1; i >= 0; i-- {
		out = append(out, layerView{Layer: layers[i]})
		out = flatten(layers[i].Children, out)
	}
	return out
}

// exportsFragment is the design page's exports section alone: what its
// script polls until every export is ready, failed or cancelled.
func (wb *web) exportsFragment(w http.ResponseWriter, r *http.Request, s webpage.Signed) {
	sc, err := wb.scope(r, s)
	if err != nil {
		wb.fail(w, r, err)
		return
	}
	var exports struct {
		Exports []domain.Export `json:"exports"`
	}
	id := mux.Vars(r)["designId"]
	if err := wb.get(r, s, sc.api()+"/designs/"+url.PathEscape(id)+"/exports", nil, &exports); err != nil {
		wb.fail(w, r, err)
		return
	}
	data := wb.base(w, r, sc, "projects", "Exports")
	data.Design = &domain.Design{DesignID: id}
	data.Exports, data.Pending = exports.Exports, pending(exports.Exports)
	wb.render(w, http.StatusOK, "exports", data)
}

// preview is the design's page drawn now (designs.preview.get, the PNG
// export's renderer), for the design page's <img>.
func (wb *web) preview(w http.ResponseWriter, r *http.Request, s webpage.Signed) {
	sc, err := wb.scope(r, s)
	if err != nil {
		wb.fail(w, r, err)
		return
	}
	q := url.Values{}
	for _, k := range []string{"pageId", "atMs", "scale"} {
		if v := r.URL.Query().Get(k); v != "" {
			q.Set(k, v)
		}
	}
	res, err := wb.forward(r, s, call{method: http.MethodGet, path: sc.api() + "/designs/" + url.PathEscape(mux.Vars(r)["designId"]) + "/preview",
		query: q, after: after(r)}, nil)
	if err != nil {
		wb.fail(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "image/png")
	w.Header().Set("Cache-Control", "private, no-store")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	_, _ = w.Write(res.body.Bytes())
}

// designURL is the design page of a form's design, with a note and the
// position to wait for.
func designURL(r *http.Request, sc scope, pageID, done string, res *recorded) string {
	q := url.Values{"workspace": {sc.id}, "done": {done}}
	if pageID != "" {
		q.Set("pageId", pageID)
	}
	if res != nil {
		if pos := res.header.Get(httpapi.HeaderPosition); pos != "" {
			q.Set("after", pos)
		}
	}
	return "/app/designs/" + url.PathEscape(mux.Vars(r)["designId"]) + "?" + q.Encode()
}

// changeLayer is the layer form: a text's text and colour, a shape's fill
// from the pinned kit's palette, sent to designs.layers.update. What the
// API refuses (422 at the member) is shown on the design page.
func (wb *web) changeLayer(w http.ResponseWriter, r *http.Request, s webpage.Signed) {
	sc, err := wb.scope(r, s)
	if err != nil {
		wb.fail(w, r, err)
		return
	}
	pageID, layerID := r.PostForm.Get("pageId"), r.PostForm.Get("layerId")
	change := map[string]any{}
	if _, ok := r.PostForm["text"]; ok {
		// Browsers send a textarea's line breaks as CRLF.
		change["text"] = strings.ReplaceAll(r.PostForm.Get("text"), "\r\n", "\n")
	}
	if fill := r.PostForm.Get("fill"); fill != "" {
		change["fill"] = fill
	}
	if len(change) == 0 {
		wb.showDesign(w, r, s, http.StatusUnprocessableEntity, "Change the text or pick a colour.")
		return
	}
	path := sc.api() + "/designs/" + url.PathEscape(mux.Vars(r)["designId"]) + "/pages/" + url.PathEscape(pageID) + "/layers/" + url.PathEscape(layerID)
	res, err := wb.forward(r, s, call{method: http.MethodPatch, path: path, body: change, key: r.PostForm.Get("key")}, nil)
	if errs.KindOf(err) == errs.KindInvalidInput || errs.KindOf(err) == errs.KindConflict {
		wb.showDesign(w, r, s, statusOf(err), "Not saved: "+webpage.ProblemText(err))
		return
	}
	if err != nil {
		wb.fail(w, r, err)
		return
	}
	http.Redirect(w, r, designURL(r, sc, pageID, "saved", res), http.StatusSeeOther)
}

func statusOf(err error) int {
	if errs.KindOf(err) == errs.KindConflict {
		return http.StatusConflict
	}
	return http.StatusUnprocessableEntity
}

// export is the export buttons: designs.exports.create with the format
// pressed (a still of the page shown).
func (wb *web) export(w http.ResponseWriter, r *http.Request, s webpage.Signed) {
	sc, err := wb.scope(r, s)
	if err != nil {
		wb.fail(w, r, err)
		return
	}
	in := map[string]any{"format": r.PostForm.Get("format")}
	pageID := r.PostForm.Get("pageId")
	if pageID != "" && in["format"] != domain.FormatMP4 {
		in["pageId"] = pageID
	}
	// One form, a button per format: each button's request has a key of
	// its own.
	key := r.PostForm.Get("key")
	if key != "" {
		key += "-" + r.PostForm.Get("format")
	}
	res, err := wb.forward(r, s, call{method: http.MethodPost, path: sc.api() + "/designs/" + url.PathEscape(mux.Vars(r)["designId"]) + "/exports",
		body: in, key: key}, nil)
	if errs.KindOf(err) == errs.KindInvalidInput || errs.KindOf(err) == errs.KindConflict {
		wb.showDesign(w, r, s, statusOf(err), "Not exported: "+webpage.ProblemText(err))
		return
	}
	if err != nil {
		wb.fail(w, r, err)
		return
	}
	http.Redirect(w, r, designURL(r, sc, pageID, "queued", res)+"#exports", http.StatusSeeOther)
}

// download sends the browser to a ready export's signed, expiring link
// (exports.download).
func (wb *web) download(w http.ResponseWriter, r *http.Request, s webpage.Signed) {
	sc, err := wb.scope(r, s)
	if err != nil {
		wb.fail(w, r, err)
		return
	}
	var link struct {
		URL string `json:"url"`
	}
	if err := wb.get(r, s, sc.api()+"/exports/"+url.PathEscape(mux.Vars(r)["exportId"])+"/download", nil, &link); err != nil {
		wb.fail(w, r, err)
		return
	}
	w.Header().Set("Cache-Control", "private, no-store")
	http.Redirect(w, r, link.URL, http.StatusSeeOther)
}
