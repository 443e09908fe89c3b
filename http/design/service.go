// Package design is seed 000's design service: its three shown actions
// (widget.get through the platform's widget contract, workspace.bootstrap,
// brands.list), /api/health, and the actions a designer needs (docs/design.md):
// projects, governed designs and their layers, uploaded images, exports and
// their signed downloads, the organization's data export and erasure.
package design

import (
	"context"
	"encoding/json"
	"io"
	"net/http"

	designcmd "github.com/platform/backend/commands/design"
	"github.com/platform/backend/commands/workspace"
	"github.com/platform/backend/domain/brands"
	domain "github.com/platform/backend/domain/design"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/principal"
	httpapi "github.com/platform/backend/http"
	"github.com/platform/backend/http/webpage"
	brandsview "github.com/platform/backend/projections/brands"
	designview "github.com/platform/backend/projections/design"
)

// Deps are what the design service's routes call.
type Deps struct {
	Commands *designcmd.Handlers
	Queries  *designview.Queries
	// Brands are the brand service's options (brands.list).
	Brands *brandsview.Queries
	// Health answers /api/health (nil: ok).
	Health func(ctx context.Context) (int, any)
	// Sessions signs people in to the web pages with identity's sessions
	// (pages.go); InsightsSiteKey is the web component's INSIGHTS_SITE_KEY.
	Sessions        webpage.Sessions
	InsightsSiteKey string
}

const ws = "/api/workspaces/{workspaceSlug}"

// Service is the design service: the API and its web component (the pages
// under /app, pages.go), on the router's dependencies.
func Service(d Deps, router httpapi.Deps) httpapi.Service {
	return httpapi.Service{Name: "design", AppID: designcmd.AppID, Health: d.Health, Routes: pageRoutes(d, router),
		Actions: append(append(d.seedActions(), d.projectActions()...), d.designActions()...)}
}

// in is an input schema of a workspace's route.
func in(required []string, props map[string]string) json.RawMessage {
	m := map[string]string{"workspaceSlug": slugSchema}
	for k, v := range props {
		m[k] = v
	}
	return httpapi.Object(append([]string{"workspaceSlug"}, required...), m)
}

// scope resolves the path's workspace for a read.
func (d Deps) scope(ctx context.Context, p principal.Principal, slug string) (designview.Scope, error) {
	w, err := d.Commands.Enter(ctx, p, slug, designcmd.PermWorkspaceRead)
	return designview.Scope{Organization: p.OrganizationID, Workspace: w.ID}, err
}

// seedActions are seed 000's (widget.get is the kernel's, from Widget) and
// the organization's data export and erasure.
func (d Deps) seedActions() []httpapi.Action {
	return []httpapi.Action{
		httpapi.Query(httpapi.Action{Name: "workspace.bootstrap", Method: http.MethodGet, Path: "/api/bootstrap", Permission: "workspace:read",
			ReadOnly: true, OutputSchema: bootstrapOut,
			Summary: "Seed 000's bootstrap: the user and the organization with the workspaces this credential may enter (their ids " +
				"are valid only for this credential), and the identity actions that manage them"},
			func(ctx context.Context, p principal.Principal, _ httpapi.NoInput) (workspace.Bootstrap, error) {
				return workspace.BootstrapOf(ctx, d.Commands.Directory(), p)
			}),
		httpapi.Query(httpapi.Action{Name: "brands.list", Method: http.MethodGet, Path: "/api/brand-options", Permission: "brands:read",
			ReadOnly: true, ReadModel: brandsview.Name, OutputSchema: optionsOut,
			Summary: "The brand kits a governed design may be started with: published kits the caller sees (its organization's, the " +
				"library's) that are offered for governed design; available is false when there is none"},
			func(ctx context.Context, p principal.Principal, _ httpapi.NoInput) (brandsview.Options, error) {
				return d.Brands.Options(ctx, p)
			}),
		httpapi.Query(httpapi.Action{Name: "organizations.data.export", Method: http.MethodGet, Path: "/api/organizations/data/export",
			Permission: "privacy:manage", ReadOnly: true, ReadModel: designview.Name, OutputSchema: dataOut,
			Summary: "Every design record of the organization (projects, designs, images, exports); no file keys or links. An admin's " +
				"(privacy:manage), with a credential bound to no workspace"},
			func(ctx context.Context, p principal.Principal, _ httpapi.NoInput) (designview.Export, error) {
				if err := designcmd.WholeOrganization(p); err != nil {
					return designview.Export{}, err
				}
				return d.Queries.OrganizationData(ctx, p.OrganizationID)
			}),
		httpapi.CommandAs(httpapi.Action{Name: "organizations.data.erase", Method: http.MethodDelete, Path: "/api/organizations/data/erase",
			Permission: "privacy:manage", Destructive: true, ReadModel: designview.Name, OutputSchema: erasureOut,
			Summary: "Erase the organization's designs, images and export files (confirmation must be ERASE); they stay erased after a " +
				"rebuild of the read models. An admin's (privacy:manage), bound to no workspace",
			InputSchema: httpapi.Object([]string{"confirmation"}, map[string]string{"confirmation": confirmation})}, d.Commands.EraseData),
	}
}

func (d Deps) projectActions() []httpapi.Action {
	c, read := d.Commands, designview.Name
	project := map[string]string{"projectId": idSchema}
	return []httpapi.Action{
		httpapi.Query(httpapi.Action{Name: "projects.list", Method: http.MethodGet, Path: ws + "/projects", Permission: "workspace:read",
			ReadOnly: true, ReadModel: read, OutputSchema: projectPageOut, Summary: "The workspace's projects, newest first, a page at a time",
			InputSchema: in(nil, map[string]string{"limit": limitSchema, "cursor": cursorSchema})},
			func(ctx context.Context, p principal.Principal, in listIn) (designview.ProjectPage, error) {
				s, err := d.scope(ctx, p, in.WorkspaceSlug)
				if err != nil {
					return designview.ProjectPage{}, err
				}
				return d.Queries.Projects(ctx, s, in.page())
			}),
		httpapi.CommandAs(httpapi.Action{Name: "projects.create", Method: http.MethodPost, Path: ws + "/projects", Permission: "workspace:write",
			SuccessStatus: http.StatusCreated, ReadModel: read, OutputSchema: projectOut, Summary: "Start a project (a campaign, a client) in the workspace",
			InputSchema: in([]string{"name"}, map[string]string{"name": nameSchema, "description": descSchema})}, c.CreateProject),
		httpapi.Query(httpapi.Action{Name: "projects.get", Method: http.MethodGet, Path: ws + "/projects/{projectId}", Permission: "workspace:read",
			ReadOnly: true, ReadModel: read, OutputSchema: projectOut, Summary: "A project of the workspace",
			InputSchema: in([]string{"projectId"}, project)},
			func(ctx context.Context, p principal.Principal, in designcmd.ProjectRef) (domain.Project, error) {
				s, err := d.scope(ctx, p, in.WorkspaceSlug)
				if err != nil {
					return domain.Project{}, err
				}
				return d.Queries.Project(ctx, s, in.ProjectID)
			}),
		httpapi.CommandAs(httpapi.Action{Name: "projects.update", Method: http.MethodPatch, Path: ws + "/projects/{projectId}",
			Permission: "workspace:write", ReadModel: read, OutputSchema: projectOut,
			Summary: "Rename a project or change its description (an empty one clears it)",
			InputSchema: httpapi.RequireAnyOf(in([]string{"projectId"}, map[string]string{"projectId": idSchema, "name": nameSchema,
				"description": descSchema}), "name", "description")}, c.UpdateProject),
		httpapi.CommandAs(httpapi.Action{Name: "projects.delete", Method: http.MethodDelete, Path: ws + "/projects/{projectId}",
			Permission: "workspace:write", Destructive: true, ReadModel: read, OutputSchema: projectOut,
			Summary:     "Delete a project that holds no design (409 project_not_empty otherwise)",
			InputSchema: in([]string{"projectId"}, project)}, c.DeleteProject),
		httpapi.Query(httpapi.Action{Name: "assets.list", Method: http.MethodGet, Path: ws + "/assets", Permission: "workspace:read",
			ReadOnly: true, ReadModel: read, OutputSchema: assetPageOut, Summary: "The workspace's uploaded images, newest first",
			InputSchema: in(nil, map[string]string{"limit": limitSchema, "cursor": cursorSchema})},
			func(ctx context.Context, p principal.Principal, in listIn) (designview.AssetPage, error) {
				s, err := d.scope(ctx, p, in.WorkspaceSlug)
				if err != nil {
					return designview.AssetPage{}, err
				}
				return d.Queries.Assets(ctx, s, in.page())
			}),
		httpapi.Bytes(httpapi.Action{Name: "assets.upload", Method: http.MethodPost, Path: ws + "/assets", Permission: "assets:write",
			SuccessStatus: http.StatusCreated, ReadModel: read, OutputSchema: assetOut,
			Summary: "Upload an image for designs: the body is a PNG or JPEG, its Content-Type its type (checked by decoding it); " +
				"413 above the size limit, nothing stored",
			InputSchema: in(nil, map[string]string{"name": nameSchema}),
			Body:        &httpapi.RawBody{MediaTypes: domain.AssetTypes, MaxBytes: c.Config().AssetMaxBytes, Schema: imageBody}},
			func(ctx context.Context, call *httpapi.Call, in designcmd.UploadAsset) (httpapi.Reply, error) {
				in.ContentType = call.MediaType
				return httpapi.FromResult(c.UploadAsset(ctx, call.Meta, call.Principal, in, call.Body))
			}),
		httpapi.Query(httpapi.Action{Name: "assets.get", Method: http.MethodGet, Path: ws + "/assets/{assetId}", Permission: "workspace:read",
			ReadOnly: true, ReadModel: read, OutputSchema: assetOut, Summary: "An uploaded image's record",
			InputSchema: in([]string{"assetId"}, map[string]string{"assetId": idSchema})},
			func(ctx context.Context, p principal.Principal, in designcmd.AssetRef) (domain.Asset, error) {
				s, err := d.scope(ctx, p, in.WorkspaceSlug)
				if err != nil {
					return domain.Asset{}, err
				}
				return d.Queries.Asset(ctx, s, in.AssetID)
			}),
		httpapi.CommandAs(httpapi.Action{Name: "assets.delete", Method: http.MethodDelete, Path: ws + "/assets/{assetId}",
			Permission: "assets:write", Destructive: true, ReadModel: read, OutputSchema: assetOut,
			Summary: "Take an image out of the workspace's library: no design may add it any more; designs that show it keep it " +
				"(its file goes with the organization's erasure)",
			InputSchema: in([]string{"assetId"}, map[string]string{"assetId": idSchema})}, c.DeleteAsset),
	}
}

// listIn is a list's input.
type listIn struct {
	WorkspaceSlug string `json:"workspaceSlug"`
	Limit         int    `json:"limit"`
	Cursor        string `json:"cursor"`
}

func (l listIn) page() designview.Page { return designview.Page{Limit: l.Limit, Cursor: l.Cursor} }

type designsIn struct {
	WorkspaceSlug string `json:"workspaceSlug"`
	ProjectID     string `json:"projectId"`
	Limit         int    `json:"limit"`
	Cursor        string `json:"cursor"`
}

func (d Deps) designActions() []httpapi.Action {
	c, read := d.Commands, designview.Name
	design := map[string]string{"designId": idSchema}
	content := map[string]string{"width": sideSchema, "height": sideSchema, "fps": fpsSchema, "pages": pagesSchema}
	with := func(base map[string]string, more map[string]string) map[string]string {
		out := map[string]string{}
		for k, v := range base {
			out[k] = v
		}
		for k, v := range more {
			out[k] = v
		}
		return out
	}
	export := map[string]string{"exportId": idSchema}
	return []httpapi.Action{
		httpapi.Query(httpapi.Action{Name: "designs.list", Method: http.MethodGet, Path: ws + "/designs", Permission: "workspace:read",
			ReadOnly: true, ReadModel: read, OutputSchema: designPageOut,
			Summary:     "The workspace's designs (of one project with projectId) as summaries, newest first, a page at a time",
			InputSchema: in(nil, map[string]string{"projectId": idSchema, "limit": limitSchema, "cursor": cursorSchema})},
			func(ctx context.Context, p principal.Principal, in designsIn) (designview.DesignPage, error) {
				s, err := d.scope(ctx, p, in.WorkspaceSlug)
				if err != nil {
					return designview.DesignPage{}, err
				}
				return d.Queries.Designs(ctx, s, in.ProjectID, designview.Page{Limit: in.Limit, Cursor: in.Cursor})
			}),
		httpapi.CommandAs(httpapi.Action{Name: "designs.create", Method: http.MethodPost, Path: ws + "/projects/{projectId}/designs",
			Permission: "workspace:write", SuccessStatus: http.StatusCreated, ReadModel: read, OutputSchema: designOut,
			Summary: "Start a design of the project, pinned to a version (the current one by default) of a brand kit offered for " +
				"governed design (brands.list); every colour and font must be the version's (422 at the member otherwise)",
			InputSchema: in([]string{"projectId", "name", "brandKitId", "width", "height", "pages"}, with(content, map[string]string{
				"projectId": idSchema, "name": nameSchema, "brandKitId": idSchema, "brandKitVersionId": httpapi.NullableLine(128)}))},
			c.CreateDesign),
		httpapi.Query(httpapi.Action{Name: "designs.get", Method: http.MethodGet, Path: ws + "/designs/{designId}", Permission: "workspace:read",
			ReadOnly: true, ReadModel: read, OutputSchema: designOut, Summary: "A design, whole: its pages, layers and keyframes",
			InputSchema: in([]string{"designId"}, design)},
			func(ctx context.Context, p principal.Principal, in designcmd.DesignRef) (domain.Design, error) {
				s, err := d.scope(ctx, p, in.WorkspaceSlug)
				if err != nil {
					return domain.Design{}, err
				}
				return d.Queries.Design(ctx, s, in.DesignID)
			}),
		httpapi.CommandAs(httpapi.Action{Name: "designs.update", Method: http.MethodPatch, Path: ws + "/designs/{designId}",
			Permission: "workspace:write", ReadModel: read, OutputSchema: designOut,
			Summary: "Rename a design or save its content (width, height, fps, pages: members not sent keep theirs), governed by " +
				"the version it pins; a content change counts a revision",
			InputSchema: httpapi.RequireAnyOf(in([]string{"designId"}, with(content, map[string]string{"designId": idSchema,
				"name": nameSchema})), "name", "width", "height", "fps", "pages")}, c.UpdateDesign),
		httpapi.CommandAs(httpapi.Action{Name: "designs.layers.update", Method: http.MethodPatch,
			Path: ws + "/designs/{designId}/pages/{pageId}/layers/{layerId}", Permission: "workspace:write", ReadModel: read, OutputSchema: designOut,
			Summary: "Change one layer (a text, a colour of the kit's palette, a font, a move): governed like any change, a problem " +
				"answered at the member sent",
			InputSchema: httpapi.RequireAnyOf(in([]string{"designId", "pageId", "layerId"}, map[string]string{"designId": idSchema,
				"pageId": partIDSchema, "layerId": partIDSchema, "name": httpapi.NullableLine(domain.MaxName), "x": coordSchema, "y": coordSchema,
				"width": lengthSchema, "height": lengthSchema, "rotation": angleSchema, "opacity": unitNullable, "fill": hexNullable,
				"stroke": hexNullable, "text": textSchema, "fontFamily": familySchema, "fontWeight": weightSchema, "fontStyle": enum(domain.Styles...),
				"fontSize": fontSize, "align": enum(domain.Aligns...)}), "name", "x", "y", "width", "height", "rotation", "opacity", "fill",
				"stroke", "text", "fontFamily", "fontWeight", "fontStyle", "fontSize", "align")}, c.UpdateLayer),
		httpapi.CommandAs(httpapi.Action{Name: "designs.brand_kit.update", Method: http.MethodPut, Path: ws + "/designs/{designId}/brand-kit",
			Permission: "workspace:write", ReadModel: read, OutputSchema: designOut,
			Summary: "Pin the design to another brand kit version (a later one of its kit, or another kit offered for governed " +
				"design); its content must be governed by it. A design never follows its kit by itself",
			InputSchema: in([]string{"designId", "brandKitId"}, map[string]string{"designId": idSchema, "brandKitId": idSchema,
				"brandKitVersionId": httpapi.NullableLine(128)})}, c.RebrandDesign),
		httpapi.Query(httpapi.Action{Name: "designs.brand_kit.get", Method: http.MethodGet, Path: ws + "/designs/{designId}/brand-kit",
			Permission: "workspace:read", ReadOnly: true, ReadModel: read, OutputSchema: kitOut,
			Summary:     "The brand kit version the design pins: the colours, fonts and logos its layers may use",
			InputSchema: in([]string{"designId"}, design)}, d.pinned),
		httpapi.CommandAs(httpapi.Action{Name: "designs.duplicate", Method: http.MethodPost, Path: ws + "/designs/{designId}/duplicate",
			Permission: "workspace:write", SuccessStatus: http.StatusCreated, ReadModel: read, OutputSchema: designOut,
			Summary:     "Copy a design into its project, pinned to the same version (\"Copy of <name>\" unless named)",
			InputSchema: in([]string{"designId"}, map[string]string{"designId": idSchema, "name": nameSchema})}, c.DuplicateDesign),
		httpapi.CommandAs(httpapi.Action{Name: "designs.delete", Method: http.MethodDelete, Path: ws + "/designs/{designId}",
			Permission: "workspace:write", Destructive: true, ReadModel: read, OutputSchema: designOut,
			Summary: "Delete a design (its exports stay downloadable until the organization's data is erased)", InputSchema: in([]string{"designId"}, design)},
			c.DeleteDesign),
		httpapi.Bytes(httpapi.Action{Name: "designs.preview.get", Method: http.MethodGet, Path: ws + "/designs/{designId}/preview",
			Permission: "workspace:read", ReadOnly: true, Produces: "image/png", OutputSchema: previewOut,
			Summary: "A page of the design drawn now as the PNG export draws it (half size by default, at most 1920x1920)",
			InputSchema: in([]string{"designId"}, map[string]string{"designId": idSchema, "pageId": partIDSchema, "atMs": atMsSchema,
				"scale": scaleSchema})},
			func(ctx context.Context, call *httpapi.Call, in designcmd.Preview) (httpapi.Reply, error) {
				png, err := c.Preview(ctx, call.Principal, in)
				if err != nil {
					return httpapi.Reply{}, err
				}
				return httpapi.Reply{ContentType: "image/png", Header: http.Header{"Cache-Control": {"private, no-store"}},
					Content: func(w io.Writer) error { _, err := w.Write(png); return err }}, nil
			}),
		httpapi.CommandAs(httpapi.Action{Name: "designs.exports.create", Method: http.MethodPost, Path: ws + "/designs/{designId}/exports",
			Permission: "exports:write", SuccessStatus: http.StatusAccepted, ReadModel: read, OutputSchema: exportOut,
			Summary: "Export the design as it is now: svg, png or jpeg of one page (pageId, at atMs), or an mp4 of every page; " +
				"scale multiplies its size. The export is rendered by a job; once its file is stored it is ready and " +
				"design.export.ready is emitted",
			InputSchema: in([]string{"designId", "format"}, map[string]string{"designId": idSchema, "format": enum(domain.Formats...),
				"pageId": partIDSchema, "atMs": atMsSchema, "scale": scaleSchema, "quality": qualitySchema})}, c.CreateExport),
		httpapi.Query(httpapi.Action{Name: "designs.exports.list", Method: http.MethodGet, Path: ws + "/designs/{designId}/exports",
			Permission: "workspace:read", ReadOnly: true, ReadModel: read, OutputSchema: exportsOut, Summary: "A design's exports, newest first",
			InputSchema: in([]string{"designId"}, design)},
			func(ctx context.Context, p principal.Principal, in designcmd.DesignRef) (map[string][]domain.Export, error) {
				s, err := d.scope(ctx, p, in.WorkspaceSlug)
				if err != nil {
					return nil, err
				}
				if _, err := d.Queries.Design(ctx, s, in.DesignID); err != nil {
					return nil, err
				}
				list, err := d.Queries.Exports(ctx, s, in.DesignID)
				return map[string][]domain.Export{"exports": list}, err
			}),
		httpapi.Query(httpapi.Action{Name: "exports.get", Method: http.MethodGet, Path: ws + "/exports/{exportId}", Permission: "workspace:read",
			ReadOnly: true, ReadModel: read, OutputSchema: exportOut, Summary: "An export: its status (queued, rendering, ready, failed, cancelled), progress and file",
			InputSchema: in([]string{"exportId"}, export)},
			func(ctx context.Context, p principal.Principal, in designcmd.ExportRef) (domain.Export, error) {
				s, err := d.scope(ctx, p, in.WorkspaceSlug)
				if err != nil {
					return domain.Export{}, err
				}
				return d.Queries.Export(ctx, s, in.ExportID)
			}),
		httpapi.CommandAs(httpapi.Action{Name: "exports.cancel", Method: http.MethodPost, Path: ws + "/exports/{exportId}/cancel",
			Permission: "exports:write", ReadModel: read, OutputSchema: exportOut,
			Summary:     "Stop a queued or rendering export for good (409 invalid_transition once ready or cancelled)",
			InputSchema: in([]string{"exportId"}, export)}, c.CancelExport),
		httpapi.CommandAs(httpapi.Action{Name: "exports.retry", Method: http.MethodPost, Path: ws + "/exports/{exportId}/retry",
			Permission: "exports:write", ReadModel: read, OutputSchema: exportOut, Summary: "Queue a failed export again",
			InputSchema: in([]string{"exportId"}, export)}, c.RetryExport),
		httpapi.Query(httpapi.Action{Name: "exports.download", Method: http.MethodGet, Path: ws + "/exports/{exportId}/download",
			Permission: "workspace:read", ReadOnly: true, OutputSchema: downloadOut,
			Summary:     "A signed, expiring link to a ready export's file (409 export_not_ready before)",
			InputSchema: in([]string{"exportId"}, export)},
			func(ctx context.Context, p principal.Principal, in designcmd.ExportRef) (designcmd.Download, error) {
				return c.DownloadExport(ctx, p, in)
			}),
	}
}

// pinned is the version a design of the workspace pins.
func (d Deps) pinned(ctx context.Context, p principal.Principal, in designcmd.DesignRef) (brands.Version, error) {
	s, err := d.scope(ctx, p, in.WorkspaceSlug)
	if err != nil {
		return brands.Version{}, err
	}
	ds, err := d.Queries.Design(ctx, s, in.DesignID)
	if err != nil {
		return brands.Version{}, err
	}
	v, found, err := d.Commands.Kit(ctx, ds.BrandKitVersionID)
	if err == nil && !found {
		err = errs.NotFound("brand kit version")
	}
	return v, err
}

// WidgetFigures are the design service's tile.
type WidgetFigures = designview.Counts

// Widget is the design service's dashboard tile: seed 000's widget.get
// (workspace:read), feeding the dashboard's live-workspace grid.
func Widget(d Deps) *httpapi.Widget {
	return httpapi.NewWidget(httpapi.Widget{Title: "Design", Permission: "workspace:read", ReadModel: designview.Name,
		Summary: "The design service's summary for the dashboard grid: projects, designs, exports rendering and ready"},
		func(ctx context.Context, p principal.Principal) (designview.Counts, error) {
			var bound []string // nil: every workspace
			for _, b := range p.Workspaces {
				bound = append(bound, b.WorkspaceID)
			}
			return d.Queries.Counts(ctx, p.OrganizationID, bound)
		})
}
