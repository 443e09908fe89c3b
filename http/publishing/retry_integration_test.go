package publishing_test

import (
	"testing"
	"time"

	domain "github.com/platform/backend/domain/publishing"
	"github.com/platform/backend/internal/app"
	"github.com/platform/backend/internal/apptest"
	"github.com/platform/backend/internal/module"
	pubmod "github.com/platform/backend/internal/modules/publishing"
	"github.com/platform/backend/providers/fakekit"
	"github.com/platform/backend/providers/social/socialfake"
)

// Automatic retries of retryable publish failures, counted by the fake
// network: the requests it received and the posts it accepted.

func fastRetries(cfg *app.Config) {
	pub := module.SectionOf[*pubmod.Config](cfg.Modules)
	pub.Publisher.RetryBackoff = 200 * time.Millisecond
	pub.Publisher.RetryMaxBackoff = 400 * time.Millisecond
}

func target(p domain.Post) domain.Target { return p.Targets[0] }

// TestRateLimitedIsRetriedAfterTheNetworksWait: a 429 with Retry-After 2s
// fails the attempt with a retry time no sooner than the network asked;
// the durable timer sends a second attempt (its own key) once, although
// two platforms share the database.
func TestRateLimitedIsRetriedAfterTheNetworksWait(t *testing.T) {
	f := newFake(t)
	h1 := apptest.Start(t, withFake(f, fastRetries))
	h2 := apptest.Start(t, withFake(f, fastRetries, func(cfg *app.Config) { cfg.DatabaseURL, cfg.Kafka = h1.Config.DatabaseURL, h1.Config.Kafka }))
	b := newBrand(t, h1, "", "Acme")
	connect(t, h1, "", b.BrandID, "network_1")
	f.On(socialfake.OpPost).Next(1, fakekit.Fault{Kind: fakekit.RateLimit, RetryAfter: 2 * time.Second})
	p := createPost(t, h1, "", post(b.BrandID, "Wait for it", time.Now()))
	failed := waitPost(t, h1, p.PostID, 10*time.Second, "rate limited", allTargets(domain.StateFailed))
	fl := target(failed).Failure
	if fl.Code != domain.FailureRateLimited || fl.RetryAt == nil || fl.RetryAt.Sub(fl.At) < 2*time.Second {
		t.Fatalf("failure %+v", fl)
	}
	got := waitPost(t, h2, p.PostID, 15*time.Second, "published by the retry", allTargets(domain.StatePublished))
	if a := target(got).Attempt; a != 2 {
		t.Fatalf("attempt %d, want 2", a)
	}
	time.Sleep(time.Second)
	if n, r := f.PostCount(), len(f.RequestsOf(socialfake.OpPost)); n != 1 || r != 2 {
		t.Fatalf("the network accepted %d posts of %d requests, want 1 of 2", n, r)
	}
	first, last := f.RequestsOf(socialfake.OpPost)[0], f.RequestsOf(socialfake.OpPost)[1]
	if last.At.Sub(first.At) < 2*time.Second {
		t.Fatalf("sent again %v after the 429, before its Retry-After", last.At.Sub(first.At))
	}
}

// TestFaultsAreRetriedUpToTheBound: a network that keeps failing gets
// PUBLISHING_MAX_ATTEMPTS attempts (3), then the target stays failed with
// no retry scheduled; a person's retry then sends once more, and it goes.
func TestFaultsAreRetriedUpToTheBound(t *testing.T) {
	f := newFake(t)
	h := apptest.Start(t, withFake(f, fastRetries))
	b := newBrand(t, h, "", "Acme")
	connect(t, h, "", b.BrandID, "network_1")
	f.On(socialfake.OpPost).Next(3, fakekit.Fault{Kind: fakekit.ServerError})
	p := createPost(t, h, "", post(b.BrandID, "Keeps failing", time.Now()))
	got := waitPost(t, h, p.PostID, 15*time.Second, "failed for good", func(p domain.Post) bool {
		tg := target(p)
		return tg.State == domain.StateFailed && tg.Failure.RetryAt == nil
	})
	time.Sleep(time.Second) // no fourth attempt comes
	if tg := target(got); tg.Attempt != 3 || tg.Failure.Code != domain.FailureProviderFault || !tg.Failure.Retryable {
		t.Fatalf("target %+v", tg)
	}
	if n, r := f.PostCount(), len(f.RequestsOf(socialfake.OpPost)); n != 0 || r != 3 {
		t.Fatalf("the network accepted %d posts of %d requests, want 0 of 3", n, r)
	}
	apptest.Must(t, h.Do(t, "publishing", "POST", "/api/content-ops/items/"+p.PostID+"/retry", "", nil), 200, "retry")
	waitPost(t, h, p.PostID, 15*time.Second, "published", allTargets(domain.StatePublished))
	if n, r := f.PostCount(), len(f.RequestsOf(socialfake.OpPost)); n != 1 || r != 4 {
		t.Fatalf("the network accepted %d posts of %d requests, want 1 of 4", n, r)
	}
}

// TestRejectionsAndRevokedGrantsAreNotRetried: content the network refuses
// and a grant the user revoked fail once and stay failed, not retryable
// (other content, or connecting again, is what helps).
func TestRejectionsAndRevokedGrantsAreNotRetried(t *testing.T) {
	f := newFake(t)
	h := apptest.Start(t, withFake(f, fastRetries))
	b := newBrand(t, h, "", "Acme")
	connect(t, h, "", b.BrandID, "network_1")
	f.On(socialfake.OpPost).Next(1, fakekit.Fault{Kind: fakekit.Reject, Code: "too_long"})
	refused := createPost(t, h, "", post(b.BrandID, "Refused", time.Now()))
	waitPost(t, h, refused.PostID, 10*time.Second, "rejected", allTargets(domain.StateFailed))
	f.RevokeGrants()
	revoked := createPost(t, h, "", post(b.BrandID, "No grant", time.Now()))
	waitPost(t, h, revoked.PostID, 10*time.Second, "reconnect", allTargets(domain.StateFailed))
	time.Sleep(1500 * time.Millisecond) // several backoffs
	for id, code := range map[string]string{refused.PostID: domain.FailureRejected, revoked.PostID: domain.FailureReconnect} {
		tg := target(waitPost(t, h, id, time.Second, "still failed", allTargets(domain.StateFailed)))
		if tg.Attempt != 1 || tg.Failure.Code != code || tg.Failure.RetryAt != nil || tg.Failure.Retryable {
			t.Fatalf("target %+v, failure %+v: want one attempt failed %s, not retryable, without a retry", tg, tg.Failure, code)
		}
	}
	if n, r := f.PostCount(), len(f.RequestsOf(socialfake.OpPost)); n != 0 || r > 2 {
		t.Fatalf("the network accepted %d posts of %d requests, want 0 of at most 2", n, r)
	}
}

// TestMissingConnectionIsNotRetryable: a target whose brand has no
// connection for its network fails no_connection, not retryable (nothing
// changes by waiting: someone connects an account, then retries) and with
// no retry scheduled; the network is never called.
func TestMissingConnectionIsNotRetryable(t *testing.T) {
	f := newFake(t)
	h := apptest.Start(t, withFake(f, fastRetries))
	b := newBrand(t, h, "", "Acme") // never connected
	p := createPost(t, h, "", post(b.BrandID, "Nowhere to go", time.Now()))
	waitPost(t, h, p.PostID, 10*time.Second, "failed", allTargets(domain.StateFailed))
	time.Sleep(1500 * time.Millisecond) // several backoffs
	tg := target(waitPost(t, h, p.PostID, time.Second, "still failed", allTargets(domain.StateFailed)))
	if tg.Attempt != 1 || tg.Failure.Code != domain.FailureNoConnection || tg.Failure.Retryable || tg.Failure.RetryAt != nil {
		t.Fatalf("target %+v, failure %+v: want one attempt failed no_connection, not retryable, no retry", tg, tg.Failure)
	}
	if r := len(f.RequestsOf(socialfake.OpPost)); r != 0 {
		t.Fatalf("the network got %d requests", r)
	}
}

// TestAutomaticRetryResumesAThread: item 2 of 3 hits a fault; the retry
// sends item 2 (as a reply to item 1) and the chain goes on; item 1 is
// never sent again.
func TestAutomaticRetryResumesAThread(t *testing.T) {
	f := newFake(t)
	h := apptest.Start(t, withFake(f, fastRetries))
	b := newBrand(t, h, "", "Acme")
	connect(t, h, "", b.BrandID, "network_1")
	f.On(socialfake.OpPost).Then(fakekit.Fault{}, fakekit.Fault{Kind: fakekit.ServerError})
	body := post(b.BrandID, "1/3 first", time.Now())
	body["thread"] = []map[string]any{{"text": "2/3 second"}, {"text": "3/3 third"}}
	p := createPost(t, h, "", body)
	waitPost(t, h, p.PostID, 20*time.Second, "thread published", allTargets(domain.StatePublished))
	posts := f.Posts()
	if len(posts) != 3 || len(f.RequestsOf(socialfake.OpPost)) != 4 {
		t.Fatalf("the network accepted %d posts of %d requests, want 3 of 4", len(posts), len(f.RequestsOf(socialfake.OpPost)))
	}
	for i, fp := range posts {
		if i > 0 && fp.ReplyTo != posts[i-1].ID {
			t.Fatalf("item %d replies to %q, want %q", i+1, fp.ReplyTo, posts[i-1].ID)
		}
	}
}
