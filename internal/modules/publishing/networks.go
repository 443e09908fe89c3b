package publishing

import (
	"fmt"
	"net"
	"net/url"

	pubcmd "github.com/platform/backend/commands/publishing"
	"github.com/platform/backend/providers/social"
	"github.com/platform/backend/providers/social/socialfake"
	"github.com/platform/backend/providers/social/x"
	xfake "github.com/platform/backend/providers/social/x/fake"
)

// adapter builds one network's adapter for a client (base "" is the
// network's real hosts).
type adapter struct {
	build func(c NetworkConfig, http social.HTTPConfig) (social.Network, error)
	// fake starts a local fake of the network (the sandbox).
	fake func() *socialfake.Core
}

// adapters are the networks whose adapter exists; the others are planned.
// Each network's adapter lands in providers/social/<network>.
var adapters = map[string]adapter{
	social.Network1: {
		build: func(c NetworkConfig, h social.HTTPConfig) (social.Network, error) {
			cfg := x.Config{ClientID: c.ClientID, ClientSecret: c.ClientSecret, HTTPConfig: h}
			if c.BaseURL != "" {
				cfg = cfg.At(c.BaseURL)
			}
			return x.New(cfg)
		},
		fake: func() *socialfake.Core {
			return xfake.Start(socialfake.Options{Consent: socialfake.ConsentApprove}).Core
		},
	},
}

// Sandbox are the local fakes the sandbox started, by network: tests count
// the posts they accepted.
type Sandbox map[string]*socialfake.Core

// buildNetworks makes every network's adapter: a configured client
// (production-ready, or sandbox-only when it points at loopback), a
// sandbox fake when asked for, setup-required without a client, planned
// without an adapter. It returns what stops the fakes.
func buildNetworks(cfg *Config, h social.HTTPConfig) (*pubcmd.Networks, Sandbox, func(), error) {
	var nets []pubcmd.Network
	sandbox := Sandbox{}
	var stops []func()
	stop := func() {
		for _, s := range stops {
			s()
		}
	}
	for name, a := range adapters {
		c, configured := cfg.Networks[name]
		readiness := pubcmd.ReadinessProduction
		switch {
		case configured && c.ClientID != "":
			if loopback(c.BaseURL) {
				readiness = pubcmd.ReadinessSandbox
			}
		case cfg.Sandbox:
			f := a.fake()
			sandbox[name] = f
			stops = append(stops, f.Close)
			c = NetworkConfig{BaseURL: f.URL(), ClientID: "fake-client-id", ClientSecret: "fake-client-secret"}
			readiness = pubcmd.ReadinessSandbox
		default:
			nets = append(nets, pubcmd.Network{Name: name, Readiness: pubcmd.ReadinessSetup})
			continue
		}
		n, err := a.build(c, h)
		if err != nil {
			stop()
			return nil, nil, nil, fmt.Errorf("publishing: %s: %w", name, err)
		}
		nets = append(nets, pubcmd.Network{Name: name, Adapter: n, Readiness: readiness})
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
