package tiktok_test

import (
	"context"
	"encoding/json"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/platform/backend/providers/fakekit"
	"github.com/platform/backend/providers/outcome"
	"github.com/platform/backend/providers/social"
	"github.com/platform/backend/providers/social/socialfake"
	"github.com/platform/backend/providers/social/socialtest"
	"github.com/platform/backend/providers/social/tiktok"
)

func body(t *testing.T, r fakekit.Request) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.Body, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestVideoAndPhotoInitsOnTheWire(t *testing.T) {
	c, f := start(t)
	defer f.Close()
	conn := f.Connection()
	v := video("Behind the pass")
	v.Visibility = social.VisibilityPrivate
	got, err := c.Publish(context.Background(), conn, v)
	if err != nil {
		t.Fatal(err)
	}
	if got.URL != f.URL()+"/@fakecreator/video/"+got.ID {
		t.Fatalf("published %+v", got)
	}
	inits := f.RequestsOf(socialfake.OpPost)
	want := map[string]any{
		"post_info":   map[string]any{"title": "Behind the pass", "privacy_level": "SELF_ONLY", "disable_duet": false, "disable_comment": false, "disable_stitch": false},
		"source_info": map[string]any{"source": "PULL_FROM_URL", "video_url": "https://cdn.example.test/clip.mp4"},
	}
	if got := body(t, inits[0]); inits[0].Path != "/v2/post/publish/video/init/" || !reflect.DeepEqual(got, want) {
		t.Fatalf("video init %s %v", inits[0].Path, got)
	}
	if inits[0].Header.Get("Authorization") != "Bearer "+conn.Token.AccessToken {
		t.Fatal("no bearer token")
	}
	status := f.RequestsOf(socialfake.OpStatus)[0]
	if b := body(t, status); !strings.HasPrefix(b["publish_id"].(string), "v_pub_url~") {
		t.Fatalf("status fetch %v", b)
	}

	photos := social.Post{Text: "Three plates", Title: "Tonight", Media: []social.Media{
		{Kind: social.MediaImage, URL: "https://cdn.example.test/1.jpg"}, {Kind: social.MediaImage, URL: "https://cdn.example.test/2.jpg"}}}
	got, err = c.Publish(context.Background(), conn, photos)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(got.URL, "/photo/") {
		t.Fatalf("photo post URL %s", got.URL)
	}
	photoInit := f.RequestsOf(socialfake.OpPost)[1]
	b := body(t, photoInit)
	if photoInit.Path != "/v2/post/publish/content/init/" || b["media_type"] != "PHOTO" || b["post_mode"] != "DIRECT_POST" {
		t.Fatalf("photo init %s %v", photoInit.Path, b)
	}
	info, source := b["post_info"].(map[string]any), b["source_info"].(map[string]any)
	if info["title"] != "Tonight" || info["description"] != "Three plates" || info["privacy_level"] != "PUBLIC_TO_EVERYONE" ||
		len(source["photo_images"].([]any)) != 2 || source["source"] != "PULL_FROM_URL" {
		t.Fatalf("photo init body %v", b)
	}
}

func TestPreflight(t *testing.T) {
	c, f := start(t)
	defer f.Close()
	twoVideos := video("x")
	twoVideos.Media = append(twoVideos.Media, twoVideos.Media[0])
	for name, p := range map[string]social.Post{
		"text only":  {Text: "no media"},
		"two videos": twoVideos,
		"no URL":     {Text: "x", Media: []social.Media{{Kind: social.MediaVideo}}},
	} {
		if _, err := c.Publish(context.Background(), f.Connection(), p); outcome.Of(err) != outcome.Rejected {
			t.Errorf("%s: %v", name, err)
		}
	}
	if len(f.Requests()) != 0 {
		t.Fatal("a refused post reached TikTok")
	}
}

// TestProcessingOutlastsThePollBudget: TikTok accepted the post; not knowing
// its fate within the budget is an unknown outcome with the publish_id,
// which Lookup reads and a resumed Publish follows without posting again.
func TestProcessingOutlastsThePollBudget(t *testing.T) {
	c, f := start(t)
	defer f.Close()
	conn := f.Connection()
	f.ProcessingPolls(1 << 20)
	p := video("slow pull")
	_, err := c.Publish(context.Background(), conn, p)
	e, _ := social.AsError(err)
	if e == nil || e.Kind != social.KindOutcomeUnknown || e.Reason != social.ReasonProcessing || !strings.HasPrefix(e.Pending, "v_pub_url~") {
		t.Fatalf("%+v", e)
	}
	res, err := c.Lookup(context.Background(), conn, social.Query{Text: p.Text, Pending: e.Pending})
	if err != nil || res.State != social.LookupPending {
		t.Fatalf("lookup %+v %v", res, err)
	}

	f.ProcessingPolls(0)
	other := video("quick")
	f.On(socialfake.OpStatus).Next(1, fakekit.Fault{Kind: fakekit.ServerError})
	_, err = c.Publish(context.Background(), conn, other)
	e2, _ := social.AsError(err)
	if e2 == nil || e2.Kind != social.KindOutcomeUnknown || e2.Pending == "" {
		t.Fatalf("a status fetch failing after the init: %+v", e2)
	}
	other.Resume = e2.Pending
	got, err := c.Publish(context.Background(), conn, other)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(f.RequestsOf(socialfake.OpPost)); n != 2 || f.PostCount() != 2 {
		t.Fatalf("%d inits, %d posts: a resume started a new post", n, f.PostCount())
	}
	if stored, _ := f.Post(got.ID); stored.Text != "quick" {
		t.Fatalf("resumed post %+v", stored)
	}
}

func TestFailedPublish(t *testing.T) {
	tests := []struct {
		reason string
		kind   outcome.Kind
		wait   time.Duration
	}{
		{"video_pull_failed", outcome.Rejected, 0},
		{"spam_risk_too_many_posts", outcome.RateLimited, 24 * time.Hour},
		{"internal", outcome.ProviderFault, 0},
	}
	for _, tc := range tests {
		t.Run(tc.reason, func(t *testing.T) {
			c, f := start(t)
			defer f.Close()
			f.FailPublishes(tc.reason)
			_, err := c.Publish(context.Background(), f.Connection(), video("doomed"))
			e, _ := social.AsError(err)
			if e == nil || e.Kind != tc.kind || e.Code != tc.reason || e.RetryAfter != tc.wait {
				t.Fatalf("%+v", e)
			}
			if f.PostCount() != 0 {
				t.Fatal("a failed publish was counted")
			}
		})
	}
}

func TestAuthorizeURLSpeaksTikTok(t *testing.T) {
	c, f := start(t)
	defer f.Close()
	flow, _ := social.NewAuthFlow()
	raw, err := c.AuthorizeURL(social.AuthRequest{RedirectURI: socialtest.RedirectURI, State: flow.State, CodeChallenge: flow.CodeChallenge})
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(raw)
	if u.Path != "/v2/auth/authorize/" || u.Query().Get("client_key") != f.ClientID() || u.Query().Get("client_id") != "" ||
		u.Query().Get("scope") != "user.info.basic,user.info.profile,video.publish,video.list" {
		t.Fatalf("authorize URL %s", raw)
	}
}

// TestRecordedAnswers replays real-shaped TikTok answers from testdata.
func TestRecordedAnswers(t *testing.T) {
	base := socialtest.Replay(t, map[string]socialtest.Recorded{
		"POST /v2/post/publish/video/init/":   {Status: 200, File: "video_init_200.json"},
		"POST /v2/post/publish/status/fetch/": {Status: 200, File: "status_complete_200.json"},
		"POST /v2/video/list/":                {Status: 200, File: "video_list_200.json"},
		"GET /v2/user/info/":                  {Status: 401, File: "access_token_invalid_401.json"},
		"POST /v2/oauth/token/":               {Status: 400, File: "token_invalid_grant_400.json"},
	})
	c, err := tiktok.New(tiktok.Config{ClientID: "key", ClientSecret: "secret"}.At(base))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	conn := social.Connection{Token: social.Token{AccessToken: "act.x", RefreshToken: "rft.x"}, Account: social.Account{ID: "open", Handle: "bistro"}}
	got, err := c.Publish(ctx, conn, video("Spring menu is live #food #bistro"))
	if err != nil || got.ID != "7491234599990001234" || got.URL != base+"/@bistro/video/7491234599990001234" {
		t.Fatalf("publish %+v %v", got, err)
	}
	found, err := c.Lookup(ctx, conn, social.Query{Text: "Spring menu is live #food #bistro", Since: time.Unix(1777636800, 0)})
	if err != nil || found.State != social.LookupFound || !strings.HasPrefix(found.Post.URL, "https://www.tiktok.com/@bistro/video/7491234599990001234") {
		t.Fatalf("lookup %+v %v", found, err)
	}
	byID, err := c.Lookup(ctx, conn, social.Query{Pending: "v_pub_url~v2-1.7491234567890123456"})
	if err != nil || byID.State != social.LookupFound || byID.Post.ID != "7491234599990001234" {
		t.Fatalf("lookup by publish id %+v %v", byID, err)
	}
	_, err = c.Accounts(ctx, conn.Token)
	if e, _ := social.AsError(err); e == nil || e.Kind != outcome.Unauthorized || e.Code != "access_token_invalid" {
		t.Fatalf("accounts: %+v", e)
	}
	_, err = c.Refresh(ctx, conn.Token)
	if e, _ := social.AsError(err); e == nil || e.Kind != outcome.Unauthorized || e.Reason != social.ReasonGrantRevoked {
		t.Fatalf("refresh: %+v", e)
	}

	failed := socialtest.Replay(t, map[string]socialtest.Recorded{"POST /v2/post/publish/status/fetch/": {Status: 200, File: "status_failed_200.json"}})
	c, _ = tiktok.New(tiktok.Config{ClientID: "key", ClientSecret: "secret"}.At(failed))
	res, err := c.Lookup(ctx, conn, social.Query{Pending: "v_pub_url~x"})
	if err != nil || res.State != social.LookupFailed || res.Err.Reason != social.ReasonMediaInvalid {
		t.Fatalf("failed publish lookup %+v %v", res, err)
	}
}
