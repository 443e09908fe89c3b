// Package fake is a local Instagram API with Instagram Login for tests and
// the sandbox: the authorize page, the code exchange
// (api.instagram.com/oauth/access_token, its own error shape), the
// ig_exchange_token and ig_refresh_token renewals, GET /me, media
// containers (single, reels, carousels with children) with status_code
// polling, media_publish, and the recent media list, with Graph's error
// bodies. Every request is recorded, every published post counted, ids are
// deterministic, and faults are scripted through socialfake.Core.
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

// The professional account that connects.
const (
	UserID   = "17841400000000001"
	Username = "fakebistro"
	Name     = "Fake Bistro"
)

// Scopes are the permissions Connection grants.
func Scopes() []string {
	return []string{"instagram_business_basic", "instagram_business_content_publish"}
}

// Fake is a local Instagram.
type Fake struct {
	*socialfake.Core

	mu         sync.Mutex
	containers map[string]*container
	processing int // status polls a new container answers IN_PROGRESS
}

type container struct {
	id, owner, mediaType, url, caption string
	children                           []string
	carouselItem                       bool
	polls                              int // IN_PROGRESS answers left
	status                             string
}

// New builds the fake without starting a server (mount Handler anywhere).
func New(opts socialfake.Options) *Fake {
	f := &Fake{containers: map[string]*container{}}
	f.Core = socialfake.NewCore(dialect{graphfake.Dialect{Business: UserID}}, opts)
	f.SetUser(UserID)
	// The code gives a one-hour token; the renewals 60-day ones.
	f.SetTokenPolicy(socialfake.TokenPolicy{AccessTTL: time.Hour})
	return f
}

// Start builds the fake and serves it on 127.0.0.1; Close stops it.
func Start(opts socialfake.Options) *Fake {
	f := New(opts)
	f.Serve(f.Handler())
	return f
}

// Connection is a connected account with every permission.
func (f *Fake) Connection() social.Connection {
	access := f.IssueGrantFor(UserID, Scopes(), 60*24*time.Hour)
	return social.Connection{
		Token:   social.Token{AccessToken: access, Expiry: f.Now().Add(60 * 24 * time.Hour), Scopes: Scopes(), Subject: UserID},
		Account: social.Account{ID: UserID, Kind: social.AccountPerson, Name: Name, Handle: Username},
	}
}

// ProcessingPolls makes new containers answer IN_PROGRESS to their first n
// status polls (0, the default: FINISHED at once).
func (f *Fake) ProcessingPolls(n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.processing = n
}

// ContainerStatus is a container's status_code ("" when unknown).
func (f *Fake) ContainerStatus(id string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	if c, ok := f.containers[id]; ok {
		return c.status
	}
	return ""
}

// Handler serves Instagram's routes.
func (f *Fake) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /oauth/authorize", func(w http.ResponseWriter, r *http.Request) {
		f.Authorize(w, r, socialfake.AuthorizeDialect{ScopeSeparator: ","})
	})
	mux.HandleFunc("POST /oauth/access_token", f.exchangeCode)
	mux.HandleFunc("GET /access_token", f.renew)
	mux.HandleFunc("GET /refresh_access_token", f.renew)
	mux.HandleFunc("GET /{version}/me", f.me)
	mux.HandleFunc("POST /{version}/{user}/media", f.createContainer)
	mux.HandleFunc("POST /{version}/{user}/media_publish", f.publish)
	mux.HandleFunc("GET /{version}/{user}/media", f.recent)
	mux.HandleFunc("GET /{version}/{id}", f.node)
	return mux
}

func (f *Fake) exchangeCode(w http.ResponseWriter, r *http.Request) {
	call, ok := f.Begin(w, r, socialfake.OpToken, false)
	if !ok {
		return
	}
	form, _ := url.ParseQuery(string(call.Body))
	if !f.CheckClient(form.Get("client_id"), form.Get("client_secret"), false) {
		call.Problem(socialfake.Problem{Kind: socialfake.ProblemClientInvalid})
		return
	}
	if form.Get("grant_type") != "authorization_code" {
		call.Problem(socialfake.Problem{Kind: socialfake.ProblemInvalid, Reason: "grant_type"})
		return
	}
	g, p, ok := f.RedeemCode(form.Get("code"), form.Get("code_verifier"), form.Get("redirect_uri"))
	if !ok {
		call.Problem(p)
		return
	}
	socialfake.WriteJSON(w, http.StatusOK, map[string]any{"data": []map[string]any{{
		"access_token": g.Access, "user_id": UserID, "permissions": socialfake.JoinScopes(g.Scopes, ","),
	}}})
}

func (f *Fake) renew(w http.ResponseWriter, r *http.Request) {
	call, ok := f.Begin(w, r, socialfake.OpToken, false)
	if !ok {
		return
	}
	q := r.URL.Query()
	want := "ig_refresh_token"
	if strings.HasSuffix(r.URL.Path, "/access_token") && !strings.HasSuffix(r.URL.Path, "/refresh_access_token") {
		want = "ig_exchange_token"
		if q.Get("client_secret") != f.ClientSecret() {
			call.Problem(socialfake.Problem{Kind: socialfake.ProblemClientInvalid})
			return
		}
	}
	if q.Get("grant_type") != want {
		call.Problem(socialfake.Problem{Kind: socialfake.ProblemInvalid, Reason: "grant_type"})
		return
	}
	g, p, ok := f.RenewAccess(q.Get("access_token"), 60*24*time.Hour)
	if !ok {
		call.Problem(p)
		return
	}
	socialfake.WriteJSON(w, http.StatusOK, map[string]any{"access_token": g.Access, "token_type": "bearer", "expires_in": f.ExpiresIn(g)})
}

func (f *Fake) me(w http.ResponseWriter, r *http.Request) {
	call, ok := f.Begin(w, r, socialfake.OpAccounts, true)
	if !ok || !call.NeedScope("instagram_business_basic") {
		return
	}
	socialfake.WriteJSON(w, http.StatusOK, map[string]string{"user_id": call.Grant.Account, "username": Username, "name": Name, "id": "27000000000000001"})
}

func (f *Fake) owner(call *socialfake.Call) bool {
	if call.R.PathValue("user") != call.Grant.Account {
		call.Problem(socialfake.Problem{Kind: socialfake.ProblemScopeMissing, Reason: "owner"})
		return false
	}
	return call.NeedScope("instagram_business_content_publish")
}

func (f *Fake) createContainer(w http.ResponseWriter, r *http.Request) {
	call, ok := f.Begin(w, r, socialfake.OpMedia, true)
	if !ok || !f.owner(call) {
		return
	}
	form, _ := url.ParseQuery(string(call.Body))
	c := &container{owner: call.Grant.Account, caption: form.Get("caption"), carouselItem: form.Get("is_carousel_item") == "true",
		mediaType: form.Get("media_type"), url: form.Get("image_url")}
	if c.mediaType == "" {
		c.mediaType = "IMAGE"
	}
	if c.mediaType == "REELS" || c.mediaType == "VIDEO" {
		c.url = form.Get("video_url")
	}
	reject := func(reason string) {
		call.Problem(socialfake.Problem{Kind: socialfake.ProblemRejected, Reason: reason})
	}
	switch {
	case utf8.RuneCountInString(c.caption) > 2200:
		reject(socialfake.ReasonTooLong)
		return
	case c.mediaType == "CAROUSEL":
		c.children = strings.Split(form.Get("children"), ",")
		if len(c.children) < 2 || len(c.children) > 10 || !f.finishedItems(c.owner, c.children) {
			reject(socialfake.ReasonMediaInvalid)
			return
		}
	case !strings.HasPrefix(c.url, "http"):
		reject(socialfake.ReasonMediaInvalid)
		return
	}
	f.mu.Lock()
	c.id = graphfake.ID("179", f.Seq("container"))
	c.polls, c.status = f.processing, "IN_PROGRESS"
	if c.polls == 0 {
		c.status = "FINISHED"
	}
	f.containers[c.id] = c
	f.mu.Unlock()
	socialfake.WriteJSON(w, http.StatusOK, map[string]string{"id": c.id})
}

func (f *Fake) finishedItems(owner string, ids []string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, id := range ids {
		c, ok := f.containers[id]
		if !ok || c.owner != owner || !c.carouselItem || c.status != "FINISHED" {
			return false
		}
	}
	return true
}

func (f *Fake) publish(w http.ResponseWriter, r *http.Request) {
	call, ok := f.Begin(w, r, socialfake.OpPost, true)
	if !ok || !f.owner(call) {
		return
	}
	form, _ := url.ParseQuery(string(call.Body))
	f.mu.Lock()
	c, found := f.containers[form.Get("creation_id")]
	status := ""
	if found {
		status = c.status
	}
	f.mu.Unlock()
	switch {
	case !found || c.owner != call.Grant.Account || c.carouselItem:
		call.Problem(socialfake.Problem{Kind: socialfake.ProblemNotFound})
		return
	case status == "PUBLISHED":
		call.Problem(socialfake.Problem{Kind: socialfake.ProblemRejected, Reason: socialfake.ReasonDuplicate})
		return
	case status != "FINISHED":
		w.Header().Set("Content-Type", "application/json")
		graphfake.Write(w, graphfake.Error{Status: 400, Code: 9007, Subcode: 2207027, Message: "Media ID is not available"})
		return
	}
	n := f.Seq("media")
	post := socialfake.Post{ID: graphfake.ID("180", n), Account: c.owner, Text: c.caption, Media: []string{c.url},
		URL: socialfake.BaseURL(r) + "/p/FAKE" + strconv.Itoa(n) + "/"}
	post.Media = append(post.Media, c.children...)
	f.mu.Lock()
	c.status = "PUBLISHED"
	f.mu.Unlock()
	post, _ = f.Accept(post)
	if call.Accepted() {
		return
	}
	socialfake.WriteJSON(w, http.StatusOK, map[string]string{"id": post.ID})
}

// node answers GET /{id}: a container's status, or a media's fields.
func (f *Fake) node(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	f.mu.Lock()
	c, isContainer := f.containers[id]
	f.mu.Unlock()
	op := socialfake.OpLookup
	if isContainer {
		op = socialfake.OpStatus
	}
	call, ok := f.Begin(w, r, op, true)
	if !ok {
		return
	}
	if isContainer {
		f.mu.Lock()
		if c.polls > 0 {
			c.polls--
			if c.polls == 0 && c.status == "IN_PROGRESS" {
				c.status = "FINISHED"
			}
		}
		status := c.status
		f.mu.Unlock()
		socialfake.WriteJSON(w, http.StatusOK, map[string]string{"status_code": status, "status": status, "id": id})
		return
	}
	post, found := f.Post(id)
	if !found || post.Account != call.Grant.Account {
		call.Problem(socialfake.Problem{Kind: socialfake.ProblemNotFound})
		return
	}
	socialfake.WriteJSON(w, http.StatusOK, mediaJSON(post))
}

func (f *Fake) recent(w http.ResponseWriter, r *http.Request) {
	call, ok := f.Begin(w, r, socialfake.OpLookup, true)
	if !ok || !call.NeedScope("instagram_business_basic") {
		return
	}
	limit, _ := strconv.Atoi(r.URL.Query().Get("limit"))
	if limit <= 0 || limit > 100 {
		limit = 25
	}
	data := []map[string]any{}
	for _, p := range f.Recent(r.PathValue("user"), time.Time{}, limit) {
		data = append(data, mediaJSON(p))
	}
	socialfake.WriteJSON(w, http.StatusOK, map[string]any{"data": data, "paging": map[string]any{"cursors": map[string]string{"before": "QVFI", "after": "QVFI"}}})
}

func mediaJSON(p socialfake.Post) map[string]any {
	m := map[string]any{"id": p.ID, "permalink": p.URL, "timestamp": p.Created.UTC().Format("2006-01-02T15:04:05+0000"), "media_type": "IMAGE"}
	if p.Text != "" {
		m["caption"] = p.Text
	}
	return m
}
