package networks_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/platform/backend/providers/social"
	"github.com/platform/backend/providers/social/networks"
	"github.com/platform/backend/providers/social/networks/fakes"
	"github.com/platform/backend/providers/social/socialfake"
)

func TestTheMapping(t *testing.T) {
	f := fakes.Start(socialfake.Options{})
	defer f.Close()
	set, err := networks.New(f.Config(0))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(set.Names(), social.Names()) {
		t.Fatalf("names %v", set.Names())
	}
	want := []string{"X", "LinkedIn", "Facebook Pages", "Instagram", "TikTok", "Mastodon"}
	for i, name := range social.Names() {
		n, _ := set.Get(name)
		if info := n.Info(); info.Name != name || info.Product != want[i] {
			t.Errorf("%s is %s (%s), want %s", name, info.Product, info.Name, want[i])
		}
	}
}

func TestOnlyConfiguredNetworksAreBuilt(t *testing.T) {
	set, err := networks.New(networks.Config{})
	if err != nil || len(set.Names()) != 0 {
		t.Fatalf("%v %v", set.Names(), err)
	}
	var cfg networks.Config
	cfg.Mastodon.ClientID = "only an id"
	cfg.LinkedIn.ClientID = "another"
	if _, err := networks.New(cfg); err == nil {
		t.Fatal("configurations without secrets were accepted")
	}
}

// post is a valid post for each network.
func post(name, text string) social.Post {
	p := social.Post{Text: text}
	switch name {
	case social.Network4:
		p.Media = []social.Media{{Kind: social.MediaImage, URL: "https://cdn.example.test/plate.jpg"}}
	case social.Network5:
		p.Media = []social.Media{{Kind: social.MediaVideo, URL: "https://cdn.example.test/clip.mp4"}}
	}
	return p
}

// TestAThousandConcurrentPostsAreEachCountedOnce: the fakes take load with
// no latency and count every post exactly once.
func TestAThousandConcurrentPostsAreEachCountedOnce(t *testing.T) {
	f := fakes.Start(socialfake.Options{})
	defer f.Close()
	set, err := networks.New(f.Config(10 * time.Second))
	if err != nil {
		t.Fatal(err)
	}
	names := social.Names()
	conns := map[string]social.Connection{}
	for _, name := range names {
		conns[name] = f.ByName(name).Connection()
	}
	const total = 1000
	ids := make([]string, total)
	errs := make(chan error, total)
	var wg sync.WaitGroup
	sem := make(chan struct{}, 32)
	began := time.Now()
	for i := range total {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			name := names[i%len(names)]
			n, _ := set.Get(name)
			got, err := n.Publish(context.Background(), conns[name], post(name, fmt.Sprintf("post %d", i)))
			if err != nil {
				errs <- fmt.Errorf("%s post %d: %w", name, i, err)
				return
			}
			ids[i] = name + "/" + got.ID
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	t.Logf("%d posts in %v", total, time.Since(began))
	if got := f.PostCount(); got != total {
		t.Fatalf("the fakes counted %d posts, want %d", got, total)
	}
	slices.Sort(ids)
	if len(slices.Compact(ids)) != total {
		t.Fatal("an id was given twice")
	}
	for i, name := range names {
		want := total / len(names)
		if i < total%len(names) {
			want++
		}
		if got := f.ByName(name).PostCount(); got != want {
			t.Errorf("%s counted %d, want %d", name, got, want)
		}
	}
}
