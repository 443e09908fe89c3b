package facebook_test

import (
	"testing"
	"time"

	"github.com/platform/backend/providers/social"
	"github.com/platform/backend/providers/social/facebook"
	"github.com/platform/backend/providers/social/facebook/fake"
	"github.com/platform/backend/providers/social/socialfake"
	"github.com/platform/backend/providers/social/socialtest"
)

func start(t *testing.T) (*facebook.Client, *fake.Fake) {
	t.Helper()
	f := fake.Start(socialfake.Options{})
	cfg := facebook.Config{ClientID: f.ClientID(), ClientSecret: f.ClientSecret()}.At(f.URL())
	cfg.Timeout = socialtest.Timeout
	c, err := facebook.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c, f
}

func TestConformance(t *testing.T) {
	socialtest.Run(t, socialtest.Setup{
		Start:           func(t *testing.T) (social.Network, socialtest.Fake) { return start(t) },
		Post:            func(text string) social.Post { return social.Post{Text: text} },
		WaitGranularity: time.Minute,
	})
}
