package facebook_test

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/platform/backend/providers/fakekit"
	"github.com/platform/backend/providers/outcome"
	"github.com/platform/backend/providers/social"
	"github.com/platform/backend/providers/social/facebook"
	"github.com/platform/backend/providers/social/facebook/fake"
	"github.com/platform/backend/providers/social/socialfake"
	"github.com/platform/backend/providers/social/socialtest"
)

// TestPageFeedOnTheWire: the post goes to /{version}/{page-id}/feed as a
// form with the page's own token.
func TestPageFeedOnTheWire(t *testing.T) {
	c, f := start(t)
	defer f.Close()
	conn := f.Connection()
	got, err := c.Publish(context.Background(), conn, social.Post{Text: "Spring menu", Link: "https://bistro.example/menu"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(got.ID, fake.PageID+"_") || got.URL != f.URL()+"/"+got.ID {
		t.Fatalf("published %+v", got)
	}
	req := f.RequestsOf(socialfake.OpPost)[0]
	form, _ := url.ParseQuery(string(req.Body))
	if req.Path != "/v23.0/"+fake.PageID+"/feed" || form.Get("message") != "Spring menu" || form.Get("link") != "https://bistro.example/menu" ||
		req.Header.Get("Authorization") != "Bearer "+conn.Account.AccessToken {
		t.Fatalf("request %s %v %v", req.Path, form, req.Header)
	}
}

func TestPhotoPostUsesThePostID(t *testing.T) {
	c, f := start(t)
	defer f.Close()
	got, err := c.Publish(context.Background(), f.Connection(), social.Post{Text: "Tonight",
		Media: []social.Media{{Kind: social.MediaImage, URL: "https://cdn.example/plate.jpg", AltText: "a plate"}}})
	if err != nil {
		t.Fatal(err)
	}
	stored, ok := f.Post(got.ID)
	if !ok || stored.Media[0] != "https://cdn.example/plate.jpg" {
		t.Fatalf("stored %+v", stored)
	}
	req := f.RequestsOf(socialfake.OpPost)[0]
	form, _ := url.ParseQuery(string(req.Body))
	if !strings.HasSuffix(req.Path, "/photos") || form.Get("url") != "https://cdn.example/plate.jpg" || form.Get("alt_text_custom") != "a plate" {
		t.Fatalf("request %s %v", req.Path, form)
	}
}

// TestUserTokenCannotPostAsThePage: publishing needs the page chosen (and
// its token); the user's own token is refused with a permission error.
func TestUserTokenCannotPostAsThePage(t *testing.T) {
	c, f := start(t)
	defer f.Close()
	conn := f.Connection()
	conn.Account.AccessToken = ""
	if r := social.ReadinessOf(c.Info(), conn, time.Now()); r.Ready || r.AccountChosen {
		t.Fatalf("readiness without a page token: %+v", r)
	}
	_, err := c.Publish(context.Background(), conn, social.Post{Text: "as the user"})
	if e, _ := social.AsError(err); e == nil || e.Kind != outcome.Unauthorized || e.Reason != social.ReasonScopeMissing {
		t.Fatalf("%v", err)
	}
	if f.PostCount() != 0 {
		t.Fatal("posted as the user")
	}
}

// TestConnectMakesALongLivedToken: the code gives a short-lived token, the
// adapter exchanges it (fb_exchange_token) and reads the permissions.
func TestConnectMakesALongLivedToken(t *testing.T) {
	c, f := start(t)
	defer f.Close()
	f.SetConsent(socialfake.ConsentApprove)
	flow, _ := social.NewAuthFlow()
	u, _ := c.AuthorizeURL(social.AuthRequest{RedirectURI: socialtest.RedirectURI, State: flow.State, CodeChallenge: flow.CodeChallenge})
	if !strings.Contains(u, "/v23.0/dialog/oauth?") || !strings.Contains(u, "scope=pages_show_list%2Cpages_manage_posts%2Cpages_read_engagement") {
		t.Fatalf("authorize URL %s", u)
	}
	code := approve(t, u)
	tok, err := c.Exchange(context.Background(), social.CodeExchange{Code: code, CodeVerifier: flow.CodeVerifier, RedirectURI: socialtest.RedirectURI})
	if err != nil {
		t.Fatal(err)
	}
	if tok.Expiry.Before(time.Now().Add(59*24*time.Hour)) || len(tok.MissingScopes(facebook.DefaultScopes())) != 0 {
		t.Fatalf("token %+v", tok)
	}
	calls := f.RequestsOf(socialfake.OpToken)
	if len(calls) != 2 || calls[0].Query().Get("code") != code || calls[1].Query().Get("grant_type") != "fb_exchange_token" {
		t.Fatalf("token calls %+v", calls)
	}
}

func approve(t *testing.T, authorizeURL string) string {
	t.Helper()
	client := socialtest.NoRedirects()
	resp, err := client.Get(authorizeURL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	back, _ := url.Parse(resp.Header.Get("Location"))
	return back.Query().Get("code")
}

// TestRecordedAnswers replays real-shaped Graph answers from testdata.
func TestRecordedAnswers(t *testing.T) {
	base := socialtest.Replay(t, map[string]socialtest.Recorded{
		"GET /v23.0/104812345678901/feed":    {Status: 200, File: "feed_200.json"},
		"POST /v23.0/104812345678901/photos": {Status: 200, File: "photos_200.json"},
		"POST /v23.0/104812345678901/feed":   {Status: 400, File: "blocked_368.json"},
		"GET /v23.0/me/accounts":             {Status: 400, File: "expired_token_400.json"},
	})
	c, err := facebook.New(facebook.Config{ClientID: "app", ClientSecret: "secret"}.At(base))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	conn := social.Connection{Token: social.Token{AccessToken: "user"}, Account: social.Account{ID: "104812345678901", Kind: social.AccountPage, AccessToken: "page"}}
	found, err := c.Lookup(ctx, conn, social.Query{Text: "Spring menu is live", Since: time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)})
	if err != nil || found.State != social.LookupFound || found.Post.ID != "104812345678901_122101234567890123" ||
		found.Post.URL != "https://www.facebook.com/104812345678901/posts/122101234567890123" {
		t.Fatalf("lookup %+v %v", found, err)
	}
	photo, err := c.Publish(ctx, conn, social.Post{Media: []social.Media{{Kind: social.MediaImage, URL: "https://cdn.example/a.jpg"}}})
	if err != nil || photo.ID != "104812345678901_122101234567890999" {
		t.Fatalf("photo %+v %v", photo, err)
	}
	_, err = c.Publish(ctx, conn, social.Post{Text: "too fast"})
	if e, _ := social.AsError(err); e == nil || e.Kind != outcome.Rejected || e.Reason != social.ReasonBlocked || e.Code != "368/1390008" {
		t.Fatalf("blocked: %+v", e)
	}
	_, err = c.Accounts(ctx, conn.Token)
	if e, _ := social.AsError(err); e == nil || e.Kind != outcome.Unauthorized || e.Reason != social.ReasonTokenExpired {
		t.Fatalf("expired: %+v", e)
	}
}

func TestRateLimitReadsTheBusinessUsageHeader(t *testing.T) {
	c, f := start(t)
	defer f.Close()
	f.On(socialfake.OpPost).Next(1, fakekit.Fault{Kind: fakekit.RateLimit, RetryAfter: 10 * time.Minute})
	_, err := c.Publish(context.Background(), f.Connection(), social.Post{Text: "x"})
	if e, _ := social.AsError(err); e == nil || e.Kind != outcome.RateLimited || e.RetryAfter != 10*time.Minute || e.Code != "32" {
		t.Fatalf("%+v", e)
	}
}

func TestConfigValidate(t *testing.T) {
	for name, cfg := range map[string]facebook.Config{
		"no secret":   {ClientID: "a"},
		"bad version": {ClientID: "a", ClientSecret: "s", Version: "23"},
	} {
		if _, err := facebook.New(cfg); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
