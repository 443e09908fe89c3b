// Package fake is a local X API v2 for tests and the sandbox: the OAuth 2.0
// authorize and token endpoints (PKCE S256, rotating refresh tokens), GET
// /2/users/me, POST /2/media/upload, POST /2/tweets (replies, media ids) and
// GET /2/users/{id}/tweets, with X's error bodies and rate-limit headers.
// Every request is recorded, every accepted post counted, ids are
// deterministic, and faults are scripted through socialfake.Core.
package fake

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/platform/backend/providers/social"
	"github.com/platform/backend/providers/social/socialfake"
)

// The user who connects.
const (
	UserID   = "2244994945"
	Username = "fakeuser"
	UserName = "Fake User"
)

// Scopes are the scopes Connection grants.
func Scopes() []string {
	return []string{"tweet.read", "tweet.write", "users.read", "media.write", "offline.access"}
}

// Fake is a local X.
type Fake struct {
	*socialfake.Core

	mu    sync.Mutex
	media map[string]bool
}

// New builds the fake without starting a server (mount Handler anywhere).
func New(opts socialfake.Options) *Fake {
	f := &Fake{media: map[string]bool{}}
	f.Core = socialfake.NewCore(dialect{f}, opts)
	f.SetUser(UserID)
	f.SetTokenPolicy(socialfake.TokenPolicy{AccessTTL: 2 * time.Hour, Refresh: true, RefreshScope: "offline.access", Rotate: true})
	return f
}

// Start builds the fake and serves it on 127.0.0.1; Close stops it.
func Start(opts socialfake.Options) *Fake {
	f := New(opts)
	f.Serve(f.Handler())
	return f
}

// Connection is a connected account with every scope, skipping the
// connect flow.
func (f *Fake) Connection() social.Connection {
	return f.Connect(social.Account{ID: UserID, Kind: social.AccountPerson, Name: UserName, Handle: Username}, Scopes())
}

// Handler serves X's routes.
func (f *Fake) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /i/oauth2/authorize", func(w http.ResponseWriter, r *http.Request) {
		f.Authorize(w, r, socialfake.AuthorizeDialect{})
	})
	mux.HandleFunc("POST /2/oauth2/token", f.token)
	mux.HandleFunc("GET /2/users/me", f.me)
	mux.HandleFunc("POST /2/media/upload", f.upload)
	mux.HandleFunc("POST /2/tweets", f.createTweet)
	mux.HandleFunc("GET /2/users/{id}/tweets", f.timeline)
	return mux
}

func (f *Fake) token(w http.ResponseWriter, r *http.Request) {
	g, ok := f.Token(w, r, socialfake.TokenClient{Public: true})
	if !ok {
		return
	}
	answer := map[string]any{"token_type": "bearer", "access_token": g.Access, "scope": socialfake.JoinScopes(g.Scopes, " "),
		"expires_in": f.ExpiresIn(g)}
	if g.Refresh != "" {
		answer["refresh_token"] = g.Refresh
	}
	socialfake.WriteJSON(w, http.StatusOK, answer)
}

func (f *Fake) me(w http.ResponseWriter, r *http.Request) {
	call, ok := f.Begin(w, r, socialfake.OpAccounts, true)
	if !ok || !call.NeedScope("users.read") {
		return
	}
	socialfake.WriteJSON(w, http.StatusOK, map[string]any{"data": map[string]string{"id": call.Grant.Account, "name": UserName, "username": Username}})
}

func (f *Fake) upload(w http.ResponseWriter, r *http.Request) {
	call, ok := f.Begin(w, r, socialfake.OpMedia, true)
	if !ok || !call.NeedScope("media.write") {
		return
	}
	file, header, err := r.FormFile("media")
	if err != nil || header.Size == 0 {
		call.Problem(socialfake.Problem{Kind: socialfake.ProblemRejected, Reason: socialfake.ReasonMediaInvalid})
		return
	}
	_ = file.Close()
	id := fmt.Sprintf("17%017d", f.Seq("media"))
	f.mu.Lock()
	f.media[id] = true
	f.mu.Unlock()
	socialfake.WriteJSON(w, http.StatusOK, map[string]any{"data": map[string]any{
		"id": id, "media_key": "3_" + id, "size": header.Size, "expires_after_secs": 86400,
		"image": map[string]any{"image_type": header.Header.Get("Content-Type"), "w": 1, "h": 1},
	}})
}

type tweetRequest struct {
	Text  string `json:"text"`
	Reply *struct {
		InReplyToTweetID string `json:"in_reply_to_tweet_id"`
	} `json:"reply"`
	Media *struct {
		MediaIDs []string `json:"media_ids"`
	} `json:"media"`
}

func (f *Fake) createTweet(w http.ResponseWriter, r *http.Request) {
	call, ok := f.Begin(w, r, socialfake.OpPost, true)
	if !ok || !call.NeedScope("tweet.write") {
		return
	}
	var in tweetRequest
	if err := json.Unmarshal(call.Body, &in); err != nil {
		call.Problem(socialfake.Problem{Kind: socialfake.ProblemInvalid, Reason: "body"})
		return
	}
	post := socialfake.Post{Account: call.Grant.Account, Text: in.Text}
	if in.Media != nil {
		post.Media = in.Media.MediaIDs
	}
	switch {
	case in.Text == "" && len(post.Media) == 0:
		call.Problem(socialfake.Problem{Kind: socialfake.ProblemInvalid, Reason: "text"})
		return
	case utf8.RuneCountInString(in.Text) > 280:
		call.Problem(socialfake.Problem{Kind: socialfake.ProblemRejected, Reason: socialfake.ReasonTooLong})
		return
	case len(post.Media) > 4 || !f.knownMedia(post.Media):
		call.Problem(socialfake.Problem{Kind: socialfake.ProblemRejected, Reason: socialfake.ReasonMediaInvalid})
		return
	}
	if in.Reply != nil {
		if _, found := f.Post(in.Reply.InReplyToTweetID); !found {
			call.Problem(socialfake.Problem{Kind: socialfake.ProblemNotFound, Reason: "reply"})
			return
		}
		post.ReplyTo = in.Reply.InReplyToTweetID
	}
	post.ID = fmt.Sprintf("18%017d", f.Seq("tweet"))
	post.URL = socialfake.BaseURL(r) + "/" + Username + "/status/" + post.ID
	post, _ = f.Accept(post)
	if call.Accepted() {
		return
	}
	socialfake.WriteJSON(w, http.StatusCreated, map[string]any{"data": map[string]any{
		"id": post.ID, "text": post.Text, "edit_history_tweet_ids": []string{post.ID},
	}})
}

func (f *Fake) knownMedia(ids []string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, id := range ids {
		if !f.media[id] {
			return false
		}
	}
	return true
}

func (f *Fake) timeline(w http.ResponseWriter, r *http.Request) {
	call, ok := f.Begin(w, r, socialfake.OpLookup, true)
	if !ok || !call.NeedScope("tweet.read") {
		return
	}
	q := r.URL.Query()
	var since time.Time
	if s := q.Get("start_time"); s != "" {
		t, err := time.Parse(time.RFC3339, s)
		if err != nil {
			call.Problem(socialfake.Problem{Kind: socialfake.ProblemInvalid, Reason: "start_time"})
			return
		}
		since = t
	}
	limit, _ := strconv.Atoi(q.Get("max_results"))
	if limit < 5 || limit > 100 {
		limit = 10
	}
	posts := f.Recent(r.PathValue("id"), since, limit)
	data := make([]map[string]any, 0, len(posts))
	for _, p := range posts {
		t := map[string]any{"id": p.ID, "text": p.Text, "created_at": p.Created.UTC().Format("2006-01-02T15:04:05.000Z"),
			"edit_history_tweet_ids": []string{p.ID}}
		if p.ReplyTo != "" {
			t["referenced_tweets"] = []map[string]string{{"type": "replied_to", "id": p.ReplyTo}}
		}
		data = append(data, t)
	}
	answer := map[string]any{"meta": map[string]any{"result_count": len(data)}}
	if len(data) > 0 {
		answer["data"] = data
		answer["meta"] = map[string]any{"result_count": len(data), "newest_id": posts[0].ID, "oldest_id": posts[len(posts)-1].ID}
	}
	socialfake.WriteJSON(w, http.StatusOK, answer)
}
