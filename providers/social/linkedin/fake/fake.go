// Package fake is a local LinkedIn for tests and the sandbox: the OAuth 2.0
// authorization and accessToken endpoints, GET /v2/userinfo, the Images API
// (initializeUpload and the upload PUT), POST /rest/posts (answering the
// post URN in x-restli-id) and GET /rest/posts?q=author, with LinkedIn's
// version headers checked and its error bodies. Every request is recorded,
// every accepted post counted, ids are deterministic, and faults are
// scripted through socialfake.Core.
package fake

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/platform/backend/providers/social"
	"github.com/platform/backend/providers/social/socialfake"
)

// The member who connects.
const (
	MemberSub  = "fakeMember01"
	MemberURN  = "urn:li:person:" + MemberSub
	MemberName = "Fake Member"
)

// Scopes are the scopes Connection grants.
func Scopes() []string { return []string{"openid", "profile", "w_member_social", "r_member_social"} }

// Fake is a local LinkedIn.
type Fake struct {
	*socialfake.Core

	mu     sync.Mutex
	images map[string]bool // image URN -> bytes uploaded
}

// New builds the fake without starting a server (mount Handler anywhere).
func New(opts socialfake.Options) *Fake {
	f := &Fake{images: map[string]bool{}}
	f.Core = socialfake.NewCore(dialect{f}, opts)
	f.SetUser(MemberURN)
	f.SetTokenPolicy(socialfake.TokenPolicy{AccessTTL: 60 * 24 * time.Hour, Refresh: true, RefreshTTL: 365 * 24 * time.Hour})
	return f
}

// Start builds the fake and serves it on 127.0.0.1; Close stops it.
func Start(opts socialfake.Options) *Fake {
	f := New(opts)
	f.Serve(f.Handler())
	return f
}

// Connection is a connected member with every scope.
func (f *Fake) Connection() social.Connection {
	return f.Connect(social.Account{ID: MemberURN, Kind: social.AccountPerson, Name: MemberName}, Scopes())
}

// Handler serves LinkedIn's routes.
func (f *Fake) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /oauth/v2/authorization", func(w http.ResponseWriter, r *http.Request) {
		f.Authorize(w, r, socialfake.AuthorizeDialect{})
	})
	mux.HandleFunc("POST /oauth/v2/accessToken", f.token)
	mux.HandleFunc("GET /v2/userinfo", f.userinfo)
	mux.HandleFunc("POST /rest/images", f.initializeUpload)
	mux.HandleFunc("PUT /dms-uploads/{image}", f.uploadBytes)
	mux.HandleFunc("POST /rest/posts", f.createPost)
	mux.HandleFunc("GET /rest/posts", f.postsByAuthor)
	return mux
}

func (f *Fake) token(w http.ResponseWriter, r *http.Request) {
	g, ok := f.Token(w, r, socialfake.TokenClient{})
	if !ok {
		return
	}
	socialfake.WriteJSON(w, http.StatusOK, map[string]any{
		"access_token": g.Access, "expires_in": f.ExpiresIn(g),
		"refresh_token": g.Refresh, "refresh_token_expires_in": f.RefreshExpiresIn(g),
		"scope": socialfake.JoinScopes(g.Scopes, ","),
	})
}

func (f *Fake) userinfo(w http.ResponseWriter, r *http.Request) {
	call, ok := f.Begin(w, r, socialfake.OpAccounts, true)
	if !ok || !call.NeedScope("openid") {
		return
	}
	socialfake.WriteJSON(w, http.StatusOK, map[string]any{"sub": strings.TrimPrefix(call.Grant.Account, "urn:li:person:"),
		"name": MemberName, "given_name": "Fake", "family_name": "Member", "locale": map[string]string{"country": "US", "language": "en"}})
}

// versioned checks the headers of the versioned API, as LinkedIn does.
func versioned(call *socialfake.Call) bool {
	v := call.R.Header.Get("LinkedIn-Version")
	if len(v) != 6 {
		call.Problem(socialfake.Problem{Kind: socialfake.ProblemInvalid, Reason: "version"})
		return false
	}
	if call.R.Header.Get("X-Restli-Protocol-Version") != "2.0.0" {
		call.Problem(socialfake.Problem{Kind: socialfake.ProblemInvalid, Reason: "protocol"})
		return false
	}
	return true
}

func (f *Fake) initializeUpload(w http.ResponseWriter, r *http.Request) {
	call, ok := f.Begin(w, r, socialfake.OpMedia, true)
	if !ok || !call.NeedScope("w_member_social") || !versioned(call) {
		return
	}
	var in struct {
		InitializeUploadRequest struct {
			Owner string `json:"owner"`
		} `json:"initializeUploadRequest"`
	}
	if r.URL.Query().Get("action") != "initializeUpload" || json.Unmarshal(call.Body, &in) != nil || in.InitializeUploadRequest.Owner != call.Grant.Account {
		call.Problem(socialfake.Problem{Kind: socialfake.ProblemInvalid, Reason: "owner"})
		return
	}
	id := fmt.Sprintf("C4E10AQ%011d", f.Seq("image"))
	f.mu.Lock()
	f.images["urn:li:image:"+id] = false
	f.mu.Unlock()
	socialfake.WriteJSON(w, http.StatusOK, map[string]any{"value": map[string]any{
		"uploadUrlExpiresAt": f.Now().Add(time.Hour).UnixMilli(),
		"uploadUrl":          socialfake.BaseURL(r) + "/dms-uploads/" + id,
		"image":              "urn:li:image:" + id,
	}})
}

func (f *Fake) uploadBytes(w http.ResponseWriter, r *http.Request) {
	call, ok := f.Begin(w, r, socialfake.OpMedia, true)
	if !ok {
		return
	}
	urn := "urn:li:image:" + r.PathValue("image")
	f.mu.Lock()
	_, known := f.images[urn]
	if known && len(call.Body) > 0 {
		f.images[urn] = true
	}
	f.mu.Unlock()
	if !known || len(call.Body) == 0 {
		call.Problem(socialfake.Problem{Kind: socialfake.ProblemRejected, Reason: socialfake.ReasonMediaInvalid})
		return
	}
	w.WriteHeader(http.StatusCreated)
}

type postRequest struct {
	Author       string `json:"author"`
	Commentary   string `json:"commentary"`
	Visibility   string `json:"visibility"`
	Distribution *struct {
		FeedDistribution string `json:"feedDistribution"`
	} `json:"distribution"`
	Content *struct {
		Media *struct {
			ID string `json:"id"`
		} `json:"media"`
		Article *struct {
			Source string `json:"source"`
			Title  string `json:"title"`
		} `json:"article"`
	} `json:"content"`
	LifecycleState string `json:"lifecycleState"`
}

func (f *Fake) createPost(w http.ResponseWriter, r *http.Request) {
	call, ok := f.Begin(w, r, socialfake.OpPost, true)
	if !ok || !call.NeedScope("w_member_social") || !versioned(call) {
		return
	}
	var in postRequest
	if err := json.Unmarshal(call.Body, &in); err != nil || in.Distribution == nil || in.LifecycleState != "PUBLISHED" ||
		(in.Visibility != "PUBLIC" && in.Visibility != "CONNECTIONS") {
		call.Problem(socialfake.Problem{Kind: socialfake.ProblemInvalid, Reason: "body"})
		return
	}
	if in.Author != call.Grant.Account {
		call.Problem(socialfake.Problem{Kind: socialfake.ProblemScopeMissing, Reason: "author"})
		return
	}
	text := unescape(in.Commentary)
	if utf8.RuneCountInString(text) > 3000 {
		call.Problem(socialfake.Problem{Kind: socialfake.ProblemRejected, Reason: socialfake.ReasonTooLong})
		return
	}
	post := socialfake.Post{Account: in.Author, Text: text, Visibility: in.Visibility}
	if in.Content != nil && in.Content.Media != nil {
		f.mu.Lock()
		uploaded := f.images[in.Content.Media.ID]
		f.mu.Unlock()
		if !uploaded {
			call.Problem(socialfake.Problem{Kind: socialfake.ProblemRejected, Reason: socialfake.ReasonMediaInvalid})
			return
		}
		post.Media = []string{in.Content.Media.ID}
	}
	if in.Content != nil && in.Content.Article != nil {
		post.Link, post.Title = in.Content.Article.Source, in.Content.Article.Title
	}
	post.ID = fmt.Sprintf("urn:li:share:70%017d", f.Seq("share"))
	post.URL = socialfake.BaseURL(r) + "/feed/update/" + post.ID + "/"
	post, _ = f.Accept(post)
	if call.Accepted() {
		return
	}
	w.Header().Set("x-restli-id", post.ID)
	w.WriteHeader(http.StatusCreated)
}

func (f *Fake) postsByAuthor(w http.ResponseWriter, r *http.Request) {
	call, ok := f.Begin(w, r, socialfake.OpLookup, true)
	if !ok || !call.NeedScope("r_member_social") || !versioned(call) {
		return
	}
	q := r.URL.Query()
	if q.Get("q") != "author" || q.Get("author") == "" {
		call.Problem(socialfake.Problem{Kind: socialfake.ProblemInvalid, Reason: "finder"})
		return
	}
	count, _ := strconv.Atoi(q.Get("count"))
	if count <= 0 || count > 100 {
		count = 10
	}
	posts := f.Recent(q.Get("author"), time.Time{}, count)
	elements := make([]map[string]any, 0, len(posts))
	for _, p := range posts {
		elements = append(elements, map[string]any{
			"id": p.ID, "author": p.Account, "commentary": escape(p.Text), "visibility": p.Visibility,
			"createdAt": p.Created.UnixMilli(), "publishedAt": p.Created.UnixMilli(), "lastModifiedAt": p.Created.UnixMilli(),
			"lifecycleState": "PUBLISHED", "isReshareDisabledByAuthor": false,
			"distribution": map[string]any{"feedDistribution": "MAIN_FEED", "targetEntities": []any{}, "thirdPartyDistributionChannels": []any{}},
		})
	}
	socialfake.WriteJSON(w, http.StatusOK, map[string]any{"elements": elements,
		"paging": map[string]any{"start": 0, "count": count, "links": []any{}}})
}

// LinkedIn's little text, as the fake reads and writes it.
const reserved = `\|{}@[]()<>#*_~`

func escape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(reserved, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

func unescape(s string) string {
	var b strings.Builder
	escaped := false
	for _, r := range s {
		if r == '\\' && !escaped {
			escaped = true
			continue
		}
		escaped = false
		b.WriteRune(r)
	}
	return b.String()
}
