package tiktok_test

import (
	"testing"
	"time"

	"github.com/platform/backend/providers/social"
	"github.com/platform/backend/providers/social/socialfake"
	"github.com/platform/backend/providers/social/socialtest"
	"github.com/platform/backend/providers/social/tiktok"
	"github.com/platform/backend/providers/social/tiktok/fake"
)

func start(t *testing.T) (*tiktok.Client, *fake.Fake) {
	t.Helper()
	f := fake.Start(socialfake.Options{})
	cfg := tiktok.Config{ClientID: f.ClientID(), ClientSecret: f.ClientSecret(), PollInterval: time.Millisecond, PollTimeout: 100 * time.Millisecond}.At(f.URL())
	cfg.Timeout = socialtest.Timeout
	c, err := tiktok.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c, f
}

func video(text string) social.Post {
	return social.Post{Text: text, Media: []social.Media{{Kind: social.MediaVideo, URL: "https://cdn.example.test/clip.mp4"}}}
}

func TestConformance(t *testing.T) {
	socialtest.Run(t, socialtest.Setup{
		Start:         func(t *testing.T) (social.Network, socialtest.Fake) { return start(t) },
		Post:          video,
		ClientIDParam: "client_key",
		Rejections:    []string{socialfake.ReasonTooLong, socialfake.ReasonMediaInvalid},
	})
}
