package gateway

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"sync"

	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/internal/keyring"
	"github.com/platform/backend/internal/outbound"
	"github.com/platform/backend/providers/email"
	"github.com/platform/backend/providers/message"
	"github.com/platform/backend/providers/payments/stripe"
)

// Edge is the gateway's edge: provider connections and their credentials
// (sealed in gateway_credentials), email profiles, email and instant
// message deliveries and payments calls through the one metered path,
// inbound provider webhooks and their relay. Its commands are methods here,
// one file each; the metered path and the event store are the Handlers'.
type Edge struct {
	h   *Handlers
	cfg EdgeConfig
	// ring seals and opens credentials: the platform's key ring
	// (module.Platform.KeyRing). Without one, commands that store a
	// credential answer 503 and nothing is stored.
	ring     keyring.Ring
	platform PlatformLinks
	// ai are the platform's AI connections; aiOwn builds an adapter for an
	// organization's own AI key (the module knows the protocols).
	ai    AIConnections
	aiOwn AIFactory
	out   *outbound.Client
	log   *slog.Logger

	// inUse is ownConnection's memory (WatchConnections; nil: every call
	// reads the database).
	inUse *eventstore.Memo[inUseKey, inUse]

	mu    sync.Mutex
	links map[string]cachedLink // adapters of organizations' connections, per credential version
}

// Link is the connection one call of the edge runs on, with its adapter.
type Link struct {
	ConnectionID   string
	OrganizationID string // the connection's owner; "" for the platform's own
	Provider       string
	BYOK           bool // the organization's own provider account: charged the service fee
	Sandbox        bool // a fake provider in-process (make run), marked in answers
	Settings       map[string]string
	Email          email.Provider
	Message        message.Provider
	Payments       stripe.Processor
}

// PlatformLinks are the platform's own connections per provider (its keys
// from the configuration, or the sandbox's fakes).
type PlatformLinks map[string]Link

// AIFactory builds an AI connection for an organization's own key.
type AIFactory func(provider, key string, settings map[string]string) (AIConnection, error)

// cachedLink is a connection's adapter at a credential version (a
// connection is of one kind: link or ai is set).
type cachedLink struct {
	version int64
	link    Link
	ai      AIConnection
}

// NewEdge makes the edge over the handlers, sealing with the ring.
func NewEdge(h *Handlers, cfg EdgeConfig, ring keyring.Ring, platform PlatformLinks, ai AIConnections, aiOwn AIFactory, out *outbound.Client) *Edge {
	if platform == nil {
		platform = PlatformLinks{}
	}
	return &Edge{h: h, cfg: cfg.WithDefaults(), ring: ring, platform: platform, ai: ai, aiOwn: aiOwn, out: out, log: h.log,
		links: map[string]cachedLink{}}
}

// Log is the edge's logger.
func (e *Edge) Log() *slog.Logger { return e.log }

// Config is the edge's configuration, defaults applied.
func (e *Edge) Config() EdgeConfig { return e.cfg }

// Start is what runs once a process starts: the expiry scan's first timer
// (once per deployment) and the canary's first run happen in workers.
func (e *Edge) Start(ctx context.Context) error { return e.EnsureExpiryScan(ctx) }

// PlatformConnection is one of the platform's own connections, as the
// connection list shows it beside an organization's.
type PlatformConnection struct {
	ConnectionID string
	Provider     string
	Sandbox      bool
}

// PlatformConnections lists the platform's own connections (its keys, or
// the sandbox's fakes), sorted by provider.
func (e *Edge) PlatformConnections() []PlatformConnection {
	out := make([]PlatformConnection, 0, len(e.platform))
	for _, l := range e.platform {
		out = append(out, PlatformConnection{ConnectionID: l.ConnectionID, Provider: l.Provider, Sandbox: l.Sandbox})
	}
	if static, ok := e.ai.(StaticAI); ok {
		for id, c := range static {
			out = append(out, PlatformConnection{ConnectionID: c.ID, Provider: string(id), Sandbox: c.Sandbox})
		}
	}
	slices.SortFunc(out, func(a, b PlatformConnection) int { return strings.Compare(a.Provider, b.Provider) })
	return out
}
