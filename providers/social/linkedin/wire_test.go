package linkedin_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/platform/backend/providers/fakekit"
	"github.com/platform/backend/providers/outcome"
	"github.com/platform/backend/providers/social"
	"github.com/platform/backend/providers/social/linkedin"
	"github.com/platform/backend/providers/social/socialfake"
	"github.com/platform/backend/providers/social/socialtest"
)

// TestPostOnTheWire: the versioned headers, the author URN, little text
// escaped, visibility and distribution; the URN comes from x-restli-id.
func TestPostOnTheWire(t *testing.T) {
	c, f := start(t)
	defer f.Close()
	conn := f.Connection()
	text := "Launch (v2) is #live @team: 50% off_today *only* [really] <3 ~ {ok} | \\o/"
	got, err := c.Publish(context.Background(), conn, social.Post{Text: text, Visibility: social.VisibilityFollowers})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(got.ID, "urn:li:share:") || got.URL != f.URL()+"/feed/update/"+got.ID+"/" {
		t.Fatalf("published %+v", got)
	}
	if stored := f.Posts()[0]; stored.Text != text {
		t.Fatalf("LinkedIn read %q, want %q", stored.Text, text)
	}
	req := f.RequestsOf(socialfake.OpPost)[0]
	for k, v := range map[string]string{"LinkedIn-Version": "202505", "X-Restli-Protocol-Version": "2.0.0",
		"Authorization": "Bearer " + conn.Token.AccessToken, "Content-Type": "application/json"} {
		if req.Header.Get(k) != v {
			t.Errorf("%s = %q, want %q", k, req.Header.Get(k), v)
		}
	}
	var body map[string]any
	_ = json.Unmarshal(req.Body, &body)
	want := map[string]any{
		"author":     conn.Account.ID,
		"commentary": `Launch \(v2\) is \#live \@team: 50% off\_today \*only\* \[really\] \<3 \~ \{ok\} \| \\o/`,
		"visibility": "CONNECTIONS", "lifecycleState": "PUBLISHED", "isReshareDisabledByAuthor": false,
		"distribution": map[string]any{"feedDistribution": "MAIN_FEED", "targetEntities": []any{}, "thirdPartyDistributionChannels": []any{}},
	}
	if !reflect.DeepEqual(body, want) {
		t.Fatalf("body %v\nwant %v", body, want)
	}
}

func TestImageAndArticle(t *testing.T) {
	c, f := start(t)
	defer f.Close()
	conn := f.Connection()
	img := social.Media{Kind: social.MediaImage, ContentType: "image/jpeg", AltText: "a plate",
		Open: func(context.Context) (io.ReadCloser, error) {
			return io.NopCloser(strings.NewReader("jpeg bytes")), nil
		}}
	if _, err := c.Publish(context.Background(), conn, social.Post{Text: "with a photo", Media: []social.Media{img}}); err != nil {
		t.Fatal(err)
	}
	media := f.RequestsOf(socialfake.OpMedia)
	if len(media) != 2 || media[0].Method != http.MethodPost || media[0].Query().Get("action") != "initializeUpload" ||
		media[1].Method != http.MethodPut || string(media[1].Body) != "jpeg bytes" {
		t.Fatalf("upload calls %+v", media)
	}
	var body struct {
		Content struct {
			Media struct{ ID, AltText string }
		}
	}
	_ = json.Unmarshal(f.RequestsOf(socialfake.OpPost)[0].Body, &body)
	if !strings.HasPrefix(body.Content.Media.ID, "urn:li:image:") || body.Content.Media.AltText != "a plate" {
		t.Fatalf("content %+v", body.Content)
	}
	if _, err := c.Publish(context.Background(), conn, social.Post{Text: "read this", Link: "https://bistro.example/news", Title: "News"}); err != nil {
		t.Fatal(err)
	}
	if p := f.Posts()[1]; p.Link != "https://bistro.example/news" || p.Title != "News" || p.Text != "read this" {
		t.Fatalf("article post %+v", p)
	}
}

// TestDuplicateNamesTheExistingPost: LinkedIn's duplicate refusal carries
// the URN of the post that exists, which settles an unknown outcome when
// the read scope is missing.
func TestDuplicateNamesTheExistingPost(t *testing.T) {
	c, f := start(t)
	defer f.Close()
	conn := f.Connection()
	first, err := c.Publish(context.Background(), conn, social.Post{Text: "once"})
	if err != nil {
		t.Fatal(err)
	}
	f.On(socialfake.OpPost).Next(1, fakekit.Fault{Kind: fakekit.Reject, Code: socialfake.ReasonDuplicate})
	_, err = c.Publish(context.Background(), conn, social.Post{Text: "once"})
	e, _ := social.AsError(err)
	if e == nil || e.Reason != social.ReasonDuplicate || e.DuplicateOf != first.ID {
		t.Fatalf("%+v, want a duplicate of %s", e, first.ID)
	}
	noRead := conn
	noRead.Token.AccessToken = f.IssueGrant(conn.Account.ID, []string{"openid", "profile", "w_member_social"}).Access
	_, err = c.Lookup(context.Background(), noRead, social.Query{Text: "once", Since: time.Now()})
	if e, _ := social.AsError(err); e == nil || e.Kind != outcome.Unauthorized || e.Reason != social.ReasonScopeMissing {
		t.Fatalf("lookup without r_member_social: %v", err)
	}
}

// TestRecordedAnswers replays real-shaped LinkedIn answers from testdata.
func TestRecordedAnswers(t *testing.T) {
	base := socialtest.Replay(t, map[string]socialtest.Recorded{
		"GET /rest/posts":  {Status: 200, File: "posts_by_author_200.json"},
		"POST /rest/posts": {Status: 201, File: "created_201.json", Header: map[string]string{"x-restli-id": "urn:li:share:7323901234567890123"}},
		"GET /v2/userinfo": {Status: 200, File: "userinfo_200.json"},
	})
	c, err := linkedin.New(linkedin.Config{ClientID: "c", ClientSecret: "s"}.At(base))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	accounts, err := c.Accounts(ctx, social.Token{AccessToken: "t"})
	if err != nil || accounts[0].ID != "urn:li:person:Xy7Pq2AbCd" || accounts[0].Name != "Dana Baker" {
		t.Fatalf("accounts %+v %v", accounts, err)
	}
	conn := social.Connection{Token: social.Token{AccessToken: "t"}, Account: accounts[0]}
	got, err := c.Publish(ctx, conn, social.Post{Text: "Spring menu (vegetarian) is live #food"})
	if err != nil || got.ID != "urn:li:share:7323901234567890123" {
		t.Fatalf("publish %+v %v", got, err)
	}
	found, err := c.Lookup(ctx, conn, social.Query{Text: "Spring menu (vegetarian) is live #food", Since: time.UnixMilli(1777636800000)})
	if err != nil || found.State != social.LookupFound || found.Post.ID != "urn:li:share:7323901234567890123" {
		t.Fatalf("lookup %+v %v", found, err)
	}

	errs := socialtest.Replay(t, map[string]socialtest.Recorded{
		"POST /rest/posts": {Status: 422, File: "duplicate_422.json"},
		"GET /rest/posts":  {Status: 401, File: "revoked_401.json"},
	})
	c, _ = linkedin.New(linkedin.Config{ClientID: "c", ClientSecret: "s"}.At(errs))
	_, err = c.Publish(ctx, conn, social.Post{Text: "again"})
	if e, _ := social.AsError(err); e == nil || e.Reason != social.ReasonDuplicate || e.DuplicateOf != "urn:li:share:7323901234567890123" {
		t.Fatalf("duplicate: %v", err)
	}
	_, err = c.Lookup(ctx, conn, social.Query{Text: "x"})
	if e, _ := social.AsError(err); e == nil || e.Kind != outcome.Unauthorized || e.Reason != social.ReasonTokenRevoked || e.Code != "REVOKED_ACCESS_TOKEN" {
		t.Fatalf("revoked: %+v", e)
	}
}

func TestRateLimitWithoutHeaderWaitsForMidnightUTC(t *testing.T) {
	now := time.Date(2026, 5, 1, 22, 30, 0, 0, time.UTC)
	base := socialtest.Replay(t, map[string]socialtest.Recorded{"POST /rest/posts": {Status: 429, File: "revoked_401.json"}})
	cfg := linkedin.Config{ClientID: "c", ClientSecret: "s"}.At(base)
	cfg.Now = func() time.Time { return now }
	c, _ := linkedin.New(cfg)
	_, err := c.Publish(context.Background(), social.Connection{Token: social.Token{AccessToken: "t"}, Account: social.Account{ID: "urn:li:person:a"}}, social.Post{Text: "x"})
	if e, _ := social.AsError(err); e == nil || e.Kind != outcome.RateLimited || e.RetryAfter != 90*time.Minute {
		t.Fatalf("%+v", e)
	}
}

func TestConfigValidate(t *testing.T) {
	for name, cfg := range map[string]linkedin.Config{
		"no secret":   {ClientID: "c"},
		"bad version": {ClientID: "c", ClientSecret: "s", Version: "2025-05"},
	} {
		if _, err := linkedin.New(cfg); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
