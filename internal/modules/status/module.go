// Package status is the status service's module (seed 002): incidents,
// maintenance windows and monitored components, the public status page, the
// poller, maintenance automation (timers) and automatic incidents (a reactor).
package status

import (
	"context"

	"github.com/platform/backend/commands/reactor"
	statuscmd "github.com/platform/backend/commands/status"
	domain "github.com/platform/backend/domain/status"
	httpapi "github.com/platform/backend/http"
	statushttp "github.com/platform/backend/http/status"
	"github.com/platform/backend/internal/leader"
	"github.com/platform/backend/internal/module"
	statusmap "github.com/platform/backend/notifications/status"
	"github.com/platform/backend/projections"
	statusview "github.com/platform/backend/projections/status"
)

// Module is the status context.
var Module = module.Module{
	Name:       "status",
	Topic:      true,
	EventTypes: domain.EventTypes,
	Migrations: []module.Migration{statuscmd.Migrate},
	NewConfig:  func() module.Section { return &Config{} },
	Service:    &module.ServiceSpec{Name: "status", DefaultAddr: "127.0.0.1:8082", Summary: "/api/status, /api/incidents, /api/maintenance, /poll, the status page at /"},
	App: &module.App{AppID: "status", Name: "Status", SurfaceKind: "app", SurfaceGroup: "operations", Launchable: true,
		DefaultAccess: true, Scopes: []string{"status:read", "status:write", "status:poll"},
		ResourceTypes: []string{"workspace", "status_page"}},
	TenantKeyScopes: []string{"status:read", "status:write", "status:poll"},
	Locks:           []leader.Lock{statuscmd.PollerLock},
	// Tests poll explicitly, back to back; an end-to-end platform's status
	// page is its bootstrap organization's.
	TestEnv: map[string]string{"STATUS_POLL_INTERVAL": "-1s", "STATUS_MANUAL_POLL_INTERVAL": "-1s",
		"STATUS_PUBLIC_ORGANIZATION_ID": module.TestOrganization},
	Build: build,
}

func build(_ context.Context, p *module.Platform) (module.Parts, error) {
	cfg := module.SectionOf[*Config](p.Sections)
	commands := statuscmd.NewHandlers(p.Store, p.Now, statuscmd.WithPool(p.Pool), statuscmd.WithConfig(cfg.Checks),
		statuscmd.WithURLPolicy(p.Outbound.Policy()))
	// One pool of check workers for manual polls and the poller.
	checker := statuscmd.NewChecker(p.Outbound, cfg.Checks)
	queries := statusview.NewQueries(p.Pool, p.Reader)
	module.Provide(p, commands)
	module.Provide(p, queries)
	deps := statushttp.Deps{Commands: commands, Queries: queries, Checker: checker, PublicOrganizationID: cfg.PublicOrganizationID}
	parts := module.Parts{
		Projections:   []projections.Projection{statusview.Projection{}},
		Notifications: statusmap.Mapping,
		Reactors:      []reactor.Reactor{commands.AutoIncidents()},
		Timers:        commands.RegisterTimers,
		Service:       func(httpapi.Deps) (httpapi.Service, error) { return statushttp.Service(deps), nil },
		Widget:        statushttp.Widget(deps),
	}
	if cfg.PollInterval > 0 {
		parts.Workers = append(parts.Workers, module.Worker{Name: "status-poller", Run: func(ctx context.Context) error {
			commands.RunPoller(ctx, p.Pool, commands.AllSurfaces, checker, cfg.PollInterval, p.Log)
			return nil
		}})
	}
	return parts, nil
}
