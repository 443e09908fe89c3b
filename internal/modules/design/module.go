// Package design is the design service's module (seed 000): a
// brand-governed design workspace whose exports (svg, png, jpeg, mp4) are
// rendered natively by durable jobs and announced by design.export.ready.
// Brand kits are the brands module's; workspaces are identity's.
package design

import (
	"context"
	"net/http"
	"time"

	brandscmd "github.com/platform/backend/commands/brands"
	designcmd "github.com/platform/backend/commands/design"
	"github.com/platform/backend/commands/jobs"
	"github.com/platform/backend/commands/workspace"
	domain "github.com/platform/backend/domain/design"
	domjobs "github.com/platform/backend/domain/jobs"
	httpapi "github.com/platform/backend/http"
	designhttp "github.com/platform/backend/http/design"
	"github.com/platform/backend/http/webpage"
	"github.com/platform/backend/internal/module"
	designmap "github.com/platform/backend/notifications/design"
	"github.com/platform/backend/projections"
	brandsview "github.com/platform/backend/projections/brands"
	designview "github.com/platform/backend/projections/design"
)

// Scopes are what the design service's actions check (`design.<scope>`):
// seed 000's workspace:read and brands:read, and ours: workspace:write
// (projects and designs), assets:write (images), exports:write, and
// privacy:manage (the organization's export and erasure: admins).
var Scopes = []string{"workspace:read", "workspace:write", "assets:write", "exports:write", "brands:read", "privacy:manage"}

// Module is the design context.
var Module = module.Module{
	Name:       "design",
	Topic:      true,
	EventTypes: append(append([]string{}, domain.EventTypes...), domjobs.EventTypes("design")...),
	Migrations: []module.Migration{designcmd.Migrate},
	NewConfig:  func() module.Section { return &Config{} },
	Service: &module.ServiceSpec{Name: "design", DefaultAddr: "127.0.0.1:8086",
		Summary: "/api/workspaces/{workspaceSlug}/projects, designs, exports..., /api/brand-options, /api/bootstrap, /api/widget"},
	Jobs: &module.JobsSpec{DefaultAddr: "127.0.0.1:8096"},
	App: &module.App{AppID: designcmd.AppID, Name: "Design", SurfaceKind: "app", SurfaceGroup: "create", Launchable: true,
		DefaultAccess: true, Scopes: Scopes, ResourceTypes: []string{"workspace", "design_workspace", "brand_kit_space"}},
	TenantKeyScopes: Scopes,
	Build:           build,
}

func build(_ context.Context, p *module.Platform) (module.Parts, error) {
	cfg := module.SectionOf[*Config](p.Sections)
	spaces, err := module.Lookup[workspace.Directory](p)
	if err != nil {
		return module.Parts{}, err
	}
	brandCommands, err := module.Lookup[*brandscmd.Handlers](p)
	if err != nil {
		return module.Parts{}, err
	}
	brandOptions, err := module.Lookup[*brandsview.Queries](p)
	if err != nil {
		return module.Parts{}, err
	}
	commands, err := designcmd.NewHandlers(p.Store, p.Pool, p.Objects, spaces, kits{h: brandCommands}, p.Jobs, p.Now, cfg.Commands, p.Log)
	if err != nil {
		return module.Parts{}, err
	}
	queries := designview.NewQueries(p.Pool, p.Reader)
	module.Provide(p, commands)
	module.Provide(p, queries)
	appURL := cfg.AppURL
	if appURL == "" {
		appURL = module.LocalURL(p.Addrs["design"])
	}
	identity := p.AuthBaseURL
	if identity == "" {
		identity = module.LocalURL(p.Addrs["identity"])
	}
	// The platform's own identity service, configured by the operator: a
	// plain client (the outbound one refuses loopback).
	deps := designhttp.Deps{Commands: commands, Queries: queries, Brands: brandOptions, Health: health(cfg, p),
		Sessions: webpage.IdentityClient{Base: identity, Client: &http.Client{}}, InsightsSiteKey: cfg.InsightsSiteKey}
	parts := module.Parts{
		Projections:   []projections.Projection{designview.Projection{}},
		Notifications: designmap.Mapping(appURL),
		Jobs:          []jobs.Kind{commands.Kind()},
		Widget:        designhttp.Widget(deps),
		Service:       func(router httpapi.Deps) (httpapi.Service, error) { return designhttp.Service(deps, router), nil },
	}
	if cfg.SweepInterval > 0 {
		// Any number of processes may sweep: rows are claimed with SKIP LOCKED.
		parts.Workers = append(parts.Workers, module.Worker{Name: "design-object-sweeper", Run: func(ctx context.Context) error {
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

// Health is /api/health's answer: the service is up, and where the
// configured neighbours are (seed 000's configuration names).
type Health struct {
	Status   string `json:"status"`
	Service  string `json:"service"`
	Identity string `json:"identity"` // AUTH_BASE_URL, or in-process
	Gateway  string `json:"gateway"`  // GATEWAY_URL, or in-process
	// Renderer is in-process (the design-jobs workers of this deployment),
	// or RENDER_SERVICE_URL with whether its /health answered (up, down).
	Renderer string `json:"renderer"`
}

func health(cfg *Config, p *module.Platform) func(ctx context.Context) (int, any) {
	client := &http.Client{Timeout: time.Second}
	or := func(v string) string {
		if v == "" {
			return "in-process"
		}
		return v
	}
	return func(ctx context.Context) (int, any) {
		h := Health{Status: "ok", Service: "design", Identity: or(p.AuthBaseURL), Gateway: or(cfg.GatewayURL), Renderer: "in-process"}
		if cfg.RenderServiceURL != "" {
			state := "down"
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, cfg.RenderServiceURL+"/health", nil)
			if err == nil {
				if res, err := client.Do(req); err == nil {
					res.Body.Close()
					if res.StatusCode == http.StatusOK {
						state = "up"
					}
				}
			}
			h.Renderer = cfg.RenderServiceURL + " (" + state + ")"
		}
		return http.StatusOK, h
	}
}
