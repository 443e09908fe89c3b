package instagram_test

import (
	"testing"
	"time"

	"github.com/platform/backend/providers/social"
	"github.com/platform/backend/providers/social/instagram"
	"github.com/platform/backend/providers/social/instagram/fake"
	"github.com/platform/backend/providers/social/socialfake"
	"github.com/platform/backend/providers/social/socialtest"
)

func start(t *testing.T) (*instagram.Client, *fake.Fake) {
	t.Helper()
	f := fake.Start(socialfake.Options{})
	cfg := instagram.Config{ClientID: f.ClientID(), ClientSecret: f.ClientSecret(), PollInterval: time.Millisecond, PollTimeout: 100 * time.Millisecond}.At(f.URL())
	cfg.Timeout = socialtest.Timeout
	c, err := instagram.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c, f
}

func photo(text string) social.Post {
	return social.Post{Text: text, Media: []social.Media{{Kind: social.MediaImage, URL: "https://cdn.example.test/plate.jpg"}}}
}

func TestConformance(t *testing.T) {
	socialtest.Run(t, socialtest.Setup{
		Start:           func(t *testing.T) (social.Network, socialtest.Fake) { return start(t) },
		Post:            photo,
		WaitGranularity: time.Minute,
	})
}
