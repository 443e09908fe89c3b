package instagram_test

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/platform/backend/providers/fakekit"
	"github.com/platform/backend/providers/outcome"
	"github.com/platform/backend/providers/social"
	"github.com/platform/backend/providers/social/instagram"
	"github.com/platform/backend/providers/social/instagram/fake"
	"github.com/platform/backend/providers/social/socialfake"
	"github.com/platform/backend/providers/social/socialtest"
)

func form(t *testing.T, r fakekit.Request) url.Values {
	t.Helper()
	v, err := url.ParseQuery(string(r.Body))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestCarouselOnTheWire: one container per item (is_carousel_item, VIDEO
// for a video), a CAROUSEL container naming them with the caption, then
// media_publish of that container.
func TestCarouselOnTheWire(t *testing.T) {
	c, f := start(t)
	defer f.Close()
	p := social.Post{Text: "Tasting menu", Media: []social.Media{
		{Kind: social.MediaImage, URL: "https://cdn.example.test/1.jpg", AltText: "starter"},
		{Kind: social.MediaImage, URL: "https://cdn.example.test/2.jpg"},
		{Kind: social.MediaVideo, URL: "https://cdn.example.test/3.mp4"},
	}}
	got, err := c.Publish(context.Background(), f.Connection(), p)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(got.URL, f.URL()+"/p/") {
		t.Fatalf("permalink %q", got.URL)
	}
	creates := f.RequestsOf(socialfake.OpMedia)
	if len(creates) != 4 {
		t.Fatalf("%d containers, want 4", len(creates))
	}
	first, video, parent := form(t, creates[0]), form(t, creates[2]), form(t, creates[3])
	if first.Get("image_url") != "https://cdn.example.test/1.jpg" || first.Get("is_carousel_item") != "true" || first.Get("alt_text") != "starter" || first.Get("caption") != "" {
		t.Errorf("first item %v", first)
	}
	if video.Get("media_type") != "VIDEO" || video.Get("video_url") != "https://cdn.example.test/3.mp4" {
		t.Errorf("video item %v", video)
	}
	if parent.Get("media_type") != "CAROUSEL" || parent.Get("caption") != "Tasting menu" || len(strings.Split(parent.Get("children"), ",")) != 3 {
		t.Errorf("carousel %v", parent)
	}
	publish := form(t, f.RequestsOf(socialfake.OpPost)[0])
	if status := f.ContainerStatus(publish.Get("creation_id")); status != "PUBLISHED" {
		t.Fatalf("published container status %q", status)
	}
	if stored := f.Posts()[0]; len(stored.Media) != 4 || stored.Text != "Tasting menu" {
		t.Fatalf("stored %+v", stored)
	}
}

func TestReel(t *testing.T) {
	c, f := start(t)
	defer f.Close()
	if _, err := c.Publish(context.Background(), f.Connection(), social.Post{Text: "Behind the pass",
		Media: []social.Media{{Kind: social.MediaVideo, URL: "https://cdn.example.test/reel.mp4"}}}); err != nil {
		t.Fatal(err)
	}
	if v := form(t, f.RequestsOf(socialfake.OpMedia)[0]); v.Get("media_type") != "REELS" || v.Get("video_url") == "" {
		t.Fatalf("reel container %v", v)
	}
}

// TestContainerPolling: the adapter waits for FINISHED before publishing,
// and gives up (nothing posted, the container named) when processing
// outlasts its budget.
func TestContainerPolling(t *testing.T) {
	c, f := start(t)
	defer f.Close()
	f.ProcessingPolls(3)
	if _, err := c.Publish(context.Background(), f.Connection(), photo("slow media")); err != nil {
		t.Fatal(err)
	}
	if n := len(f.RequestsOf(socialfake.OpStatus)); n != 3 {
		t.Fatalf("%d status polls, want 3", n)
	}
	f.ProcessingPolls(1 << 20)
	_, err := c.Publish(context.Background(), f.Connection(), photo("media that never finishes"))
	e, _ := social.AsError(err)
	if e == nil || e.Kind != outcome.ProviderFault || e.Reason != social.ReasonProcessing || e.Pending == "" {
		t.Fatalf("%+v", e)
	}
	if f.PostCount() != 1 {
		t.Fatalf("%d posts", f.PostCount())
	}
	res, err := c.Lookup(context.Background(), f.Connection(), social.Query{Text: "media that never finishes", Pending: e.Pending})
	if err != nil || res.State != social.LookupPending {
		t.Fatalf("lookup of a container in progress: %+v %v", res, err)
	}
}

// TestResumePublishesTheSameContainer: after an unknown outcome that
// Lookup found not published, the retry publishes the same container;
// after one that landed late, the retry is refused and nothing is posted
// twice.
func TestResumePublishesTheSameContainer(t *testing.T) {
	c, f := start(t)
	defer f.Close()
	conn := f.Connection()
	p := photo("resumed")
	f.On(socialfake.OpPost).Next(1, fakekit.Fault{Kind: fakekit.Hang})
	_, err := c.Publish(context.Background(), conn, p)
	e, _ := social.AsError(err)
	if e == nil || e.Kind != social.KindOutcomeUnknown || e.Pending == "" {
		t.Fatalf("%+v", e)
	}
	p.Resume = e.Pending
	got, err := c.Publish(context.Background(), conn, p)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(f.RequestsOf(socialfake.OpMedia)); n != 1 {
		t.Fatalf("%d containers made, want the first one only", n)
	}
	if f.PostCount() != 1 || f.Posts()[0].ID != got.ID {
		t.Fatalf("posts %+v", f.Posts())
	}

	late := photo("landed late")
	f.On(socialfake.OpPost).Next(1, fakekit.Fault{Kind: fakekit.AcceptThenTimeout})
	_, err = c.Publish(context.Background(), conn, late)
	e, _ = social.AsError(err)
	late.Resume = e.Pending
	_, err = c.Publish(context.Background(), conn, late)
	if e, _ := social.AsError(err); e == nil || e.Kind != outcome.Rejected || e.Reason != social.ReasonDuplicate {
		t.Fatalf("resuming a published container: %v", err)
	}
	if f.PostCount() != 2 {
		t.Fatalf("%d posts, want 2", f.PostCount())
	}
}

// TestConnectExchangesForALongLivedToken: the code gives a short-lived
// token naming the account; the adapter trades it for a 60-day one.
func TestConnectExchangesForALongLivedToken(t *testing.T) {
	c, f := start(t)
	defer f.Close()
	f.SetConsent(socialfake.ConsentApprove)
	flow, _ := social.NewAuthFlow()
	u, _ := c.AuthorizeURL(social.AuthRequest{RedirectURI: socialtest.RedirectURI, State: flow.State, CodeChallenge: flow.CodeChallenge})
	if !strings.Contains(u, "scope=instagram_business_basic%2Cinstagram_business_content_publish") {
		t.Fatalf("authorize URL %s", u)
	}
	resp, err := socialtest.NoRedirects().Get(u)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	back, _ := url.Parse(resp.Header.Get("Location"))
	tok, err := c.Exchange(context.Background(), social.CodeExchange{Code: back.Query().Get("code"), CodeVerifier: flow.CodeVerifier, RedirectURI: socialtest.RedirectURI})
	if err != nil {
		t.Fatal(err)
	}
	if tok.Subject != fake.UserID || tok.Expiry.Before(time.Now().Add(59*24*time.Hour)) || len(tok.MissingScopes(instagram.DefaultScopes())) != 0 {
		t.Fatalf("token %+v", tok)
	}
	calls := f.RequestsOf(socialfake.OpToken)
	if len(calls) != 2 || calls[0].Path != "/oauth/access_token" || calls[1].Query().Get("grant_type") != "ig_exchange_token" {
		t.Fatalf("token calls %+v", calls)
	}
}

// TestRecordedAnswers replays real-shaped Instagram answers from testdata.
func TestRecordedAnswers(t *testing.T) {
	base := socialtest.Replay(t, map[string]socialtest.Recorded{
		"POST /oauth/access_token":            {Status: 200, File: "code_exchange_200.json"},
		"GET /access_token":                   {Status: 200, File: "long_lived_200.json"},
		"GET /v23.0/17889615691921648":        {Status: 200, File: "container_in_progress_200.json"},
		"GET /v23.0/17841402345678901/media":  {Status: 200, File: "media_200.json"},
		"POST /v23.0/17841402345678901/media": {Status: 200, File: "container_in_progress_200.json"},
	})
	cfg := instagram.Config{ClientID: "app", ClientSecret: "secret", PollInterval: time.Millisecond, PollTimeout: 20 * time.Millisecond}.At(base)
	c, err := instagram.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	tok, err := c.Exchange(ctx, social.CodeExchange{Code: "c", CodeVerifier: "v", RedirectURI: socialtest.RedirectURI})
	if err != nil || tok.AccessToken != "IGAAQxYzLongLived9876543210" || tok.Subject != "17841402345678901" || len(tok.Scopes) != 2 {
		t.Fatalf("exchange %+v %v", tok, err)
	}
	conn := social.Connection{Token: tok, Account: social.Account{ID: tok.Subject}}
	found, err := c.Lookup(ctx, conn, social.Query{Text: "Spring menu is live #food", Since: time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)})
	if err != nil || found.State != social.LookupFound || found.Post.URL != "https://www.instagram.com/p/DJq1aBcDeFg/" {
		t.Fatalf("lookup %+v %v", found, err)
	}
	pending, err := c.Lookup(ctx, conn, social.Query{Text: "x", Pending: "17889615691921648"})
	if err != nil || pending.State != social.LookupPending {
		t.Fatalf("pending %+v %v", pending, err)
	}
	_, err = c.Publish(ctx, conn, photo("stuck"))
	if e, _ := social.AsError(err); e == nil || e.Reason != social.ReasonProcessing || e.Pending != "17889615691921648" {
		t.Fatalf("processing: %+v", e)
	}
	_, err = c.Publish(ctx, conn, social.Post{Text: "limit", Media: photo("").Media, Resume: "17889615691921648"})
	if e, _ := social.AsError(err); e == nil || e.Reason != social.ReasonProcessing {
		t.Fatalf("resume of a container in progress: %+v", e)
	}

	refused := socialtest.Replay(t, map[string]socialtest.Recorded{"POST /oauth/access_token": {Status: 400, File: "code_exchange_400.json"}})
	c, _ = instagram.New(instagram.Config{ClientID: "app", ClientSecret: "secret"}.At(refused))
	_, err = c.Exchange(ctx, social.CodeExchange{Code: "used"})
	if e, _ := social.AsError(err); e == nil || e.Kind != outcome.Unauthorized || e.Reason != social.ReasonGrantRevoked {
		t.Fatalf("used code: %+v", e)
	}
}

func TestDailyPublishingLimitWaitsADay(t *testing.T) {
	base := socialtest.Replay(t, map[string]socialtest.Recorded{
		"POST /v23.0/1/media":          {Status: 200, File: "container_created_200.json"},
		"GET /v23.0/17900011122233344": {Status: 200, File: "container_finished_200.json"},
		"POST /v23.0/1/media_publish":  {Status: 400, File: "daily_limit_400.json"},
	})
	c, _ := instagram.New(instagram.Config{ClientID: "app", ClientSecret: "secret"}.At(base))
	_, err := c.Publish(context.Background(), social.Connection{Token: social.Token{AccessToken: "t"}, Account: social.Account{ID: "1"}}, photo("one more"))
	if e, _ := social.AsError(err); e == nil || e.Kind != outcome.RateLimited || e.RetryAfter != 24*time.Hour || e.Code != "9/2207042" {
		t.Fatalf("%+v", e)
	}
}
