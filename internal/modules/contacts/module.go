// Package contacts is the contacts API's module (seed 002): contacts,
// notes, attachments (in the object store), the pipeline and its board,
// CSV imports that can be undone and streamed exports, on its own listener.
package contacts

import (
	"context"

	contactscmd "github.com/platform/backend/commands/contacts"
	domain "github.com/platform/backend/domain/contacts"
	httpapi "github.com/platform/backend/http"
	contactshttp "github.com/platform/backend/http/contacts"
	"github.com/platform/backend/internal/module"
	"github.com/platform/backend/projections"
	contactsview "github.com/platform/backend/projections/contacts"
)

// Scopes of the contacts app: every route checks one of them.
var Scopes = []string{"contacts:read", "contacts:write", "contacts:manage"}

// Module is the contacts context. Its catalog app replaces the identity
// catalog's placeholder entry for contacts.
var Module = module.Module{
	Name:       "contacts",
	Topic:      true,
	EventTypes: domain.EventTypes,
	Migrations: []module.Migration{contactscmd.Migrate},
	NewConfig:  func() module.Section { return &Config{} },
	Service: &module.ServiceSpec{Name: "contacts", DefaultAddr: "127.0.0.1:8085", HealthPath: "/health",
		Summary: "/api/contacts (search, notes, attachments), /api/pipeline, CSV import and export"},
	App: &module.App{AppID: "contacts", Name: "Contacts", SurfaceKind: "app", SurfaceGroup: "engage", Launchable: true,
		DefaultAccess: true, Scopes: Scopes, ResourceTypes: []string{"audience"}},
	TenantKeyScopes: Scopes,
	AuditRules:      domain.AuditRules,
	Build:           build,
}

func build(_ context.Context, p *module.Platform) (module.Parts, error) {
	cfg := module.SectionOf[*Config](p.Sections)
	objects := p.Objects
	commands := contactscmd.NewHandlers(p.Store, p.Pool, p.Now, contactscmd.WithConfig(cfg.Limits), contactscmd.WithObjects(objects))
	queries := contactsview.NewQueries(p.Pool, p.Reader, p.Now)
	module.Provide(p, commands)
	module.Provide(p, queries)
	deps := contactshttp.Deps{Commands: commands, Queries: queries, Objects: objects, Config: commands.Config()}
	return module.Parts{
		Projections: []projections.Projection{contactsview.Projection{}},
		Service:     func(httpapi.Deps) (httpapi.Service, error) { return contactshttp.Service(deps), nil },
		Widget:      contactshttp.Widget(deps),
	}, nil
}
