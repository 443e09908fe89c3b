// Package dashboard is the dashboard service (seed 002): the app catalog
// with installs per active context, POST /api/widgets (the launcher's
// fan-out), the action queue, and the pages for people (pages.go).
package dashboard

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	dashboardcmd "github.com/platform/backend/commands/dashboard"
	domain "github.com/platform/backend/domain/dashboard"
	"github.com/platform/backend/domain/principal"
	httpapi "github.com/platform/backend/http"
	"github.com/platform/backend/http/webpage"
	"github.com/platform/backend/projections"
	view "github.com/platform/backend/projections/dashboard"
)

// AppID is the dashboard's app in the catalog: its actions are checked as
// dashboard.<scope>.
const AppID = "dashboard"

// Deps are what the service needs.
type Deps struct {
	Commands *dashboardcmd.Handlers
	Launcher *view.Launcher
	Log      *slog.Logger
	// Sessions signs people in and out for the pages (pages.go).
	Sessions webpage.Sessions
	// Validator, Attempts and Reader are the router's (httpapi.Deps): the
	// pages check credentials and sign-in attempts as actions do.
	Validator httpapi.Validator
	Attempts  *httpapi.Limiter
	Reader    *projections.Reader
}

// ContextInput names the active context ("" is the organization's).
type ContextInput struct {
	Context string `json:"context,omitempty"`
}

// CatalogApp is one app of the catalog and whether it is installed in the
// context asked about.
type CatalogApp struct {
	AppID        string     `json:"appId"`
	Name         string     `json:"name"`
	SurfaceKind  string     `json:"surfaceKind"`
	SurfaceGroup string     `json:"surfaceGroup"`
	Launchable   bool       `json:"launchable"`
	URL          string     `json:"url"`
	HasWidget    bool       `json:"hasWidget"`
	Installed    bool       `json:"installed"`
	InstalledAt  *time.Time `json:"installedAt"`
}

// Catalog is apps.list's answer.
type Catalog struct {
	Context string       `json:"context"`
	Apps    []CatalogApp `json:"apps"`
}

var (
	contextSchema = `{"type":"string","enum":["organization","personal"],"description":"the active context (default organization)"}`
	appIDSchema   = `{"type":"string","minLength":2,"maxLength":63,"pattern":"^[a-z][a-z0-9_]{1,62}$"}`
	contextIn     = httpapi.Object(nil, map[string]string{"context": contextSchema})
	appIn         = httpapi.Object([]string{"appId"}, map[string]string{"appId": appIDSchema, "context": contextSchema})

	tileSchema = `{"type":"object","required":["appId"],"additionalProperties":true,"properties":{"appId":{"type":"string","minLength":1}}}`

	catalogOut = httpapi.OutputOf(Catalog{}, httpapi.EnumOf("context", domain.Contexts...), httpapi.FormatOf("apps[].url", "uri"))
	installOut = httpapi.OutputOf(domain.Installation{}, httpapi.EnumOf("context", domain.Contexts...))
	batchOut   = httpapi.OutputOf(view.Batch{}, httpapi.EnumOf("context", domain.Contexts...),
		httpapi.WithSchema("widgets[]", tileSchema), httpapi.WithSchema("apps[].widgets[]", tileSchema),
		httpapi.EnumOf("apps[].state", domain.States...), httpapi.EnumOf("omitted[].reason", "permission_denied"),
		httpapi.FormatOf("apps[].url", "uri"))
	queueOut = httpapi.OutputOf(view.Queue{}, httpapi.EnumOf("items[].severity", httpapi.ItemSeverities...),
		httpapi.EnumOf("sources[].state", "ok", "timeout", "unavailable", "authentication_required", "error"),
		httpapi.FormatOf("items[].url", "uri"))
)

// Service is the dashboard's HTTP service on the router's dependencies.
func Service(d Deps, router httpapi.Deps) httpapi.Service {
	d.Validator, d.Attempts, d.Reader = router.Validator, router.Attempts, router.Reader
	d.Sessions = webpage.RefreshOnce(d.Sessions)
	return httpapi.Service{Name: "dashboard", AppID: AppID, Routes: pageRoutes(d), Actions: []httpapi.Action{
		httpapi.Query(httpapi.Action{
			Name: "apps.list", Method: http.MethodGet, Path: "/api/apps", Permission: "apps:read", ReadOnly: true,
			Summary:     "The app catalog (every service), each app installed or not in the caller's active context",
			InputSchema: contextIn, OutputSchema: catalogOut, ReadModel: view.Name,
		}, d.catalog),
		httpapi.CommandAs(httpapi.Action{
			Name: "apps.install", Method: http.MethodPut, Path: "/api/apps/{appId}/installation", Permission: "apps:write",
			Summary:     "Install an app in the caller's active context: its widget joins the dashboard (installing twice changes nothing)",
			InputSchema: appIn, OutputSchema: installOut, ReadModel: view.Name,
		}, d.Commands.InstallApp),
		httpapi.CommandAs(httpapi.Action{
			Name: "apps.uninstall", Method: http.MethodDelete, Path: "/api/apps/{appId}/installation", Permission: "apps:write",
			Summary:     "Uninstall an app from the caller's active context: its widget leaves the dashboard; the app stays in the catalog",
			InputSchema: appIn, OutputSchema: installOut, ReadModel: view.Name,
		}, d.Commands.UninstallApp),
		httpapi.Decoded(httpapi.Action{
			Name: "widgets.batch", Method: http.MethodPost, Path: "/api/widgets", Permission: "widgets:read", ReadOnly: true,
			Summary: "The widgets of every app installed in the caller's active context, fetched in parallel within a time budget " +
				"per app; each app says fresh, cached (45 s), stale (a payload under five minutes old, the fetch failed) or " +
				"fallback (the catalog's overview), and its age",
			InputSchema: contextIn, OutputSchema: batchOut,
		}, func(ctx context.Context, c *httpapi.Call, in ContextInput) (httpapi.Reply, error) {
			b, err := d.Launcher.Load(ctx, view.Caller{Principal: c.Principal, Credential: httpapi.Credential(c.Request)}, in.Context, d.Launcher.Now())
			if err != nil {
				return httpapi.Reply{}, err
			}
			return httpapi.Reply{Body: b, Header: http.Header{"Cache-Control": {"private, no-store"}}}, nil
		}),
		httpapi.Query(httpapi.Action{
			Name: "action_items.list", Method: http.MethodGet, Path: "/api/action-items", Permission: "dashboard:read", ReadOnly: true,
			Summary:      "The human-required action queue: what a person must resolve in every app the caller may see, most urgent first, each with a link to where it is resolved",
			OutputSchema: queueOut,
		}, func(ctx context.Context, p principal.Principal, _ httpapi.NoInput) (view.Queue, error) {
			return d.Launcher.ActionQueue(ctx, p, d.Launcher.Now()), nil
		}),
	}}
}

// catalog is apps.list.
func (d Deps) catalog(ctx context.Context, p principal.Principal, in ContextInput) (Catalog, error) {
	c, err := domain.ContextOf(p, in.Context)
	if err != nil {
		return Catalog{}, err
	}
	installed, err := d.Launcher.Installed(ctx, c)
	if err != nil {
		return Catalog{}, err
	}
	out := Catalog{Context: c.Kind, Apps: []CatalogApp{}}
	for _, a := range d.Launcher.Apps() {
		ca := CatalogApp{AppID: a.AppID, Name: a.Name, SurfaceKind: a.SurfaceKind, SurfaceGroup: a.SurfaceGroup,
			Launchable: a.Launchable, URL: a.URL, HasWidget: a.Widget != nil}
		if at, ok := installed[a.AppID]; ok {
			ca.Installed, ca.InstalledAt = true, &at
		}
		out.Apps = append(out.Apps, ca)
	}
	return out, nil
}
