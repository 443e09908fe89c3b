package mastodon_test

import (
	"testing"
	"time"

	"github.com/platform/backend/providers/social"
	"github.com/platform/backend/providers/social/mastodon"
	"github.com/platform/backend/providers/social/mastodon/fake"
	"github.com/platform/backend/providers/social/socialfake"
	"github.com/platform/backend/providers/social/socialtest"
)

func start(t *testing.T) (*mastodon.Client, *fake.Fake) {
	t.Helper()
	f := fake.Start(socialfake.Options{})
	cfg := mastodon.Config{ClientID: f.ClientID(), ClientSecret: f.ClientSecret(), PollInterval: time.Millisecond, PollTimeout: 100 * time.Millisecond}.At(f.URL())
	cfg.Timeout = socialtest.Timeout
	c, err := mastodon.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c, f
}

func TestConformance(t *testing.T) {
	socialtest.Run(t, socialtest.Setup{
		Start:      func(t *testing.T) (social.Network, socialtest.Fake) { return start(t) },
		Post:       func(text string) social.Post { return social.Post{Text: text} },
		RefreshOp:  socialfake.OpAccounts,
		Rejections: []string{socialfake.ReasonTooLong, socialfake.ReasonMediaInvalid},
	})
}
