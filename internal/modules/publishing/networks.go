package publishing

import (
	"net"
	"net/url"
	"time"

	pubcmd "github.com/platform/backend/commands/publishing"
	domain "github.com/platform/backend/domain/publishing"
	"github.com/platform/backend/providers/social"
	"github.com/platform/backend/providers/social/networks"
	"github.com/platform/backend/providers/social/networks/fakes"
	"github.com/platform/backend/providers/social/socialfake"
)

// Sandbox are the local fakes the sandbox started, by network: tests count
// the posts they accepted.
type Sandbox map[string]fakes.Fake

// at points a network's configuration at a base URL (a fake, a sandbox)
// when one is set.
func at[C interface{ At(string) C }](c C, base string) C {
	if base == "" {
		return c
	}
	return c.At(base)
}

// atBase sets one network's client (and base URL) in the configuration.
var atBase = map[string]func(c *networks.Config, n NetworkConfig, timeout time.Duration){
	social.Network1: func(c *networks.Config, n NetworkConfig, t time.Duration) {
		c.X = at(c.X, n.BaseURL)
		c.X.ClientID, c.X.ClientSecret, c.X.Timeout = n.ClientID, n.ClientSecret, t
	},
	social.Network2: func(c *networks.Config, n NetworkConfig, t time.Duration) {
		c.LinkedIn = at(c.LinkedIn, n.BaseURL)
		c.LinkedIn.ClientID, c.LinkedIn.ClientSecret, c.LinkedIn.Timeout = n.ClientID, n.ClientSecret, t
	},
	social.Network3: func(c *networks.Config, n NetworkConfig, t time.Duration) {
		c.Facebook = at(c.Facebook, n.BaseURL)
		c.Facebook.ClientID, c.Facebook.ClientSecret, c.Facebook.Timeout = n.ClientID, n.ClientSecret, t
	},
	social.Network4: func(c *networks.Config, n NetworkConfig, t time.Duration) {
		c.Instagram = at(c.Instagram, n.BaseURL)
		c.Instagram.ClientID, c.Instagram.ClientSecret, c.Instagram.Timeout = n.ClientID, n.ClientSecret, t
	},
	social.Network5: func(c *networks.Config, n NetworkConfig, t time.Duration) {
		c.TikTok = at(c.TikTok, n.BaseURL)
		c.TikTok.ClientID, c.TikTok.ClientSecret, c.TikTok.Timeout = n.ClientID, n.ClientSecret, t
	},
	social.Network6: func(c *networks.Config, n NetworkConfig, t time.Duration) {
		c.Mastodon = at(c.Mastodon, n.BaseURL)
		c.Mastodon.ClientID, c.Mastodon.ClientSecret, c.Mastodon.Timeout = n.ClientID, n.ClientSecret, t
	},
}

// buildNetworks makes every network's adapter: a configured client is
// production-ready (sandbox-only when it points at loopback); in the
// sandbox, the networks without a client talk to local fakes; the others
// are setup-required. It returns the fakes and what stops them.
func buildNetworks(cfg *Config, timeout time.Duration) (*pubcmd.Networks, Sandbox, func(), error) {
	var ncfg networks.Config
	sandbox := Sandbox{}
	stop := func() {}
	var local *fakes.Fakes
	if cfg.Sandbox {
		local = fakes.Start(socialfake.Options{Consent: socialfake.ConsentApprove})
		ncfg = local.Config(timeout)
		stop = local.Close
	}
	readiness := map[string]string{}
	for _, name := range domain.Networks {
		n, configured := cfg.Networks[name]
		switch {
		case configured && n.ClientID != "":
			readiness[name] = pubcmd.ReadinessProduction
			if loopback(n.BaseURL) {
				readiness[name] = pubcmd.ReadinessSandbox
			}
			atBase[name](&ncfg, n, timeout)
		case local != nil:
			readiness[name] = pubcmd.ReadinessSandbox
			sandbox[name] = local.ByName(name)
		default:
			readiness[name] = pubcmd.ReadinessSetup
		}
	}
	set, err := networks.New(ncfg)
	if err != nil {
		stop()
		return nil, nil, nil, err
	}
	var nets []pubcmd.Network
	for _, name := range domain.Networks {
		adapter, _ := set.Get(name)
		nets = append(nets, pubcmd.Network{Name: name, Adapter: adapter, Readiness: readiness[name]})
	}
	return pubcmd.NewNetworks(nets...), sandbox, stop, nil
}

// loopback: the base URL is a local fake, not the network.
func loopback(base string) bool {
	u, err := url.Parse(base)
	if err != nil || u.Hostname() == "" {
		return false
	}
	if u.Hostname() == "localhost" {
		return true
	}
	ip := net.ParseIP(u.Hostname())
	return ip != nil && ip.IsLoopback()
}
