package publishing

import (
	"slices"

	domain "github.com/platform/backend/domain/publishing"
	"github.com/platform/backend/providers/social"
)

// Integration readiness of a provider (GET /api/integrations).
const (
	ReadinessProduction = "production-ready" // a client of the real network is configured
	ReadinessSandbox    = "sandbox-only"     // the adapter talks to a local fake of the network
	ReadinessSetup      = "setup-required"   // an adapter exists, no client is configured
	ReadinessPlanned    = "planned"          // no adapter yet
)

// Network is one configured network: its adapter and how ready it is.
type Network struct {
	Name      string
	Adapter   social.Network // nil when none is configured
	Readiness string
}

// Networks are the configured networks by name.
type Networks struct {
	byName map[string]Network
}

// NewNetworks lists every seed network, each with its adapter when one is
// configured (nil readiness: planned without an adapter, setup-required
// with a known adapter but no client).
func NewNetworks(nets ...Network) *Networks {
	n := &Networks{byName: map[string]Network{}}
	for _, name := range domain.Networks {
		n.byName[name] = Network{Name: name, Readiness: ReadinessPlanned}
	}
	for _, net := range nets {
		n.byName[net.Name] = net
	}
	return n
}

// Get is the adapter of a network that can publish.
func (n *Networks) Get(name string) (social.Network, bool) {
	net, ok := n.byName[name]
	if !ok || net.Adapter == nil {
		return nil, false
	}
	return net.Adapter, true
}

// All lists the networks in seed order.
func (n *Networks) All() []Network {
	out := make([]Network, 0, len(n.byName))
	for _, name := range domain.Networks {
		out = append(out, n.byName[name])
	}
	return out
}

// Connectable: the network's OAuth flow can start.
func (n *Networks) Connectable(name string) bool {
	net, ok := n.byName[name]
	return ok && net.Adapter != nil && slices.Contains([]string{ReadinessProduction, ReadinessSandbox}, net.Readiness)
}
