package x_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/platform/backend/providers/fakekit"
	"github.com/platform/backend/providers/outcome"
	"github.com/platform/backend/providers/social"
	"github.com/platform/backend/providers/social/socialfake"
	"github.com/platform/backend/providers/social/socialtest"
	"github.com/platform/backend/providers/social/x"
)

func image(data string) social.Media {
	return social.Media{Kind: social.MediaImage, ContentType: "image/png",
		Open: func(context.Context) (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(data)), nil }}
}

// TestThreadReplyWithImagesOnTheWire: images go up first as multipart
// tweet_image uploads, then one POST /2/tweets names them and the parent.
func TestThreadReplyWithImagesOnTheWire(t *testing.T) {
	c, f := start(t)
	defer f.Close()
	conn := f.Connection()
	first, err := c.Publish(context.Background(), conn, social.Post{Text: "1/2 spring menu"})
	if err != nil {
		t.Fatal(err)
	}
	second, err := c.Publish(context.Background(), conn, social.Post{Text: "2/2 with photos", ReplyTo: first.ID,
		Media: []social.Media{image("png-1"), image("png-2")}})
	if err != nil {
		t.Fatal(err)
	}
	if want := f.URL() + "/fakeuser/status/" + second.ID; second.URL != want {
		t.Fatalf("url %s, want %s", second.URL, want)
	}
	uploads := f.RequestsOf(socialfake.OpMedia)
	if len(uploads) != 2 {
		t.Fatalf("%d uploads, want 2", len(uploads))
	}
	for i, u := range uploads {
		if u.Header.Get("Authorization") != "Bearer "+conn.Token.AccessToken {
			t.Fatalf("upload authorization %q", u.Header.Get("Authorization"))
		}
		fields := multipartFields(t, u)
		if fields["media_category"] != "tweet_image" || fields["media"] != "png-"+strconv.Itoa(i+1) {
			t.Fatalf("upload fields %v", fields)
		}
	}
	posts := f.RequestsOf(socialfake.OpPost)
	var body map[string]any
	if err := json.Unmarshal(posts[1].Body, &body); err != nil {
		t.Fatal(err)
	}
	mediaIDs := f.Posts()[1].Media
	want := map[string]any{"text": "2/2 with photos", "reply": map[string]any{"in_reply_to_tweet_id": first.ID},
		"media": map[string]any{"media_ids": []any{mediaIDs[0], mediaIDs[1]}}}
	if !reflect.DeepEqual(body, want) {
		t.Fatalf("POST /2/tweets body %v, want %v", body, want)
	}
	if ct := posts[1].Header.Get("Content-Type"); ct != "application/json" {
		t.Fatalf("content type %q", ct)
	}
}

func multipartFields(t *testing.T, r fakekit.Request) map[string]string {
	t.Helper()
	_, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil {
		t.Fatal(err)
	}
	mr := multipart.NewReader(bytes.NewReader(r.Body), params["boundary"])
	out := map[string]string{}
	for {
		p, err := mr.NextPart()
		if err != nil {
			break
		}
		b, _ := io.ReadAll(p)
		out[p.FormName()] = string(b)
	}
	return out
}

func TestPreflightRefusalsSendNothing(t *testing.T) {
	c, f := start(t)
	defer f.Close()
	video := image("x")
	video.Kind = social.MediaVideo
	for name, p := range map[string]social.Post{
		"281 characters": {Text: strings.Repeat("a", 281)},
		"five images":    {Text: "a", Media: []social.Media{image("1"), image("2"), image("3"), image("4"), image("5")}},
		"a video":        {Text: "a", Media: []social.Media{video}},
		"followers only": {Text: "a", Visibility: social.VisibilityFollowers},
	} {
		_, err := c.Publish(context.Background(), f.Connection(), p)
		if e, ok := social.AsError(err); !ok || e.Kind != outcome.Rejected || e.Sent {
			t.Errorf("%s: %v", name, err)
		}
	}
	if n := len(f.Requests()); n != 0 {
		t.Fatalf("%d requests reached X", n)
	}
}

func TestRateLimitReadsTheResetHeader(t *testing.T) {
	c, f := start(t)
	defer f.Close()
	f.On(socialfake.OpPost).Next(1, fakekit.Fault{Kind: fakekit.RateLimit, RetryAfter: 15 * time.Minute})
	_, err := c.Publish(context.Background(), f.Connection(), social.Post{Text: "hi"})
	e, _ := social.AsError(err)
	if e == nil || e.Kind != outcome.RateLimited || e.RetryAfter < 15*time.Minute || e.RetryAfter > 15*time.Minute+time.Second || e.ResetAt.IsZero() {
		t.Fatalf("%+v", e)
	}
	if got := f.RequestsOf(socialfake.OpPost); len(got) != 1 {
		t.Fatalf("%d posts attempted", len(got))
	}
}

// TestRefreshTokensRotate: X answers a new refresh token and kills the old
// one; using the old one again is a revoked grant.
func TestRefreshTokensRotate(t *testing.T) {
	c, f := start(t)
	defer f.Close()
	tok := f.Connection().Token
	fresh, err := c.Refresh(context.Background(), tok)
	if err != nil {
		t.Fatal(err)
	}
	if fresh.RefreshToken == tok.RefreshToken || fresh.Expiry.Before(time.Now().Add(time.Hour)) {
		t.Fatalf("refreshed %+v", fresh)
	}
	tokens := f.RequestsOf(socialfake.OpToken)
	if user, _, ok := basicAuth(tokens[0]); !ok || user != f.ClientID() {
		t.Fatal("a confidential client authenticates with HTTP Basic")
	}
	_, err = c.Refresh(context.Background(), tok)
	if e, _ := social.AsError(err); e == nil || e.Kind != outcome.Unauthorized || e.Reason != social.ReasonGrantRevoked {
		t.Fatalf("reusing a rotated refresh token: %v", err)
	}
}

func basicAuth(r fakekit.Request) (string, string, bool) {
	req := &http.Request{Header: r.Header}
	return req.BasicAuth()
}

// TestRecordedAnswers replays real-shaped X answers from testdata.
func TestRecordedAnswers(t *testing.T) {
	base := socialtest.Replay(t, map[string]socialtest.Recorded{
		"POST /2/tweets":         {Status: 201, File: "create_tweet_201.json"},
		"GET /2/users/42/tweets": {Status: 200, File: "users_tweets_200.json"},
		"POST /2/oauth2/token":   {Status: 400, File: "token_invalid_400.json"},
		"GET /2/users/me":        {Status: 429, File: "too_many_requests_429.json", Header: map[string]string{"x-rate-limit-reset": strconv.FormatInt(time.Now().Add(time.Minute).Unix(), 10)}},
		"POST /2/media/upload":   {Status: 403, File: "duplicate_403.json"},
	})
	c, err := x.New(x.Config{ClientID: "c"}.At(base))
	if err != nil {
		t.Fatal(err)
	}
	conn := social.Connection{Token: social.Token{AccessToken: "t", RefreshToken: "r"}, Account: social.Account{ID: "42", Handle: "bistro"}}
	ctx := context.Background()
	got, err := c.Publish(ctx, conn, social.Post{Text: "Spring menu is live: https://bistro.example/menu"})
	if err != nil || got.ID != "1921384757593407489" || got.URL != base+"/bistro/status/1921384757593407489" {
		t.Fatalf("publish %+v %v", got, err)
	}
	found, err := c.Lookup(ctx, conn, social.Query{Text: "Spring menu is live: https://bistro.example/menu",
		Since: time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)})
	if err != nil || found.State != social.LookupFound || found.Post.ID != "1921384757593407489" {
		t.Fatalf("lookup through a t.co link: %+v %v", found, err)
	}
	reply, err := c.Lookup(ctx, conn, social.Query{Text: "2/ Opening hours change next week.", ReplyTo: "1921383011223101440",
		Since: time.Date(2026, 5, 1, 11, 59, 0, 0, time.UTC)})
	if err != nil || reply.State != social.LookupFound || reply.Post.ID != "1921384090241323008" {
		t.Fatalf("lookup of a reply: %+v %v", reply, err)
	}
	_, err = c.Refresh(ctx, conn.Token)
	if outcome.Of(err) != outcome.Unauthorized {
		t.Fatalf("refresh: %v", err)
	}
	_, err = c.Accounts(ctx, conn.Token)
	if e, _ := social.AsError(err); e == nil || e.Kind != outcome.RateLimited || e.RetryAfter < 55*time.Second {
		t.Fatalf("accounts: %+v", e)
	}
	_, err = c.Publish(ctx, conn, social.Post{Text: "with a photo", Media: []social.Media{image("p")}})
	if e, _ := social.AsError(err); e == nil || e.Kind != outcome.Rejected || e.Reason != social.ReasonDuplicate {
		t.Fatalf("a 403 duplicate: %+v", e)
	}
}

func TestConfigValidate(t *testing.T) {
	if _, err := x.New(x.Config{}); err == nil {
		t.Fatal("a config without a client id was accepted")
	}
	if _, err := x.New(x.Config{ClientID: "c", APIBaseURL: "ftp://x"}); err == nil {
		t.Fatal("an ftp base URL was accepted")
	}
}
