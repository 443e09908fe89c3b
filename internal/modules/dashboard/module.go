// Package dashboard is the dashboard service's module (seed 002): the app
// catalog with installs per active context, the widget launcher
// (POST /api/widgets), the action queue and the pages for people, on its
// own listener.
package dashboard

import (
	"context"
	"net/http"
	"strings"

	dashboardcmd "github.com/platform/backend/commands/dashboard"
	domain "github.com/platform/backend/domain/dashboard"
	httpapi "github.com/platform/backend/http"
	dashboardhttp "github.com/platform/backend/http/dashboard"
	"github.com/platform/backend/http/webpage"
	"github.com/platform/backend/internal/module"
	"github.com/platform/backend/projections"
	view "github.com/platform/backend/projections/dashboard"
)

// Scopes are seed 002's dashboard API key scopes (authentication, item 6),
// in the catalog's resource:action syntax.
var Scopes = []string{"api_keys:write", "apps:read", "apps:write", "dashboard:read", "entitlements:read", "launcher:read",
	"launches:read", "notifications:read", "notifications:write", "settings:read", "settings:write", "widgets:read",
	"workflows:read", "workflows:write"}

// Module is the dashboard context. Its catalog app replaces the identity
// catalog's placeholder entry for the dashboard.
var Module = module.Module{
	Name:       "dashboard",
	Topic:      true,
	EventTypes: domain.EventTypes,
	NewConfig:  func() module.Section { return &Config{} },
	Service: &module.ServiceSpec{Name: "dashboard", DefaultAddr: "127.0.0.1:8088",
		Summary: "/dashboard, /apps, /actions, /login, /onboarding; /api/widgets, /api/apps, /api/action-items"},
	App: &module.App{AppID: dashboardhttp.AppID, Name: "Dashboard", SurfaceKind: "platform", SurfaceGroup: "platform", Launchable: true,
		DefaultAccess: true, Scopes: Scopes, ResourceTypes: []string{"workspace"}},
	TenantKeyScopes: dashboardhttp.KeyScopes,
	Build:           build,
}

func build(_ context.Context, p *module.Platform) (module.Parts, error) {
	cfg := module.SectionOf[*Config](p.Sections)
	queries := view.NewQueries(p.Pool, p.Reader)
	// The platform's own services, configured by the operator: a plain
	// client, not the outbound one for tenant URLs (it refuses loopback).
	client := &http.Client{}
	launcher := view.NewLauncher(cfg.Launcher, nil, queries.Installed, client)
	commands := dashboardcmd.NewHandlers(p.Store, p.Now, launcher.AppIDs)
	module.Provide(p, launcher)
	module.Provide(p, commands)
	identity := p.AuthBaseURL
	if identity == "" {
		identity = module.LocalURL(p.Addrs["identity"])
	}
	deps := dashboardhttp.Deps{Commands: commands, Launcher: launcher, Log: p.Log,
		Sessions: webpage.IdentityClient{Base: identity, Client: client}}
	return module.Parts{
		Projections: []projections.Projection{view.Projection{}},
		Service: func(router httpapi.Deps) (httpapi.Service, error) {
			// Every module is built now: the catalog is their apps, with
			// their widgets and action items.
			for _, a := range catalog(p, cfg) {
				launcher.Add(a)
			}
			return dashboardhttp.Service(deps, router), nil
		},
	}, nil
}

// catalog is every module's app, in module order, with how its widget is
// read.
func catalog(p *module.Platform, cfg *Config) []view.App {
	widgets := map[string]*httpapi.Widget{}
	for _, w := range p.Widgets {
		widgets[w.AppID] = w.Widget
	}
	items := map[string]*httpapi.ActionItems{}
	for _, a := range p.ActionItems {
		items[a.AppID] = a.Items
	}
	var out []view.App
	for _, a := range p.Apps() {
		out = append(out, view.App{AppID: a.AppID, Name: a.Name, SurfaceKind: a.SurfaceKind, SurfaceGroup: a.SurfaceGroup,
			Launchable: a.Launchable, URL: strings.TrimRight(cfg.AppsBaseURL, "/") + "/" + a.AppID,
			Widget: widgets[a.AppID], Remote: cfg.RemoteWidgets[a.AppID], ActionItems: items[a.AppID]})
	}
	return out
}
