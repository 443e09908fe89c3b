// Package networks builds the six social network adapters from one
// configuration, keyed by their neutral names (network_1..network_6, in
// the order of package social's table). Only networks whose client id is
// configured are built; the others are absent, which the integrations list
// reports as setup required.
package networks

import (
	"errors"

	"github.com/platform/backend/providers/social"
	"github.com/platform/backend/providers/social/facebook"
	"github.com/platform/backend/providers/social/instagram"
	"github.com/platform/backend/providers/social/linkedin"
	"github.com/platform/backend/providers/social/mastodon"
	"github.com/platform/backend/providers/social/tiktok"
	"github.com/platform/backend/providers/social/x"
)

// Config holds each network's configuration.
type Config struct {
	X         x.Config         // network_1
	LinkedIn  linkedin.Config  // network_2
	Facebook  facebook.Config  // network_3
	Instagram instagram.Config // network_4
	TikTok    tiktok.Config    // network_5
	Mastodon  mastodon.Config  // network_6
}

// Set is the built adapters by neutral name.
type Set struct {
	byName map[string]social.Network
}

// New builds the adapters of every configured network (a client id set)
// and names every configuration problem at once.
func New(cfg Config) (*Set, error) {
	s := &Set{byName: map[string]social.Network{}}
	var errs []error
	add := func(configured bool, build func() (social.Network, error)) {
		if !configured {
			return
		}
		n, err := build()
		if err != nil {
			errs = append(errs, err)
			return
		}
		s.byName[n.Info().Name] = n
	}
	add(cfg.X.ClientID != "", func() (social.Network, error) { return x.New(cfg.X) })
	add(cfg.LinkedIn.ClientID != "", func() (social.Network, error) { return linkedin.New(cfg.LinkedIn) })
	add(cfg.Facebook.ClientID != "", func() (social.Network, error) { return facebook.New(cfg.Facebook) })
	add(cfg.Instagram.ClientID != "", func() (social.Network, error) { return instagram.New(cfg.Instagram) })
	add(cfg.TikTok.ClientID != "", func() (social.Network, error) { return tiktok.New(cfg.TikTok) })
	add(cfg.Mastodon.ClientID != "", func() (social.Network, error) { return mastodon.New(cfg.Mastodon) })
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return s, nil
}

// Get is the adapter of a network, if configured.
func (s *Set) Get(name string) (social.Network, bool) {
	n, ok := s.byName[name]
	return n, ok
}

// Names lists the configured networks in order.
func (s *Set) Names() []string {
	var out []string
	for _, name := range social.Names() {
		if _, ok := s.byName[name]; ok {
			out = append(out, name)
		}
	}
	return out
}
