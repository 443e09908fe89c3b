// Package fake is a local Facebook Graph API for tests and the sandbox:
// the login dialog and the token endpoint (code with PKCE, then
// fb_exchange_token for long-lived tokens), /me/permissions, /me/accounts
// with page tokens, POST /{page-id}/feed and /{page-id}/photos, and GET
// /{page-id}/feed, with Graph's error bodies and usage headers. Every
// request is recorded, every accepted post counted, ids are deterministic,
// and faults are scripted through socialfake.Core.
package fake

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/platform/backend/providers/social"
	"github.com/platform/backend/providers/social/graphapi/graphfake"
	"github.com/platform/backend/providers/social/socialfake"
)

// The user who connects and the page they manage.
const (
	UserID   = "10200000000000001"
	PageID   = "104000000000001"
	PageName = "Fake Bistro"
)

// Scopes are the permissions Connection grants.
func Scopes() []string {
	return []string{"pages_show_list", "pages_manage_posts", "pages_read_engagement"}
}

// Fake is a local Facebook.
type Fake struct {
	*socialfake.Core

	mu         sync.Mutex
	pages      []page            // the pages the user manages, PageID first
	pageTokens map[string]string // user access token and page id -> page access token
}

// page is one page the user manages.
type page struct{ id, name string }

// New builds the fake without starting a server (mount Handler anywhere).
func New(opts socialfake.Options) *Fake {
	f := &Fake{pageTokens: map[string]string{}, pages: []page{{PageID, PageName}}}
	f.Core = socialfake.NewCore(graphfake.Dialect{Business: PageID}, opts)
	f.SetUser(UserID)
	// A code gives a short-lived user token; fb_exchange_token a 60-day one.
	f.SetTokenPolicy(socialfake.TokenPolicy{AccessTTL: 2 * time.Hour})
	return f
}

// Start builds the fake and serves it on 127.0.0.1; Close stops it.
func Start(opts socialfake.Options) *Fake {
	f := New(opts)
	f.Serve(f.Handler())
	return f
}

// Connection is a connected user with the page chosen (its page token).
func (f *Fake) Connection() social.Connection {
	g := f.IssueGrant(UserID, Scopes())
	return social.Connection{
		Token:   g.Token(),
		Account: social.Account{ID: PageID, Kind: social.AccountPage, Name: PageName, AccessToken: f.pageToken(g.Access, PageID, g.Scopes)},
	}
}

// AddPage makes the user manage another page: /me/accounts lists it after
// the others, with its own page token (a person who picked two pages in
// Facebook's dialog).
func (f *Fake) AddPage(id, name string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.pages = append(f.pages, page{id, name})
}

// pageToken is the page's token for a user token (made once per user
// token, as a page token made from a long-lived user token does not
// expire).
func (f *Fake) pageToken(userToken, pageID string, scopes []string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	key := userToken + "\x00" + pageID
	if t, ok := f.pageTokens[key]; ok {
		return t
	}
	t := f.IssueGrantFor(pageID, scopes, 0)
	f.pageTokens[key] = t
	return t
}

// Handler serves Facebook's routes under any Graph version.
func (f *Fake) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{version}/dialog/oauth", func(w http.ResponseWriter, r *http.Request) {
		f.Authorize(w, r, socialfake.AuthorizeDialect{ScopeSeparator: ","})
	})
	mux.HandleFunc("GET /{version}/oauth/access_token", f.token)
	mux.HandleFunc("GET /{version}/me/permissions", f.permissions)
	mux.HandleFunc("GET /{version}/me/accounts", f.accounts)
	mux.HandleFunc("POST /{version}/{page}/feed", f.publish)
	mux.HandleFunc("POST /{version}/{page}/photos", f.publish)
	mux.HandleFunc("GET /{version}/{page}/feed", f.feed)
	return mux
}

func (f *Fake) token(w http.ResponseWriter, r *http.Request) {
	call, ok := f.Begin(w, r, socialfake.OpToken, false)
	if !ok {
		return
	}
	q := r.URL.Query()
	if !f.CheckClient(q.Get("client_id"), q.Get("client_secret"), false) {
		call.Problem(socialfake.Problem{Kind: socialfake.ProblemClientInvalid})
		return
	}
	var g socialfake.Grant
	var p socialfake.Problem
	if q.Get("grant_type") == "fb_exchange_token" {
		g, p, ok = f.RenewAccess(q.Get("fb_exchange_token"), 60*24*time.Hour)
	} else {
		g, p, ok = f.RedeemCode(q.Get("code"), q.Get("code_verifier"), q.Get("redirect_uri"))
	}
	if !ok {
		call.Problem(p)
		return
	}
	socialfake.WriteJSON(w, http.StatusOK, map[string]any{"access_token": g.Access, "token_type": "bearer", "expires_in": f.ExpiresIn(g)})
}

func (f *Fake) permissions(w http.ResponseWriter, r *http.Request) {
	call, ok := f.Begin(w, r, socialfake.OpAccounts, true)
	if !ok {
		return
	}
	data := []map[string]string{{"permission": "public_profile", "status": "granted"}}
	for _, s := range call.Grant.Scopes {
		data = append(data, map[string]string{"permission": s, "status": "granted"})
	}
	socialfake.WriteJSON(w, http.StatusOK, map[string]any{"data": data})
}

func (f *Fake) accounts(w http.ResponseWriter, r *http.Request) {
	call, ok := f.Begin(w, r, socialfake.OpAccounts, true)
	if !ok || !call.NeedScope("pages_show_list") {
		return
	}
	f.mu.Lock()
	pages := append([]page(nil), f.pages...)
	f.mu.Unlock()
	data := make([]map[string]any, 0, len(pages))
	for _, p := range pages {
		data = append(data, map[string]any{"id": p.id, "name": p.name, "access_token": f.pageToken(socialfake.BearerOrParam(r), p.id, call.Grant.Scopes),
			"category": "Restaurant", "tasks": []string{"ADVERTISE", "ANALYZE", "CREATE_CONTENT", "MODERATE", "MANAGE"}})
	}
	socialfake.WriteJSON(w, http.StatusOK, map[string]any{
		"data":   data,
		"paging": map[string]any{"cursors": map[string]string{"before": "QVFI", "after": "QVFI"}},
	})
}

func (f *Fake) publish(w http.ResponseWriter, r *http.Request) {
	call, ok := f.Begin(w, r, socialfake.OpPost, true)
	if !ok {
		return
	}
	page := r.PathValue("page")
	if call.Grant.Account != page {
		// Posting as a page takes that page's token.
		call.Problem(socialfake.Problem{Kind: socialfake.ProblemScopeMissing, Reason: "page token"})
		return
	}
	if !call.NeedScope("pages_manage_posts") {
		return
	}
	form, _ := url.ParseQuery(string(call.Body))
	message, link, image := form.Get("message"), form.Get("link"), form.Get("url")
	photo := strings.HasSuffix(r.URL.Path, "/photos")
	switch {
	case utf8.RuneCountInString(message) > 63206:
		call.Problem(socialfake.Problem{Kind: socialfake.ProblemRejected, Reason: socialfake.ReasonTooLong})
		return
	case photo && !strings.HasPrefix(image, "http"):
		call.Problem(socialfake.Problem{Kind: socialfake.ProblemRejected, Reason: socialfake.ReasonMediaInvalid})
		return
	case !photo && message == "" && link == "":
		call.Problem(socialfake.Problem{Kind: socialfake.ProblemInvalid, Reason: "message"})
		return
	}
	post := socialfake.Post{Account: page, Text: message, Link: link, ID: page + "_" + graphfake.ID("12", f.Seq("post"))}
	if photo {
		post.Media = []string{image}
	}
	post.URL = socialfake.BaseURL(r) + "/" + post.ID
	post, _ = f.Accept(post)
	if call.Accepted() {
		return
	}
	if photo {
		socialfake.WriteJSON(w, http.StatusOK, map[string]string{"id": graphfake.ID("13", f.Seq("photo")), "post_id": post.ID})
		return
	}
	socialfake.WriteJSON(w, http.StatusOK, map[string]string{"id": post.ID})
}

func (f *Fake) feed(w http.ResponseWriter, r *http.Request) {
	call, ok := f.Begin(w, r, socialfake.OpLookup, true)
	if !ok || !call.NeedScope("pages_read_engagement") {
		return
	}
	q := r.URL.Query()
	var since time.Time
	if s := q.Get("since"); s != "" {
		secs, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			call.Problem(socialfake.Problem{Kind: socialfake.ProblemInvalid, Reason: "since"})
			return
		}
		since = time.Unix(secs, 0)
	}
	limit, _ := strconv.Atoi(q.Get("limit"))
	if limit <= 0 || limit > 100 {
		limit = 25
	}
	data := []map[string]any{}
	for _, p := range f.Recent(r.PathValue("page"), since, limit) {
		item := map[string]any{"id": p.ID, "created_time": p.Created.UTC().Format("2006-01-02T15:04:05+0000"), "permalink_url": p.URL}
		if p.Text != "" {
			item["message"] = p.Text
		}
		data = append(data, item)
	}
	socialfake.WriteJSON(w, http.StatusOK, map[string]any{"data": data})
}
