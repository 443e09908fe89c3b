// Package fake is a local Mastodon instance for tests and the sandbox: the
// OAuth authorize and token endpoints (PKCE S256; tokens that do not
// expire), verify_credentials, POST /api/v2/media (202 while processing)
// and GET /api/v1/media/{id}, POST /api/v1/statuses honouring
// Idempotency-Key, and the account's statuses, with Mastodon's {"error"}
// bodies and X-RateLimit-* headers. Every request is recorded, every
// accepted status counted (a repeated Idempotency-Key answers the first
// status and is not counted), ids are deterministic, and faults are
// scripted through socialfake.Core.
package fake

import (
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/platform/backend/providers/social"
	"github.com/platform/backend/providers/social/socialfake"
)

// The account that connects.
const (
	AccountID   = "109000000000000001"
	Username    = "fakebistro"
	DisplayName = "Fake Bistro"
)

// Scopes are the scopes Connection grants.
func Scopes() []string {
	return []string{"read:accounts", "read:statuses", "write:statuses", "write:media"}
}

// Fake is a local Mastodon instance.
type Fake struct {
	*socialfake.Core

	mu         sync.Mutex
	media      map[string]int // media id -> processing polls left
	processing int
}

// New builds the fake without starting a server (mount Handler anywhere).
func New(opts socialfake.Options) *Fake {
	f := &Fake{media: map[string]int{}}
	f.Core = socialfake.NewCore(dialect{f}, opts)
	f.SetUser(AccountID)
	f.SetTokenPolicy(socialfake.TokenPolicy{}) // tokens never expire, no refresh tokens
	return f
}

// Start builds the fake and serves it on 127.0.0.1; Close stops it.
func Start(opts socialfake.Options) *Fake {
	f := New(opts)
	f.Serve(f.Handler())
	return f
}

// Connection is a connected account with every scope.
func (f *Fake) Connection() social.Connection {
	return f.Connect(social.Account{ID: AccountID, Kind: social.AccountPerson, Name: DisplayName, Handle: Username}, Scopes())
}

// ProcessingPolls makes new uploads answer 202 and then 206 to their first
// n GET /api/v1/media/{id} (0, the default: processed at once).
func (f *Fake) ProcessingPolls(n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.processing = n
}

// Handler serves Mastodon's routes.
func (f *Fake) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /oauth/authorize", func(w http.ResponseWriter, r *http.Request) {
		f.Authorize(w, r, socialfake.AuthorizeDialect{})
	})
	mux.HandleFunc("POST /oauth/token", f.token)
	mux.HandleFunc("GET /api/v1/accounts/verify_credentials", f.verifyCredentials)
	mux.HandleFunc("POST /api/v2/media", f.upload)
	mux.HandleFunc("GET /api/v1/media/{id}", f.mediaStatus)
	mux.HandleFunc("POST /api/v1/statuses", f.postStatus)
	mux.HandleFunc("GET /api/v1/accounts/{id}/statuses", f.statuses)
	return mux
}

// allowed follows Mastodon's scope hierarchy: "write" covers
// "write:statuses".
func allowed(call *socialfake.Call, scope string) bool {
	top, _, _ := strings.Cut(scope, ":")
	if slices.Contains(call.Grant.Scopes, scope) || slices.Contains(call.Grant.Scopes, top) {
		return true
	}
	call.Problem(socialfake.Problem{Kind: socialfake.ProblemScopeMissing, Reason: scope})
	return false
}

func (f *Fake) token(w http.ResponseWriter, r *http.Request) {
	g, ok := f.Token(w, r, socialfake.TokenClient{})
	if !ok {
		return
	}
	answer := map[string]any{"access_token": g.Access, "token_type": "Bearer", "scope": socialfake.JoinScopes(g.Scopes, " "), "created_at": f.Now().Unix()}
	if g.Refresh != "" {
		answer["refresh_token"] = g.Refresh
	}
	socialfake.WriteJSON(w, http.StatusOK, answer)
}

func account(base string) map[string]any {
	return map[string]any{"id": AccountID, "username": Username, "acct": Username, "display_name": DisplayName,
		"url": base + "/@" + Username, "locked": false, "bot": false}
}

func (f *Fake) verifyCredentials(w http.ResponseWriter, r *http.Request) {
	call, ok := f.Begin(w, r, socialfake.OpAccounts, true)
	if !ok || !allowed(call, "read:accounts") {
		return
	}
	socialfake.WriteJSON(w, http.StatusOK, account(socialfake.BaseURL(r)))
}

func (f *Fake) upload(w http.ResponseWriter, r *http.Request) {
	call, ok := f.Begin(w, r, socialfake.OpMedia, true)
	if !ok || !allowed(call, "write:media") {
		return
	}
	file, header, err := r.FormFile("file")
	if err != nil || header.Size == 0 {
		call.Problem(socialfake.Problem{Kind: socialfake.ProblemRejected, Reason: socialfake.ReasonMediaInvalid})
		return
	}
	_ = file.Close()
	id := fmt.Sprintf("11%016d", f.Seq("media"))
	f.mu.Lock()
	polls := f.processing
	f.media[id] = polls
	f.mu.Unlock()
	m := map[string]any{"id": id, "type": "image", "description": r.FormValue("description"), "preview_url": socialfake.BaseURL(r) + "/media/" + id + "/small"}
	if polls > 0 {
		m["url"] = nil
		socialfake.WriteJSON(w, http.StatusAccepted, m)
		return
	}
	m["url"] = socialfake.BaseURL(r) + "/media/" + id
	socialfake.WriteJSON(w, http.StatusOK, m)
}

func (f *Fake) mediaStatus(w http.ResponseWriter, r *http.Request) {
	call, ok := f.Begin(w, r, socialfake.OpStatus, true)
	if !ok {
		return
	}
	id := r.PathValue("id")
	f.mu.Lock()
	polls, known := f.media[id]
	if known && polls > 0 {
		f.media[id] = polls - 1
	}
	f.mu.Unlock()
	switch {
	case !known:
		call.Problem(socialfake.Problem{Kind: socialfake.ProblemNotFound})
	case polls > 0:
		socialfake.WriteJSON(w, http.StatusPartialContent, map[string]any{"id": id, "type": "image", "url": nil})
	default:
		socialfake.WriteJSON(w, http.StatusOK, map[string]any{"id": id, "type": "image", "url": socialfake.BaseURL(r) + "/media/" + id})
	}
}

type statusRequest struct {
	Status      string   `json:"status"`
	InReplyToID string   `json:"in_reply_to_id"`
	MediaIDs    []string `json:"media_ids"`
	Visibility  string   `json:"visibility"`
}

func (f *Fake) postStatus(w http.ResponseWriter, r *http.Request) {
	call, ok := f.Begin(w, r, socialfake.OpPost, true)
	if !ok || !allowed(call, "write:statuses") {
		return
	}
	var in statusRequest
	if err := json.Unmarshal(call.Body, &in); err != nil {
		call.Problem(socialfake.Problem{Kind: socialfake.ProblemInvalid, Reason: "body"})
		return
	}
	switch {
	case in.Status == "" && len(in.MediaIDs) == 0:
		call.Problem(socialfake.Problem{Kind: socialfake.ProblemInvalid, Reason: "Validation failed: Text can't be blank"})
		return
	case utf8.RuneCountInString(in.Status) > 500:
		call.Problem(socialfake.Problem{Kind: socialfake.ProblemRejected, Reason: socialfake.ReasonTooLong})
		return
	case len(in.MediaIDs) > 4 || !f.processed(in.MediaIDs):
		call.Problem(socialfake.Problem{Kind: socialfake.ProblemRejected, Reason: socialfake.ReasonMediaInvalid})
		return
	}
	if in.InReplyToID != "" {
		if _, found := f.Post(in.InReplyToID); !found {
			call.Problem(socialfake.Problem{Kind: socialfake.ProblemNotFound})
			return
		}
	}
	if in.Visibility == "" {
		in.Visibility = "public"
	}
	post := socialfake.Post{Account: call.Grant.Account, Text: in.Status, ReplyTo: in.InReplyToID, Media: in.MediaIDs,
		Visibility: in.Visibility, IdempotencyKey: r.Header.Get("Idempotency-Key")}
	post.ID = fmt.Sprintf("11%016d", f.Seq("status"))
	post.URL = socialfake.BaseURL(r) + "/@" + Username + "/" + post.ID
	post, _ = f.Accept(post)
	if call.Accepted() {
		return
	}
	socialfake.WriteJSON(w, http.StatusOK, statusJSON(post, socialfake.BaseURL(r)))
}

func (f *Fake) processed(ids []string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, id := range ids {
		if polls, ok := f.media[id]; !ok || polls > 0 {
			return false
		}
	}
	return true
}

func (f *Fake) statuses(w http.ResponseWriter, r *http.Request) {
	call, ok := f.Begin(w, r, socialfake.OpLookup, true)
	if !ok || !allowed(call, "read:statuses") {
		return
	}
	limit, _ := strconv.Atoi(r.URL.Query().Get("limit"))
	if limit <= 0 || limit > 40 {
		limit = 20
	}
	out := []map[string]any{}
	for _, p := range f.Recent(r.PathValue("id"), time.Time{}, limit) {
		out = append(out, statusJSON(p, socialfake.BaseURL(r)))
	}
	socialfake.WriteJSON(w, http.StatusOK, out)
}

// statusJSON is the Status entity; content is HTML, as Mastodon renders it.
func statusJSON(p socialfake.Post, base string) map[string]any {
	var reply any
	if p.ReplyTo != "" {
		reply = p.ReplyTo
	}
	media := []map[string]any{}
	for _, id := range p.Media {
		media = append(media, map[string]any{"id": id, "type": "image", "url": base + "/media/" + id})
	}
	paragraphs := strings.Split(html.EscapeString(p.Text), "\n\n")
	for i, para := range paragraphs {
		paragraphs[i] = "<p>" + strings.ReplaceAll(para, "\n", "<br />") + "</p>"
	}
	return map[string]any{
		"id": p.ID, "created_at": p.Created.UTC().Format("2006-01-02T15:04:05.000Z"), "in_reply_to_id": reply,
		"visibility": p.Visibility, "uri": base + "/users/" + Username + "/statuses/" + p.ID, "url": p.URL,
		"content": strings.Join(paragraphs, ""), "media_attachments": media, "account": account(base),
		"replies_count": 0, "reblogs_count": 0, "favourites_count": 0, "sensitive": false, "spoiler_text": "",
	}
}
