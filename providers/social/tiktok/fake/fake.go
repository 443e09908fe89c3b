// Package fake is a local TikTok for tests and the sandbox: the authorize
// page and token endpoint (client_key, comma-separated scopes, PKCE S256),
// GET /v2/user/info/, the direct-post inits for videos and photos
// (PULL_FROM_URL), POST /v2/post/publish/status/fetch/ and POST
// /v2/video/list/, with TikTok's {"error": {code, message, log_id}} bodies.
// Every request is recorded, every accepted post counted (at init: that is
// when TikTok has it), ids are deterministic, and faults are scripted
// through socialfake.Core.
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

// The creator who connects.
const (
	OpenID      = "-000fakeOpenID0001"
	Username    = "fakecreator"
	DisplayName = "Fake Creator"
)

// Scopes are the scopes Connection grants.
func Scopes() []string {
	return []string{"user.info.basic", "user.info.profile", "video.publish", "video.list"}
}

// Fake is a local TikTok.
type Fake struct {
	*socialfake.Core

	mu         sync.Mutex
	publishes  map[string]*publish
	processing int
	failWith   string
}

type publish struct {
	postID string
	polls  int
	failed string
	photo  bool
}

// New builds the fake without starting a server (mount Handler anywhere).
func New(opts socialfake.Options) *Fake {
	f := &Fake{publishes: map[string]*publish{}}
	f.Core = socialfake.NewCore(dialect{f}, opts)
	f.SetUser(OpenID)
	f.SetTokenPolicy(socialfake.TokenPolicy{AccessTTL: 24 * time.Hour, Refresh: true, RefreshTTL: 365 * 24 * time.Hour})
	return f
}

// Start builds the fake and serves it on 127.0.0.1; Close stops it.
func Start(opts socialfake.Options) *Fake {
	f := New(opts)
	f.Serve(f.Handler())
	return f
}

// Connection is a connected creator with every scope.
func (f *Fake) Connection() social.Connection {
	c := f.Connect(social.Account{ID: OpenID, Kind: social.AccountPerson, Name: DisplayName, Handle: Username}, Scopes())
	c.Token.Subject = OpenID
	return c
}

// ProcessingPolls makes new publishes answer PROCESSING_DOWNLOAD to their
// first n status fetches (0, the default: complete at once).
func (f *Fake) ProcessingPolls(n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.processing = n
}

// FailPublishes makes new publishes end FAILED with this fail_reason
// (video_pull_failed, spam_risk_too_many_posts ...); "" succeeds. A failed
// publish is not counted as a post.
func (f *Fake) FailPublishes(reason string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.failWith = reason
}

// Handler serves TikTok's routes.
func (f *Fake) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v2/auth/authorize/", func(w http.ResponseWriter, r *http.Request) {
		f.Authorize(w, r, socialfake.AuthorizeDialect{ClientIDParam: "client_key", ScopeSeparator: ","})
	})
	mux.HandleFunc("POST /v2/oauth/token/", f.token)
	mux.HandleFunc("GET /v2/user/info/", f.userInfo)
	mux.HandleFunc("POST /v2/post/publish/video/init/", f.initPost)
	mux.HandleFunc("POST /v2/post/publish/content/init/", f.initPost)
	mux.HandleFunc("POST /v2/post/publish/status/fetch/", f.status)
	mux.HandleFunc("POST /v2/video/list/", f.videoList)
	return mux
}

func (f *Fake) token(w http.ResponseWriter, r *http.Request) {
	g, ok := f.Token(w, r, socialfake.TokenClient{IDParam: "client_key"})
	if !ok {
		return
	}
	socialfake.WriteJSON(w, http.StatusOK, map[string]any{
		"access_token": g.Access, "expires_in": f.ExpiresIn(g), "open_id": g.Account,
		"refresh_token": g.Refresh, "refresh_expires_in": f.RefreshExpiresIn(g),
		"scope": socialfake.JoinScopes(g.Scopes, ","), "token_type": "Bearer",
	})
}

// ok wraps data in TikTok's success envelope.
func ok(w http.ResponseWriter, data any) {
	socialfake.WriteJSON(w, http.StatusOK, map[string]any{"data": data,
		"error": map[string]string{"code": "ok", "message": "", "log_id": "20260501120041FAKE0001"}})
}

func (f *Fake) userInfo(w http.ResponseWriter, r *http.Request) {
	call, found := f.Begin(w, r, socialfake.OpAccounts, true)
	if !found || !call.NeedScope("user.info.basic") {
		return
	}
	user := map[string]string{"open_id": call.Grant.Account, "display_name": DisplayName}
	if strings.Contains(r.URL.Query().Get("fields"), "username") {
		if !call.NeedScope("user.info.profile") {
			return
		}
		user["username"] = Username
	}
	ok(w, map[string]any{"user": user})
}

type initRequest struct {
	PostInfo struct {
		Title        string `json:"title"`
		Description  string `json:"description"`
		PrivacyLevel string `json:"privacy_level"`
	} `json:"post_info"`
	SourceInfo struct {
		Source      string   `json:"source"`
		VideoURL    string   `json:"video_url"`
		PhotoImages []string `json:"photo_images"`
	} `json:"source_info"`
	PostMode  string `json:"post_mode"`
	MediaType string `json:"media_type"`
}

var privacyLevels = map[string]bool{"PUBLIC_TO_EVERYONE": true, "MUTUAL_FOLLOW_FRIENDS": true, "FOLLOWER_OF_CREATOR": true, "SELF_ONLY": true}

func (f *Fake) initPost(w http.ResponseWriter, r *http.Request) {
	call, found := f.Begin(w, r, socialfake.OpPost, true)
	if !found || !call.NeedScope("video.publish") {
		return
	}
	var in initRequest
	photo := strings.Contains(r.URL.Path, "/content/")
	invalid := json.Unmarshal(call.Body, &in) != nil || in.SourceInfo.Source != "PULL_FROM_URL" || !privacyLevels[in.PostInfo.PrivacyLevel]
	if photo {
		invalid = invalid || in.MediaType != "PHOTO" || in.PostMode != "DIRECT_POST"
	}
	if invalid {
		call.Problem(socialfake.Problem{Kind: socialfake.ProblemInvalid, Reason: "params"})
		return
	}
	post := socialfake.Post{Account: call.Grant.Account, Text: in.PostInfo.Title, Visibility: in.PostInfo.PrivacyLevel}
	limit := 2200
	if photo {
		post.Text, post.Title, post.Media, limit = in.PostInfo.Description, in.PostInfo.Title, in.SourceInfo.PhotoImages, 4000
	} else {
		post.Media = []string{in.SourceInfo.VideoURL}
	}
	switch {
	case utf8.RuneCountInString(post.Text) > limit || utf8.RuneCountInString(post.Title) > 90 && photo:
		call.Problem(socialfake.Problem{Kind: socialfake.ProblemRejected, Reason: socialfake.ReasonTooLong})
		return
	case len(post.Media) == 0 || len(post.Media) > 35 || !allHTTP(post.Media):
		call.Problem(socialfake.Problem{Kind: socialfake.ProblemRejected, Reason: socialfake.ReasonMediaInvalid})
		return
	}
	n := f.Seq("post")
	publishID := fmt.Sprintf("v_pub_url~v2-1.%019d", n)
	if photo {
		publishID = fmt.Sprintf("p_pub_url~v2.%019d", n)
	}
	f.mu.Lock()
	pub := &publish{polls: f.processing, failed: f.failWith, photo: photo}
	f.mu.Unlock()
	if pub.failed == "" {
		post.ID = fmt.Sprintf("73%017d", n)
		kind := "video"
		if photo {
			kind = "photo"
		}
		post.URL = socialfake.BaseURL(r) + "/@" + Username + "/" + kind + "/" + post.ID
		post, _ = f.Accept(post)
		pub.postID = post.ID
	}
	// Known to status fetches only once complete.
	f.mu.Lock()
	f.publishes[publishID] = pub
	f.mu.Unlock()
	if call.Accepted() {
		return
	}
	ok(w, map[string]string{"publish_id": publishID})
}

func allHTTP(urls []string) bool {
	for _, u := range urls {
		if !strings.HasPrefix(u, "http") {
			return false
		}
	}
	return true
}

func (f *Fake) status(w http.ResponseWriter, r *http.Request) {
	call, found := f.Begin(w, r, socialfake.OpStatus, true)
	if !found {
		return
	}
	var in struct {
		PublishID string `json:"publish_id"`
	}
	_ = json.Unmarshal(call.Body, &in)
	f.mu.Lock()
	pub, known := f.publishes[in.PublishID]
	answer := map[string]any{"uploaded_bytes": 0, "downloaded_bytes": 1048576}
	if known {
		switch {
		case pub.polls > 0:
			pub.polls--
			answer["status"] = "PROCESSING_DOWNLOAD"
		case pub.failed != "":
			answer["status"], answer["fail_reason"] = "FAILED", pub.failed
		default:
			id, _ := strconv.ParseInt(pub.postID, 10, 64)
			answer["status"], answer["publicaly_available_post_id"] = "PUBLISH_COMPLETE", []int64{id}
		}
	}
	f.mu.Unlock()
	if !known {
		call.Problem(socialfake.Problem{Kind: socialfake.ProblemInvalid, Reason: "publish_id"})
		return
	}
	ok(w, answer)
}

func (f *Fake) videoList(w http.ResponseWriter, r *http.Request) {
	call, found := f.Begin(w, r, socialfake.OpLookup, true)
	if !found || !call.NeedScope("video.list") {
		return
	}
	var in struct {
		MaxCount int `json:"max_count"`
	}
	_ = json.Unmarshal(call.Body, &in)
	if in.MaxCount <= 0 || in.MaxCount > 20 {
		in.MaxCount = 10
	}
	videos := []map[string]any{}
	for _, p := range f.Recent(call.Grant.Account, time.Time{}, 0) {
		if strings.Contains(p.URL, "/photo/") {
			continue // photo posts are not videos
		}
		videos = append(videos, map[string]any{"id": p.ID, "title": p.Text, "video_description": p.Text,
			"create_time": p.Created.Unix(), "share_url": p.URL})
		if len(videos) == in.MaxCount {
			break
		}
	}
	ok(w, map[string]any{"videos": videos, "cursor": time.Now().UnixMilli(), "has_more": false})
}
