package x_test

import (
	"testing"

	"github.com/platform/backend/providers/social"
	"github.com/platform/backend/providers/social/socialfake"
	"github.com/platform/backend/providers/social/socialtest"
	"github.com/platform/backend/providers/social/x"
	"github.com/platform/backend/providers/social/x/fake"
)

func start(t *testing.T) (*x.Client, *fake.Fake) {
	t.Helper()
	f := fake.Start(socialfake.Options{})
	cfg := x.Config{ClientID: f.ClientID(), ClientSecret: f.ClientSecret()}.At(f.URL())
	cfg.Timeout = socialtest.Timeout
	c, err := x.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c, f
}

func TestConformance(t *testing.T) {
	socialtest.Run(t, socialtest.Setup{
		Start: func(t *testing.T) (social.Network, socialtest.Fake) { return start(t) },
		Post:  func(text string) social.Post { return social.Post{Text: text} },
	})
}
