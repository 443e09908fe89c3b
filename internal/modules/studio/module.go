// Package studio is the studio's module (seed 002): projects, briefs,
// scenes, plans and approvals; composition versions; render jobs and
// generation requests (their execution is the job kernel's); assets in the
// object store with signed previews; templates, presets and monthly quotas;
// export and erasure. Workspaces are identity's.
package studio

import (
	"context"
	"slices"
	"time"

	brandscmd "github.com/platform/backend/commands/brands"
	gatewaycmd "github.com/platform/backend/commands/gateway"
	identitycmd "github.com/platform/backend/commands/identity"
	"github.com/platform/backend/commands/reactor"
	studiocmd "github.com/platform/backend/commands/studio"
	"github.com/platform/backend/commands/workspace"
	domjobs "github.com/platform/backend/domain/jobs"
	domain "github.com/platform/backend/domain/studio"
	httpapi "github.com/platform/backend/http"
	studiohttp "github.com/platform/backend/http/studio"
	"github.com/platform/backend/internal/module"
	"github.com/platform/backend/internal/probe"
	studiomap "github.com/platform/backend/notifications/studio"
	"github.com/platform/backend/projections"
	studioview "github.com/platform/backend/projections/studio"
)

// Scopes are what the studio's actions check (`studio.<scope>`): seed 002's
// table, the mobile contract's projects:read/write, and ours: approvals:write
// (deciding an approval) and workspace:manage (a workspace's admins).
var Scopes = []string{"privacy:read", "privacy:write", "workspace:read", "workspace:write", "workspace:delete", "workspace:manage",
	"briefs:write", "settings:write", "assets:write", "exports:read", "generation:write", "approvals:write", "projects:read", "projects:write"}

// Module is the studio context.
var Module = module.Module{
	Name:       "studio",
	Topic:      true,
	EventTypes: append(slices.Clone(domain.EventTypes), domjobs.EventTypes("studio")...),
	Migrations: []module.Migration{studiocmd.Migrate},
	NewConfig:  func() module.Section { return &Config{} },
	Service: &module.ServiceSpec{Name: "studio", DefaultAddr: "127.0.0.1:8087", HealthPath: studiohttp.HealthPath,
		Summary: "/api/workspaces/{workspaceSlug}/projects..., /api/whoami, /api/bootstrap, /api/widget, /app/projects, /readyz"},
	App: &module.App{AppID: studiocmd.AppID, Name: "Studio", SurfaceKind: "app", SurfaceGroup: "create", Launchable: true,
		DefaultAccess: true, Scopes: Scopes, ResourceTypes: []string{"workspace", "studio_workspace"}},
	// Its workers render and generate (studio-jobs, the seed's "jobs: queue
	// consumer, liveness GET /health").
	Jobs:            &module.JobsSpec{DefaultAddr: "127.0.0.1:8097"},
	TenantKeyScopes: Scopes,
	// Failed attempts are retried at once in tests (the policy's backoff is
	// proved by the kernel's own tests).
	TestEnv: map[string]string{"STUDIO_JOB_RETRY_BACKOFF": "100ms"},
	Build:   build,
}

func build(_ context.Context, p *module.Platform) (module.Parts, error) {
	cfg := module.SectionOf[*Config](p.Sections)
	access, err := module.Lookup[*identitycmd.Access](p)
	if err != nil {
		return module.Parts{}, err
	}
	spaces, err := module.Lookup[workspace.Directory](p)
	if err != nil {
		return module.Parts{}, err
	}
	if cfg.generatedKey {
		p.Log.Warn("studio: preview links are signed with a key made at start (no STUDIO_PREVIEW_KEY): they die with the process")
	}
	commands := studiocmd.NewHandlers(p.Store, p.Pool, p.Objects, directory{Directory: spaces, access: access}, p.Now, cfg.Commands, p.Log)
	// Generations go through the gateway, metered; without its module
	// they wait (retried), never an unmetered stand-in: in a sandbox the
	// gateway's fake providers answer.
	var gw studiocmd.Gateway
	if client, err := module.Lookup[*gatewaycmd.Client](p); err == nil {
		gw = gateway{client: client}
	}
	studioJobs, err := studiocmd.NewJobs(commands, p.Jobs, gw, cfg.Jobs)
	if err != nil {
		return module.Parts{}, err
	}
	queries := studioview.NewQueries(p.Pool, p.Reader)
	if kits, err := module.Lookup[*brandscmd.Handlers](p); err == nil {
		commands.SetBrandKits(kits)
	}
	module.Provide(p, commands)
	module.Provide(p, queries)
	kafka := p.Kafka
	ready := &probe.Checker{Service: "studio", Pool: p.Pool, Kafka: &kafka}
	deps := studiohttp.Deps{Commands: commands, Queries: queries, Ready: ready.Ready, Now: p.Now}
	parts := module.Parts{
		Projections:   []projections.Projection{studioview.Projection{}},
		Notifications: studiomap.Mapping,
		Jobs:          studioJobs.Kinds(),
		Reactors:      []reactor.Reactor{studioJobs.Requests()},
		Widget:        studiohttp.Widget(deps),
		ActionItems:   studiohttp.ActionItems(deps),
		Service:       func(httpapi.Deps) (httpapi.Service, error) { return studiohttp.Service(deps), nil },
	}
	if cfg.SweepInterval > 0 {
		// Any number of processes may sweep: rows are claimed with SKIP LOCKED.
		parts.Workers = append(parts.Workers, module.Worker{Name: "studio-object-sweeper", Run: func(ctx context.Context) error {
			t := time.NewTicker(cfg.SweepInterval)
			defer t.Stop()
			for {
				select {
				case <-ctx.Done():
					return nil
				case <-t.C:
					for commands.DrainDeletions(ctx, 500) > 0 {
					}
				}
			}
		}})
	}
	return parts, nil
}
