package publishing_test

import (
	"context"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/platform/backend/commands"
	pubcmd "github.com/platform/backend/commands/publishing"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/internal/apptest"
)

// TestThousandPostsDueInOneSecond: 1,000 posts due in the same second all
// go out, once each; the time each took from its publish time to the
// network's receipt is reported.
func TestThousandPostsDueInOneSecond(t *testing.T) {
	if testing.Short() {
		t.Skip("1,000 posts: not in -short")
	}
	f := newFake(t)
	h := apptest.Start(t, withFake(f))
	b := newBrand(t, h, "", "Acme")
	connect(t, h, "", b.BrandID, "network_1")
	cmds := apptest.Provided[*pubcmd.Handlers](h)
	meta := commands.Meta{OrganizationID: h.OrgID, Actor: eventstore.Actor{ID: "load", Type: "user"}}
	const n = 1000
	at := time.Now().Add(20 * time.Second).UTC().Truncate(time.Second)
	created := time.Now()
	var wg sync.WaitGroup
	errs := make(chan error, n)
	sem := make(chan struct{}, 8)
	for i := range n {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			_, err := cmds.CreatePost(context.Background(), meta, pubcmd.CreatePost{BrandID: b.BrandID, Text: "Post " + strconv.Itoa(i),
				Targets: []pubcmd.TargetIn{{Network: "network_1"}}, PublishAt: &at})
			if err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if time.Now().After(at) {
		t.Fatalf("creating %d posts took %s: past their publish time", n, time.Since(created))
	}
	t.Logf("created %d posts in %s, due at %s", n, time.Since(created).Round(time.Millisecond), at.Format(time.RFC3339))
	apptest.Eventually(t, 3*time.Minute, "every post sent", func() bool { return f.PostCount() >= n })
	time.Sleep(2 * time.Second) // anything sent twice would show now
	posts := f.Posts()
	if len(posts) != n {
		t.Fatalf("the network received %d posts, want %d", len(posts), n)
	}
	seen := map[string]bool{}
	lateness := make([]time.Duration, 0, n)
	for _, p := range posts {
		if seen[p.Text] {
			t.Fatalf("%q was posted twice", p.Text)
		}
		seen[p.Text] = true
		lateness = append(lateness, p.Created.Sub(at))
	}
	slices.Sort(lateness)
	pct := func(q float64) time.Duration { return lateness[min(len(lateness)-1, int(q*float64(len(lateness))))] }
	t.Logf("publish time -> network receipt over %d posts: min %s, p50 %s, p90 %s, p99 %s, max %s",
		n, lateness[0].Round(time.Millisecond), pct(0.5).Round(time.Millisecond), pct(0.9).Round(time.Millisecond),
		pct(0.99).Round(time.Millisecond), lateness[n-1].Round(time.Millisecond))
}
