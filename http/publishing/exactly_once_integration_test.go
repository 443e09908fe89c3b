package publishing_test

import (
	"net/http"
	"strconv"
	"testing"
	"time"

	domain "github.com/platform/backend/domain/publishing"
	"github.com/platform/backend/internal/app"
	"github.com/platform/backend/internal/apptest"
	"github.com/platform/backend/internal/module"
	pubmod "github.com/platform/backend/internal/modules/publishing"
	"github.com/platform/backend/providers/fakekit"
	"github.com/platform/backend/providers/social/socialfake"
	xfake "github.com/platform/backend/providers/social/x/fake"
)

// The proofs of issue #12: whatever fails where, every target is posted
// exactly once, counted by the fake network.

// quick makes unsettled attempts settle within a test: short sends, a short
// claim lease (its end is a timer: polled often).
func quick(cfg *app.Config) {
	pub := module.SectionOf[*pubmod.Config](cfg.Modules)
	pub.Publisher.SendTimeout = 2 * time.Second
	pub.Publisher.ClaimLease = 4 * time.Second
	cfg.Timers.PollInterval = 100 * time.Millisecond
}

// withFake points network_1 at a fake the test owns (several platforms can
// share it, as processes share the real network).
func withFake(f *xfake.Fake, more ...func(*app.Config)) apptest.Options {
	return apptest.Options{Configure: func(cfg *app.Config) {
		quick(cfg)
		pub := module.SectionOf[*pubmod.Config](cfg.Modules)
		pub.Networks = map[string]pubmod.NetworkConfig{"network_1": {BaseURL: f.URL(), ClientID: f.ClientID(), ClientSecret: f.ClientSecret()}}
		for _, m := range more {
			m(cfg)
		}
	}}
}

func newFake(t *testing.T) *xfake.Fake {
	f := xfake.Start(socialfake.Options{Consent: socialfake.ConsentApprove})
	t.Cleanup(f.Close)
	return f
}

func post(brandID, text string, at time.Time, targets ...map[string]any) map[string]any {
	if len(targets) == 0 {
		targets = []map[string]any{{"network": "network_1"}}
	}
	return map[string]any{"brandId": brandID, "text": text, "targets": targets, "publishAt": at.UTC().Format(time.RFC3339Nano)}
}

// TestAcceptedThenTimeout: the network stores the post and never answers;
// the target is unconfirmed, the reconciler finds the post by reading the
// network and records it published. Nothing is sent twice.
func TestAcceptedThenTimeout(t *testing.T) {
	f := newFake(t)
	h := apptest.Start(t, withFake(f))
	b := newBrand(t, h, "", "Acme")
	connect(t, h, "", b.BrandID, "network_1")
	f.On(socialfake.OpPost).Next(1, fakekit.Fault{Kind: fakekit.AcceptThenTimeout})
	p := createPost(t, h, "", post(b.BrandID, "Accepted, then silence", time.Now()))
	waitPost(t, h, p.PostID, 10*time.Second, "unconfirmed", allTargets(domain.StateUnconfirmed))
	got := waitPost(t, h, p.PostID, 30*time.Second, "reconciled", allTargets(domain.StatePublished))
	if n := f.PostCount(); n != 1 {
		t.Fatalf("the network received %d posts, want 1", n)
	}
	if *got.Targets[0].PlatformPostID != f.Posts()[0].ID {
		t.Fatalf("recorded %s, the network has %s", *got.Targets[0].PlatformPostID, f.Posts()[0].ID)
	}
}

// TestRetryAfterPartialFailure: one of two targets fails; the post is
// partially published; a retry sends the failed target only.
func TestRetryAfterPartialFailure(t *testing.T) {
	f := newFake(t)
	h := apptest.Start(t, withFake(f))
	b := newBrand(t, h, "", "Acme")
	connect(t, h, "", b.BrandID, "network_1")
	f.SetUser("second-account")
	connect(t, h, "", b.BrandID, "network_1")
	f.On(socialfake.OpPost).Next(1, fakekit.Fault{Kind: fakekit.ServerError})
	p := createPost(t, h, "", post(b.BrandID, "Two accounts", time.Now(),
		map[string]any{"network": "network_1", "accountId": xfake.UserID}, map[string]any{"network": "network_1", "accountId": "second-account"}))
	got := waitPost(t, h, p.PostID, 15*time.Second, "partially published", func(p domain.Post) bool { return p.Status == domain.StatusPartiallyPublished })
	var failed domain.Target
	for _, tg := range got.Targets {
		if tg.State == domain.StateFailed {
			failed = tg
		}
	}
	if failed.Failure == nil || !failed.Failure.Retryable || failed.Failure.Code != "provider_fault" {
		t.Fatalf("failed target %+v", failed)
	}
	apptest.Must(t, h.Do(t, "publishing", http.MethodPost, "/api/content-ops/items/"+p.PostID+"/retry", "", nil), http.StatusOK, "retry")
	waitPost(t, h, p.PostID, 15*time.Second, "published", allTargets(domain.StatePublished))
	if n := f.PostCount(); n != 2 {
		t.Fatalf("the network received %d posts, want 2 (one per account)", n)
	}
	accounts := map[string]int{}
	for _, fp := range f.Posts() {
		accounts[fp.Account]++
	}
	if accounts[xfake.UserID] != 1 || accounts["second-account"] != 1 {
		t.Fatalf("posts per account %v", accounts)
	}
	// Nothing left to retry.
	apptest.ExpectProblem(t, h.Do(t, "publishing", http.MethodPost, "/api/content-ops/items/"+p.PostID+"/retry", "", nil),
		http.StatusConflict, "nothing_to_retry")
}

// TestThreadResumes: item 2 of 3 fails, the chain stops there; a retry
// resumes at item 2 as a reply to item 1 and never posts item 1 again.
func TestThreadResumes(t *testing.T) {
	f := newFake(t)
	h := apptest.Start(t, withFake(f))
	b := newBrand(t, h, "", "Acme")
	connect(t, h, "", b.BrandID, "network_1")
	f.On(socialfake.OpPost).Then(fakekit.Fault{}, fakekit.Fault{Kind: fakekit.RateLimit})
	body := post(b.BrandID, "1/3 first", time.Now())
	body["thread"] = []map[string]any{{"text": "2/3 second"}, {"text": "3/3 third"}}
	p := createPost(t, h, "", body)
	got := waitPost(t, h, p.PostID, 15*time.Second, "failed at item 2", allTargets(domain.StateFailed))
	if tg := got.Targets[0]; len(tg.Published) != 1 || tg.Failure.Item != 1 || tg.Failure.Code != "rate_limited" {
		t.Fatalf("target %+v", tg)
	}
	if f.PostCount() != 1 {
		t.Fatalf("the chain did not stop: %d posts", f.PostCount())
	}
	apptest.Must(t, h.Do(t, "publishing", http.MethodPost, "/api/content-ops/items/"+p.PostID+"/retry", "", nil), http.StatusOK, "retry")
	got = waitPost(t, h, p.PostID, 20*time.Second, "thread published", allTargets(domain.StatePublished))
	posts := f.Posts()
	if len(posts) != 3 {
		t.Fatalf("the network received %d posts, want 3", len(posts))
	}
	for i, fp := range posts {
		if i > 0 && fp.ReplyTo != posts[i-1].ID {
			t.Fatalf("item %d replies to %q, want %q", i+1, fp.ReplyTo, posts[i-1].ID)
		}
	}
	if ids := got.Targets[0].Published; len(ids) != 3 || ids[2].PlatformPostID != posts[2].ID {
		t.Fatalf("recorded %+v", ids)
	}
	res := h.Do(t, "publishing", http.MethodGet, "/api/posts?threadId="+p.PostID, "", nil)
	apptest.Must(t, res, http.StatusOK, "thread list")
}

// TestTwoProcessesOneDuePost: two platforms on the same database and log
// fire the same due posts: each post is claimed, sent and recorded once.
func TestTwoProcessesOneDuePost(t *testing.T) {
	f := newFake(t)
	h1 := apptest.Start(t, withFake(f))
	h2 := apptest.Start(t, withFake(f, func(cfg *app.Config) {
		cfg.DatabaseURL, cfg.Kafka = h1.Config.DatabaseURL, h1.Config.Kafka
	}))
	b := newBrand(t, h1, "", "Acme")
	connect(t, h1, "", b.BrandID, "network_1")
	at := time.Now().Add(2 * time.Second)
	const n = 20
	ids := make([]string, n)
	for i := range n {
		ids[i] = createPost(t, h1, "", post(b.BrandID, "Due together "+itoa(i), at)).PostID
	}
	for _, id := range ids {
		waitPost(t, h2, id, 30*time.Second, "published", allTargets(domain.StatePublished))
	}
	if c := f.PostCount(); c != n {
		t.Fatalf("the network received %d posts, want %d", c, n)
	}
}

// TestEditOneSecondBeforePublish: the claim at publish time reads the post
// as it is then, so copy edited a second before is what the network gets.
func TestEditOneSecondBeforePublish(t *testing.T) {
	f := newFake(t)
	h := apptest.Start(t, withFake(f))
	b := newBrand(t, h, "", "Acme")
	connect(t, h, "", b.BrandID, "network_1")
	at := time.Now().Add(3 * time.Second)
	p := createPost(t, h, "", post(b.BrandID, "First draft", at))
	time.Sleep(time.Until(at.Add(-time.Second)))
	res := h.Do(t, "publishing", http.MethodPut, "/api/posts/"+p.PostID, "", map[string]any{"text": "Final copy"})
	apptest.Must(t, res, http.StatusOK, "edit")
	waitPost(t, h, p.PostID, 15*time.Second, "published", allTargets(domain.StatePublished))
	if posts := f.Posts(); len(posts) != 1 || posts[0].Text != "Final copy" {
		t.Fatalf("the network received %+v", posts)
	}
}

// TestCatchUpAfterDowntime: a post falls due while no platform runs; the
// next one to start publishes it, once.
func TestCatchUpAfterDowntime(t *testing.T) {
	f := newFake(t)
	h1 := apptest.Start(t, withFake(f))
	b := newBrand(t, h1, "", "Acme")
	connect(t, h1, "", b.BrandID, "network_1")
	p := createPost(t, h1, "", post(b.BrandID, "Due while down", time.Now().Add(1500*time.Millisecond)))
	h1.Stop()
	time.Sleep(2 * time.Second)
	if f.PostCount() != 0 {
		t.Fatal("published while down")
	}
	h2 := apptest.Start(t, withFake(f, func(cfg *app.Config) { cfg.DatabaseURL, cfg.Kafka = h1.Config.DatabaseURL, h1.Config.Kafka }))
	waitPost(t, h2, p.PostID, 20*time.Second, "published late", allTargets(domain.StatePublished))
	time.Sleep(time.Second)
	if c := f.PostCount(); c != 1 {
		t.Fatalf("the network received %d posts, want 1", c)
	}
}

func itoa(i int) string { return strconv.Itoa(i) }
