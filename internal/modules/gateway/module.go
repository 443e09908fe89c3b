// Package gateway is the usage gateway's module (seed 001): the one metered
// path to AI (and later email, instant-message and payment) providers,
// spend caps, meters and their thresholds, provider health, billing and
// usage views, provisioning by the identity service. It provides
// *gatewaycmd.Client, the library other contexts call in-process.
package gateway

import (
	"context"

	gatewaycmd "github.com/platform/backend/commands/gateway"
	"github.com/platform/backend/commands/reactor"
	domain "github.com/platform/backend/domain/gateway"
	"github.com/platform/backend/eventstore"
	httpapi "github.com/platform/backend/http"
	gatewayhttp "github.com/platform/backend/http/gateway"
	"github.com/platform/backend/internal/leader"
	"github.com/platform/backend/internal/module"
	gatewaymap "github.com/platform/backend/notifications/gateway"
	"github.com/platform/backend/projections"
	gatewayview "github.com/platform/backend/projections/gateway"
)

// Scopes are the permissions the gateway's actions check (seed 001's, and
// organizations:provision for the identity service's provisioning call).
var Scopes = []string{"dashboard:read", "organizations:read", "organizations:provision", "audit:read", "usage:read", "ai:invoke",
	"ai:translate", "email:write", "email:send", "message:send", "payments:invoke", "billing:read", "billing:write",
	"connections:read", "connections:write", "email:read"}

// Module is the gateway context.
var Module = module.Module{
	Name:       "gateway",
	Topic:      true,
	EventTypes: domain.EventTypes,
	Migrations: []module.Migration{gatewaycmd.Migrate},
	NewConfig:  func() module.Section { return &Config{} },
	Service: &module.ServiceSpec{Name: "gateway", DefaultAddr: "127.0.0.1:8083", HealthPath: gatewayhttp.HealthPath,
		Summary: "/api/ai/*, /api/usage/*, /api/billing/*, /api/organization: metered provider calls, spend caps, meters, usage"},
	App: &module.App{AppID: gatewayhttp.AppID, Name: "Usage gateway", SurfaceKind: "platform", SurfaceGroup: "platform", Launchable: true,
		DefaultAccess: true, Scopes: Scopes, ResourceTypes: []string{"workspace"}},
	// A tenant's key: everything but the service-only actions
	// (organization.provision, instant_message.send).
	TenantKeyScopes: []string{"dashboard:read", "organizations:read", "audit:read", "usage:read", "ai:invoke", "ai:translate",
		"email:write", "email:send", "payments:invoke", "billing:read", "billing:write", "connections:read", "connections:write", "email:read"},
	Locks: []leader.Lock{gatewaycmd.SweeperLock, gatewaycmd.CanaryLock},
	// A call's usage stream is settled once (domain.Settle).
	OneEventStreams: []string{domain.StreamUsage},
	// AI, email, message and payments calls go to the in-process fakes.
	TestEnv: map[string]string{"GATEWAY_SANDBOX": "true"},
	Build:   build,
}

func build(_ context.Context, p *module.Platform) (module.Parts, error) {
	cfg := module.SectionOf[*Config](p.Sections)
	handlers := gatewaycmd.NewHandlers(p.Store, p.Pool, p.Now, cfg.Metering, p.Log)
	// Settles held while the database is out outlive the process in the log
	// (closed by the landings worker when the process stops).
	settleLog, err := gatewaycmd.NewSettleLog(p.Kafka)
	if err != nil {
		return module.Parts{}, err
	}
	handlers.UseSettleLog(settleLog)
	conns, sandbox, err := connections(cfg)
	if err != nil {
		settleLog.Close()
		return module.Parts{}, err
	}
	edge, edgeSandbox, err := buildEdge(p, cfg, handlers, conns, sandbox)
	if err != nil {
		sandbox.Close()
		settleLog.Close()
		return module.Parts{}, err
	}
	// Every process announces changes to connections and billing (the
	// BYOK fee), whether or not it keeps them in memory: another process's
	// memory relies on it. The connection in use and the fee are then read
	// from memory, coherent by identity's head watch (its bound), where
	// this process runs one.
	p.Store.NotifyHeads(domain.StreamConnection, domain.StreamBilling)
	if watch, err := module.Lookup[*eventstore.HeadWatch](p); err == nil {
		edge.WatchConnections(watch)
		handlers.WatchFees(watch)
	}
	client := gatewaycmd.NewClient(handlers, edge).WithEdge(edge)
	queries := gatewayview.NewQueries(p.Pool, p.Reader)
	module.Provide(p, handlers)
	module.Provide(p, client)
	module.Provide(p, queries)
	module.Provide(p, sandbox)
	module.Provide(p, edge)
	module.Provide(p, edgeSandbox)
	// Answers of calls with an Idempotency-Key are sealed with the
	// platform's key ring, for the gateway.
	answers := gatewaycmd.NewAnswers(handlers, p.Sealer("gateway"))
	client.SetAnswers(answers)
	dashboard := cfg.DashboardURL
	if dashboard == "" {
		dashboard = "http://" + p.Addrs["gateway"]
	}
	deps := gatewayhttp.Deps{Commands: handlers, Client: client, Queries: queries, Answers: answers, Now: p.Now}
	parts := module.Parts{
		Projections:   []projections.Projection{gatewayview.Projection{}},
		Notifications: gatewaymap.Mapping(dashboard),
		SilentStreams: gatewaymap.SilentStreams,
		Reactors:      []reactor.Reactor{handlers.MetersReactor(), handlers.Provisioner(), edge.Relay(), handlers.SettleLanding()},
		Timers:        edge.RegisterTimers,
		Service: func(httpapi.Deps) (httpapi.Service, error) {
			return gatewayhttp.Service(deps, gatewayhttp.EdgeArea(edge, queries)), nil
		},
		Widget:      gatewayhttp.Widget(deps),
		ActionItems: gatewayhttp.ActionItems(deps),
	}
	parts.Workers = append(parts.Workers, edgeWorkers(p, edge, edgeSandbox)...)
	parts.Workers = append(parts.Workers, module.Worker{Name: "gateway-landings", Run: handlers.RunLandings})
	if len(sandbox.fakes) > 0 {
		parts.Workers = append(parts.Workers, module.Worker{Name: "gateway-sandbox", Run: sandbox.closeOnDone})
	}
	if cfg.Metering.SweepInterval > 0 {
		parts.Workers = append(parts.Workers, module.Worker{Name: "gateway-sweeper", Run: func(ctx context.Context) error {
			return handlers.RunSweeper(ctx, p.Pool, cfg.Metering.SweepInterval)
		}})
	}
	return parts, nil
}
