// Package brands is the brand service's module (seed 000's "brand
// service"): brand kits with their draft colours, fonts and logos,
// published versions that designs pin, and the library owner's kits
// offered to every organization.
package brands

import (
	"context"

	brandscmd "github.com/platform/backend/commands/brands"
	"github.com/platform/backend/commands/workspace"
	domain "github.com/platform/backend/domain/brands"
	httpapi "github.com/platform/backend/http"
	brandshttp "github.com/platform/backend/http/brands"
	"github.com/platform/backend/internal/module"
	"github.com/platform/backend/projections"
	brandsview "github.com/platform/backend/projections/brands"
)

// Scopes are what the brand service's actions check (`brands.<scope>`):
// kits:read, kits:write (drafts and their files), kits:manage (publish,
// delete, the offer for governed design: admins by the default bundles).
var Scopes = []string{"kits:read", "kits:write", "kits:manage"}

// Module is the brands context.
var Module = module.Module{
	Name:       "brands",
	Topic:      true,
	EventTypes: domain.EventTypes,
	Migrations: []module.Migration{brandscmd.Migrate},
	NewConfig:  func() module.Section { return &Config{} },
	Service: &module.ServiceSpec{Name: "brands", DefaultAddr: "127.0.0.1:8091",
		Summary: "/api/brand-kits..., /api/widget"},
	App: &module.App{AppID: brandscmd.AppID, Name: "Brand kits", SurfaceKind: "app", SurfaceGroup: "create", Launchable: true,
		DefaultAccess: true, Scopes: Scopes, ResourceTypes: []string{"workspace", "brand_kit"}},
	TenantKeyScopes: Scopes,
	Build:           build,
}

func build(_ context.Context, p *module.Platform) (module.Parts, error) {
	cfg := module.SectionOf[*Config](p.Sections)
	spaces, err := module.Lookup[workspace.Directory](p)
	if err != nil {
		return module.Parts{}, err
	}
	commands := brandscmd.NewHandlers(p.Store, p.Pool, p.Objects, spaces, p.Now, cfg.Commands, p.Log)
	queries := brandsview.NewQueries(p.Pool, p.Reader, commands.Library())
	module.Provide(p, commands)
	module.Provide(p, queries)
	deps := brandshttp.Deps{Commands: commands, Queries: queries}
	return module.Parts{
		Projections:   []projections.Projection{brandsview.Projection{}},
		SilentStreams: []string{domain.StreamKit},
		Widget:        brandshttp.Widget(deps),
		Service:       func(httpapi.Deps) (httpapi.Service, error) { return brandshttp.Service(deps), nil },
	}, nil
}
