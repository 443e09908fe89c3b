package mastodon_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"mime"
	"mime/multipart"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/platform/backend/providers/fakekit"
	"github.com/platform/backend/providers/outcome"
	"github.com/platform/backend/providers/social"
	"github.com/platform/backend/providers/social/mastodon"
	"github.com/platform/backend/providers/social/socialfake"
	"github.com/platform/backend/providers/social/socialtest"
)

func image(alt string) social.Media {
	return social.Media{Kind: social.MediaImage, ContentType: "image/png", AltText: alt,
		Open: func(context.Context) (io.ReadCloser, error) { return io.NopCloser(strings.NewReader("png")), nil }}
}

func TestStatusOnTheWire(t *testing.T) {
	c, f := start(t)
	defer f.Close()
	conn := f.Connection()
	first, err := c.Publish(context.Background(), conn, social.Post{Text: "1/2", IdempotencyKey: "post-1:target-6:attempt-1"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Publish(context.Background(), conn, social.Post{Text: "2/2 with a photo", ReplyTo: first.ID, Visibility: social.VisibilityFollowers,
		Media: []social.Media{image("a plate")}, IdempotencyKey: "post-1:target-6:attempt-1:item-2"})
	if err != nil {
		t.Fatal(err)
	}
	posts := f.RequestsOf(socialfake.OpPost)
	if posts[0].Header.Get("Idempotency-Key") != "post-1:target-6:attempt-1" {
		t.Fatalf("idempotency key %q", posts[0].Header.Get("Idempotency-Key"))
	}
	var body map[string]any
	_ = json.Unmarshal(posts[1].Body, &body)
	mediaID := f.Posts()[1].Media[0]
	want := map[string]any{"status": "2/2 with a photo", "in_reply_to_id": first.ID, "visibility": "private", "media_ids": []any{mediaID}}
	if !reflect.DeepEqual(body, want) {
		t.Fatalf("body %v, want %v", body, want)
	}
	upload := f.RequestsOf(socialfake.OpMedia)[0]
	_, params, _ := mime.ParseMediaType(upload.Header.Get("Content-Type"))
	mr := multipart.NewReader(bytes.NewReader(upload.Body), params["boundary"])
	fields := map[string]string{}
	for p, err := mr.NextPart(); err == nil; p, err = mr.NextPart() {
		b, _ := io.ReadAll(p)
		fields[p.FormName()] = string(b)
	}
	if fields["file"] != "png" || fields["description"] != "a plate" {
		t.Fatalf("upload fields %v", fields)
	}
}

// TestIdempotencyKeyMakesARetrySafe: Mastodon answers a repeated key with
// the first status, so a retry with the unconfirmed attempt's key after an
// accepted-then-timeout posts nothing new.
func TestIdempotencyKeyMakesARetrySafe(t *testing.T) {
	c, f := start(t)
	defer f.Close()
	conn := f.Connection()
	p := social.Post{Text: "exactly once", IdempotencyKey: "post-9:target-6:attempt-1"}
	f.On(socialfake.OpPost).Next(1, fakekit.Fault{Kind: fakekit.AcceptThenTimeout})
	_, err := c.Publish(context.Background(), conn, p)
	if outcome.Of(err) != social.KindOutcomeUnknown {
		t.Fatalf("%v", err)
	}
	got, err := c.Publish(context.Background(), conn, p)
	if err != nil {
		t.Fatal(err)
	}
	if f.PostCount() != 1 || f.Posts()[0].ID != got.ID {
		t.Fatalf("%d posts; the retry answered %s", f.PostCount(), got.ID)
	}
}

func TestMediaProcessingIsAwaited(t *testing.T) {
	c, f := start(t)
	defer f.Close()
	f.ProcessingPolls(2)
	if _, err := c.Publish(context.Background(), f.Connection(), social.Post{Text: "slow image", Media: []social.Media{image("")}}); err != nil {
		t.Fatal(err)
	}
	if n := len(f.RequestsOf(socialfake.OpStatus)); n != 3 {
		t.Fatalf("%d media polls, want 3 (206, 206, 200)", n)
	}
}

func TestReplyToAMissingStatus(t *testing.T) {
	c, f := start(t)
	defer f.Close()
	_, err := c.Publish(context.Background(), f.Connection(), social.Post{Text: "orphan", ReplyTo: "1"})
	if e, _ := social.AsError(err); e == nil || e.Kind != outcome.Rejected || e.Reason != social.ReasonReplyTarget {
		t.Fatalf("%v", err)
	}
}

func TestRateLimitReadsTheISOReset(t *testing.T) {
	c, f := start(t)
	defer f.Close()
	f.On(socialfake.OpPost).Next(1, fakekit.Fault{Kind: fakekit.RateLimit, RetryAfter: 5 * time.Minute})
	_, err := c.Publish(context.Background(), f.Connection(), social.Post{Text: "x"})
	if e, _ := social.AsError(err); e == nil || e.Kind != outcome.RateLimited || e.RetryAfter < 5*time.Minute-time.Second || e.RetryAfter > 5*time.Minute+time.Second {
		t.Fatalf("%+v", e)
	}
}

// TestRecordedAnswers replays real-shaped Mastodon answers from testdata.
func TestRecordedAnswers(t *testing.T) {
	base := socialtest.Replay(t, map[string]socialtest.Recorded{
		"POST /api/v1/statuses":                            {Status: 200, File: "status_200.json"},
		"GET /api/v1/accounts/109876543210000001/statuses": {Status: 200, File: "statuses_200.json"},
		"GET /api/v1/accounts/verify_credentials":          {Status: 401, File: "invalid_token_401.json"},
	})
	c, err := mastodon.New(mastodon.Config{ClientID: "c", ClientSecret: "s"}.At(base))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	conn := social.Connection{Token: social.Token{AccessToken: "t"}, Account: social.Account{ID: "109876543210000001"}}
	got, err := c.Publish(ctx, conn, social.Post{Text: "Fish & chips tonight\n\nBook: https://bistro.example/book"})
	if err != nil || got.ID != "114432100000000001" || got.URL != "https://social.example/@bistro/114432100000000001" {
		t.Fatalf("publish %+v %v", got, err)
	}
	since := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	found, err := c.Lookup(ctx, conn, social.Query{Text: "Fish & chips tonight\n\nBook: https://bistro.example/book", Since: since})
	if err != nil || found.State != social.LookupFound || found.Post.ID != "114432100000000001" {
		t.Fatalf("lookup %+v %v", found, err)
	}
	reply, err := c.Lookup(ctx, conn, social.Query{Text: "2/ Desserts\nare on us", ReplyTo: "114432100000000001", Since: since})
	if err != nil || reply.State != social.LookupFound || reply.Post.ID != "114432100000000002" {
		t.Fatalf("lookup of the reply %+v %v", reply, err)
	}
	_, err = c.Refresh(ctx, conn.Token)
	if e, _ := social.AsError(err); e == nil || e.Kind != outcome.Unauthorized || e.Reason != social.ReasonGrantRevoked || e.Op != "refresh" {
		t.Fatalf("refresh of a revoked token: %+v", e)
	}

	refused := socialtest.Replay(t, map[string]socialtest.Recorded{"POST /api/v1/statuses": {Status: 422, File: "too_long_422.json"}})
	c, _ = mastodon.New(mastodon.Config{ClientID: "c", ClientSecret: "s", MaxCharacters: 5000}.At(refused))
	_, err = c.Publish(ctx, conn, social.Post{Text: strings.Repeat("a", 600)})
	if e, _ := social.AsError(err); e == nil || e.Kind != outcome.Rejected || e.Reason != social.ReasonTooLong {
		t.Fatalf("too long: %+v", e)
	}
}
