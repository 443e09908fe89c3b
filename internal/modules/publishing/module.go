// Package publishing is the publishing API's module (seed 002): posts that
// publish once to each network target, on time, by durable timers; threads;
// content operations; brands and their network connections; media in the
// object store; AI images and suggestions through the gateway.
package publishing

import (
	"context"
	brandscmd "github.com/platform/backend/commands/brands"
	"slices"
	"strings"

	gatewaycmd "github.com/platform/backend/commands/gateway"
	identitycmd "github.com/platform/backend/commands/identity"
	"github.com/platform/backend/commands/jobs"
	pubcmd "github.com/platform/backend/commands/publishing"
	"github.com/platform/backend/commands/reactor"
	domjobs "github.com/platform/backend/domain/jobs"
	"github.com/platform/backend/domain/principal"
	domain "github.com/platform/backend/domain/publishing"
	httpapi "github.com/platform/backend/http"
	pubhttp "github.com/platform/backend/http/publishing"
	"github.com/platform/backend/internal/leader"
	"github.com/platform/backend/internal/module"
	"github.com/platform/backend/projections"
	view "github.com/platform/backend/projections/publishing"
)

// Scopes are seed 002's publishing scopes in the catalog's permission
// syntax: `accounts.read` is the scope `accounts:read` (resource:action;
// the identity catalog refuses a dotted scope).
var Scopes = []string{"accounts:read", "accounts:write", "analytics:read", "api_keys:write", "calendar:read", "calendar:write",
	"dashboard:read", "posts:read", "posts:write"}

// Module is the publishing context.
var Module = module.Module{
	Name:       "publishing",
	Topic:      true,
	EventTypes: append(slices.Clone(domain.EventTypes), domjobs.EventTypes("publishing")...),
	Migrations: []module.Migration{pubcmd.Migrate},
	NewConfig:  func() module.Section { return &Config{} },
	Service: &module.ServiceSpec{Name: "publishing", DefaultAddr: "127.0.0.1:8084", HealthPath: "/health",
		Summary: "/api/posts, /api/content-ops, /api/brands, /api/integrations, /api/media, /api/trends, /api/seeds, /api/ai"},
	// Its workers publish the posts' items (publishing-jobs).
	Jobs: &module.JobsSpec{DefaultAddr: "127.0.0.1:8094"},
	App: &module.App{AppID: "publishing", Name: "Publishing", SurfaceKind: "app", SurfaceGroup: "publish", Launchable: true,
		DefaultAccess: true, Scopes: Scopes, ResourceTypes: []string{"brand", "workspace"}},
	TenantKeyScopes: Scopes,
	Locks:           []leader.Lock{refresherLock},
	// Local fakes of the networks, unless a test points one elsewhere.
	TestEnv: map[string]string{"PUBLISHING_SANDBOX": "true"},
	Build:   build,
}

// refresherLock renews expiring tokens (and re-seals). The attempts
// without a recorded outcome are reconciled by their jobs' timers: the
// "publishing.reconciler" lock is retired.
var refresherLock = leader.Named("publishing.token_refresher")

func build(ctx context.Context, p *module.Platform) (module.Parts, error) {
	cfg := module.SectionOf[*Config](p.Sections)
	base := cfg.PublicURL
	if base == "" {
		base = "http://" + p.Addrs["publishing"]
	}
	base = strings.TrimRight(base, "/")
	h := pubcmd.NewHandlers(p.Store, p.Pool, p.Now)
	if kits, err := module.Lookup[*brandscmd.Handlers](p); err == nil {
		h.SetBrandKits(kits)
	}
	if ids, err := module.Lookup[*identitycmd.Handlers](p); err == nil {
		h.SetOrganizationAccess(func(ctx context.Context, userID, organizationID string) (bool, error) {
			a, err := ids.ActorIn(ctx, principal.Principal{ID: userID, Type: "user", UserID: userID}, organizationID)
			if err != nil {
				return false, nil // a missing organization is not accessible
			}
			return a.Role != "" || a.PlatformRole != "", nil
		})
	}
	vault, err := buildVault(ctx, p, cfg)
	if err != nil {
		return module.Parts{}, err
	}
	nets, sandbox, stopFakes, err := buildNetworks(cfg, cfg.Publisher.SendTimeout)
	if err != nil {
		return module.Parts{}, err
	}
	store := p.Objects
	queries := view.NewQueries(p.Pool, p.Reader)
	creds := pubcmd.NewCredentials(p.Pool, vault)
	library := pubcmd.NewMediaLibrary(h, store, queries.MediaFile)
	publisher, err := pubcmd.NewPublisher(h, nets, creds, library, cfg.Publisher, p.Log, p.Jobs)
	if err != nil {
		return module.Parts{}, err
	}
	integrations := pubcmd.NewIntegrations(h, nets, creds, vault, base)
	// AI goes through the gateway, metered; without its module there is
	// none (503), never an unmetered stand-in: in a sandbox the gateway's
	// fake providers answer.
	var ai pubcmd.AI
	if client, err := module.Lookup[*gatewaycmd.Client](p); err == nil {
		ai = gatewayAI{client: client}
	}
	studio := pubcmd.NewStudio(h, ai, library)
	module.Provide(p, h)
	module.Provide(p, publisher)
	module.Provide(p, queries)
	module.Provide(p, nets)
	module.Provide(p, sandbox)
	module.Provide(p, studio)
	module.Provide(p, integrations)
	module.Provide(p, creds)
	check := &checker{pool: p.Pool, kafka: p.Kafka, store: store, nets: nets}
	deps := pubhttp.Deps{Commands: h, Queries: queries, Networks: nets, Integrations: integrations,
		Media: library, Studio: studio, Health: check.health, Ready: check.ready, Log: p.Log}
	parts := module.Parts{
		Projections: []projections.Projection{view.Projection{}},
		Reactors:    []reactor.Reactor{publisher.ItemJobs(), publisher.Outcomes()},
		Timers:      publisher.RegisterTimers,
		Jobs:        []jobs.Kind{publisher.Kind()},
		Service:     func(httpapi.Deps) (httpapi.Service, error) { return pubhttp.Service(deps), nil },
		Widget:      pubhttp.Widget(deps),
		ActionItems: pubhttp.ActionItems(deps),
		Workers: []module.Worker{{Name: "publishing-fakes", Run: func(ctx context.Context) error {
			<-ctx.Done()
			stopFakes()
			return nil
		}}},
	}
	if cfg.RefreshInterval > 0 {
		parts.Workers = append(parts.Workers, module.Worker{Name: "publishing-refresher", Run: func(ctx context.Context) error {
			return leader.Run(ctx, p.Pool, refresherLock, leader.Config{}, p.Log, func(ctx context.Context) error {
				// The ring changes only with a restart: the sweep runs when a
				// term starts, and on the ticks after until one completes.
				swept := sweep(ctx, creds, p.Log)
				return leader.Every(cfg.RefreshInterval, func(ctx context.Context) {
					if !swept {
						swept = sweep(ctx, creds, p.Log)
					}
					publisher.RefreshExpiring(ctx)
				})(ctx)
			})
		}})
	}
	return parts, nil
}
