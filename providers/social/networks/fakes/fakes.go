// Package fakes runs the six social network fakes together and configures
// the adapters at them: what publishing's tests, benchmarks and the sandbox
// use. Counting posts across all six proves exactly-once.
package fakes

import (
	"time"

	"github.com/platform/backend/providers/fakekit"
	"github.com/platform/backend/providers/social"
	facebookfake "github.com/platform/backend/providers/social/facebook/fake"
	instagramfake "github.com/platform/backend/providers/social/instagram/fake"
	linkedinfake "github.com/platform/backend/providers/social/linkedin/fake"
	mastodonfake "github.com/platform/backend/providers/social/mastodon/fake"
	"github.com/platform/backend/providers/social/networks"
	"github.com/platform/backend/providers/social/socialfake"
	tiktokfake "github.com/platform/backend/providers/social/tiktok/fake"
	xfake "github.com/platform/backend/providers/social/x/fake"
)

// Fake is what every network fake offers: socialfake.Core (faults,
// records, counts, OAuth) and a ready connection.
type Fake interface {
	On(op string) *fakekit.Script // faults of one operation
	Next(n int, f fakekit.Fault)  // faults of any call
	Reset()
	PostCount() int
	Posts() []socialfake.Post
	Requests() []fakekit.Request
	RequestsOf(op string) []fakekit.Request
	RevokeGrants()
	ExpireAccessTokens()
	SetConsent(socialfake.Consent)
	URL() string
	Close()
	Connection() social.Connection
}

// Fakes are the six running fakes.
type Fakes struct {
	X         *xfake.Fake
	LinkedIn  *linkedinfake.Fake
	Facebook  *facebookfake.Fake
	Instagram *instagramfake.Fake
	TikTok    *tiktokfake.Fake
	Mastodon  *mastodonfake.Fake
}

// Start runs the six fakes on 127.0.0.1 with the same options.
func Start(opts socialfake.Options) *Fakes {
	return &Fakes{
		X: xfake.Start(opts), LinkedIn: linkedinfake.Start(opts), Facebook: facebookfake.Start(opts),
		Instagram: instagramfake.Start(opts), TikTok: tiktokfake.Start(opts), Mastodon: mastodonfake.Start(opts),
	}
}

// ByName is a fake by neutral name, nil for an unknown name.
func (f *Fakes) ByName(name string) Fake {
	switch name {
	case social.Network1:
		return f.X
	case social.Network2:
		return f.LinkedIn
	case social.Network3:
		return f.Facebook
	case social.Network4:
		return f.Instagram
	case social.Network5:
		return f.TikTok
	case social.Network6:
		return f.Mastodon
	}
	return nil
}

// All lists the fakes in network order.
func (f *Fakes) All() []Fake {
	out := make([]Fake, 0, 6)
	for _, name := range social.Names() {
		out = append(out, f.ByName(name))
	}
	return out
}

// PostCount is the posts all six accepted.
func (f *Fakes) PostCount() int {
	n := 0
	for _, fake := range f.All() {
		n += fake.PostCount()
	}
	return n
}

// Close stops the six fakes.
func (f *Fakes) Close() {
	for _, fake := range f.All() {
		fake.Close()
	}
}

// Config configures every adapter at its fake, with the fakes' client
// credentials and a request timeout (0: the adapters' default). Polls are
// quick: the fakes answer at once.
func (f *Fakes) Config(timeout time.Duration) networks.Config {
	var cfg networks.Config
	cfg.X = cfg.X.At(f.X.URL())
	cfg.X.ClientID, cfg.X.ClientSecret, cfg.X.Timeout = f.X.ClientID(), f.X.ClientSecret(), timeout
	cfg.LinkedIn = cfg.LinkedIn.At(f.LinkedIn.URL())
	cfg.LinkedIn.ClientID, cfg.LinkedIn.ClientSecret, cfg.LinkedIn.Timeout = f.LinkedIn.ClientID(), f.LinkedIn.ClientSecret(), timeout
	cfg.Facebook = cfg.Facebook.At(f.Facebook.URL())
	cfg.Facebook.ClientID, cfg.Facebook.ClientSecret, cfg.Facebook.Timeout = f.Facebook.ClientID(), f.Facebook.ClientSecret(), timeout
	cfg.Instagram = cfg.Instagram.At(f.Instagram.URL())
	cfg.Instagram.ClientID, cfg.Instagram.ClientSecret, cfg.Instagram.Timeout = f.Instagram.ClientID(), f.Instagram.ClientSecret(), timeout
	cfg.Instagram.PollInterval, cfg.Instagram.PollTimeout = 10*time.Millisecond, 5*time.Second
	cfg.TikTok = cfg.TikTok.At(f.TikTok.URL())
	cfg.TikTok.ClientID, cfg.TikTok.ClientSecret, cfg.TikTok.Timeout = f.TikTok.ClientID(), f.TikTok.ClientSecret(), timeout
	cfg.TikTok.PollInterval, cfg.TikTok.PollTimeout = 10*time.Millisecond, 5*time.Second
	cfg.Mastodon = cfg.Mastodon.At(f.Mastodon.URL())
	cfg.Mastodon.ClientID, cfg.Mastodon.ClientSecret, cfg.Mastodon.Timeout = f.Mastodon.ClientID(), f.Mastodon.ClientSecret(), timeout
	cfg.Mastodon.PollInterval, cfg.Mastodon.PollTimeout = 10*time.Millisecond, 5*time.Second
	return cfg
}
