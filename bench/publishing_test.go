package bench

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/platform/backend/commands"
	pubcmd "github.com/platform/backend/commands/publishing"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/internal/app"
	"github.com/platform/backend/internal/apptest"
	"github.com/platform/backend/internal/module"
	pubmod "github.com/platform/backend/internal/modules/publishing"
	"github.com/platform/backend/providers/social/socialfake"
	xfake "github.com/platform/backend/providers/social/x/fake"
)

const (
	publishPosts   = 2000 // scheduled posts, all due at the same second
	publishClients = 8    // clients of the raw command run
)

// BenchmarkScheduledPublishing: 2,000 posts with one target each, all due
// at the same second, against a zero-latency fake network (in-process HTTP,
// no scripted delay). Figures: targets published per second from the due
// time to the last network receipt, the lateness of each post (publish
// time to network receipt), and beside them the raw command rate of the
// same run: posts created through the same command store in-process, 8
// clients (the ceiling a publish is compared with: five commands, the
// post's claim, the item job's request, claim and outcome, the post's
// record, plus a timer claim, a hop through the log and a network call).
func BenchmarkScheduledPublishing(b *testing.B) {
	x := xfake.Start(socialfake.Options{Consent: socialfake.ConsentApprove})
	defer x.Close()
	h := apptest.Start(b, apptest.Options{Configure: func(cfg *app.Config) {
		pub := module.SectionOf[*pubmod.Config](cfg.Modules)
		pub.Networks = map[string]pubmod.NetworkConfig{"network_1": {BaseURL: x.URL(), ClientID: x.ClientID(), ClientSecret: x.ClientSecret()}}
		cfg.Timers.PollInterval = 100 * time.Millisecond
		cfg.Timers.BatchSize = 64
		cfg.Timers.Concurrency = 16
	}})
	ctx := context.Background()
	cmds := apptest.Provided[*pubcmd.Handlers](h)
	meta := commands.Meta{OrganizationID: h.OrgID, Actor: eventstore.Actor{ID: "bench", Type: "user"}}
	brand, err := cmds.CreateBrand(ctx, meta, pubcmd.CreateBrand{Name: "Bench"})
	must(b, err)
	connectBrand(b, h, brand.Value.BrandID)

	create := func(n int, at time.Time, prefix string) time.Duration {
		start := time.Now()
		var wg sync.WaitGroup
		var mu sync.Mutex
		var firstErr error
		next := make(chan int)
		for range publishClients {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range next {
					_, err := cmds.CreatePost(ctx, meta, pubcmd.CreatePost{BrandID: brand.Value.BrandID, Text: prefix + strconv.Itoa(i),
						Targets: []pubcmd.TargetIn{{Network: "network_1"}}, PublishAt: &at})
					if err != nil {
						mu.Lock()
						firstErr = err
						mu.Unlock()
					}
				}
			}()
		}
		for i := range n {
			next <- i
		}
		close(next)
		wg.Wait()
		must(b, firstErr)
		return time.Since(start)
	}

	// The raw command rate, measured first (posts due in a year: nothing
	// fires), then the scheduled run.
	rawTook := create(publishPosts, time.Now().Add(365*24*time.Hour), "raw ")
	rawRate := float64(publishPosts) / rawTook.Seconds()
	at := time.Now().Add(20 * time.Second).UTC().Truncate(time.Second)
	create(publishPosts, at, "due ")
	if time.Now().After(at) {
		b.Fatalf("creating %d posts took past their publish time", publishPosts)
	}
	db := h.App.Pool.Config().ConnConfig.Database
	time.Sleep(time.Until(at))
	b.ResetTimer()
	cpu0 := sampleCPU(db)
	deadline := time.Now().Add(5 * time.Minute)
	for x.PostCount() < publishPosts {
		if time.Now().After(deadline) {
			b.Fatalf("only %d of %d posts reached the network", x.PostCount(), publishPosts)
		}
		time.Sleep(10 * time.Millisecond)
	}
	cpu := cpu0.to(sampleCPU(db))
	b.StopTimer()
	time.Sleep(2 * time.Second) // a second send of anything would show now
	posts := x.Posts()
	if len(posts) != publishPosts {
		b.Fatalf("the network received %d posts, want %d", len(posts), publishPosts)
	}
	late := make([]time.Duration, 0, len(posts))
	last := at
	for _, p := range posts {
		late = append(late, p.Created.Sub(at))
		if p.Created.After(last) {
			last = p.Created
		}
	}
	rate := float64(publishPosts) / last.Sub(at).Seconds()
	p := percentiles(late, 0.5, 0.99, 1)
	b.ReportMetric(rate, "published/s")
	b.ReportMetric(rawRate, "raw-cmds/s")
	b.ReportMetric(rate/rawRate, "ratio")
	b.ReportMetric(ms(p[1]), "late-p99-ms")
	b.Logf("%d posts due at one second, one target each, zero-latency fake network: %.0f targets published/s (last receipt %.2fs after the due time)",
		publishPosts, rate, last.Sub(at).Seconds())
	b.Logf("lateness (publish time -> network receipt): p50 %.0f ms, p99 %.0f ms, max %.0f ms", ms(p[0]), ms(p[1]), ms(p[2]))
	b.Logf("raw command rate of the same run: %.0f posts created/s (%d clients, in-process); ratio %.3f (a publish is 5 commands + a timer claim + a log hop + a network call)",
		rawRate, publishClients, rate/rawRate)
	b.Logf("timers: batch 64, concurrency 16, poll 100ms; %s", cpu.perOp(publishPosts, "publish"))
}

// connectBrand connects network_1 to a brand through the fake's OAuth flow.
func connectBrand(b *testing.B, h *apptest.Harness, brandID string) {
	b.Helper()
	res := h.Do(b, "publishing", "POST", "/api/integrations/network_1/connect", "", map[string]any{"brandId": brandID})
	if res.Status != 200 {
		b.Fatalf("connect: %d %s", res.Status, res.Body)
	}
	var started struct {
		AuthorizationURL string `json:"authorization_url"`
	}
	res.JSON(b, &started)
	resp, err := h.Client.Get(started.AuthorizationURL)
	must(b, err)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		must(b, fmt.Errorf("callback answered %d", resp.StatusCode))
	}
}
