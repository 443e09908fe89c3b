// Package studio is seed 002's studio service: its 47 actions (the table's
// 19, the project list and planning routes, and 25 of ours), who-am-I,
// bootstrap, the dashboard widget, the mobile contract's routes, and its
// probes (/healthz, /readyz).
package studio

import (
	"context"
	"net/http"
	"time"

	"github.com/gorilla/mux"

	studiocmd "github.com/platform/backend/commands/studio"
	domain "github.com/platform/backend/domain/studio"
	httpapi "github.com/platform/backend/http"
	studioview "github.com/platform/backend/projections/studio"
)

// Deps are what the studio's routes call.
type Deps struct {
	Commands *studiocmd.Handlers
	Queries  *studioview.Queries
	// Ready answers /readyz: 200 while the database and the broker answer,
	// 503 otherwise.
	Ready func(ctx context.Context) (int, any)
	Now   func() time.Time
}

// HealthPath is the studio API's liveness route (seed 002).
const HealthPath = "/healthz"

// ws is the path prefix of a workspace's routes.
const ws = "/api/workspaces/{workspaceSlug}"

// Service is the studio service.
func Service(d Deps) httpapi.Service {
	if d.Now == nil {
		d.Now = time.Now
	}
	c := d.Commands
	read := studioview.Name
	return httpapi.Service{
		Name: "studio", AppID: studiocmd.AppID, HealthPath: HealthPath,
		Actions: append(append(append(d.seedActions(c, read), d.oursActions(c, read)...), d.platformActions()...), d.mobileActions(read)...),
		Routes: func(r *mux.Router) {
			r.HandleFunc("/readyz", func(w http.ResponseWriter, req *http.Request) {
				status, body := http.StatusOK, any(map[string]string{"status": "ready", "service": "studio"})
				if d.Ready != nil {
					status, body = d.Ready(req.Context())
				}
				httpapi.WriteJSON(w, status, body)
			}).Methods(http.MethodGet)
		},
	}
}

// seedActions are the actions of seed 002's studio table, and the project
// list and planning routes it names.
func (d Deps) seedActions(c *studiocmd.Handlers, read string) []httpapi.Action {
	return []httpapi.Action{
		httpapi.Query(httpapi.Action{
			Name: "organizations.data.export", Method: http.MethodGet, Path: "/api/organizations/data/export", Permission: "privacy:read",
			ReadOnly: true, ReadModel: read, OutputSchema: exportOut, AuthorizationMode: httpapi.AuthRuntime,
			Summary: "Every studio record of the organization (projects, scenes, approvals, composition versions, render jobs, " +
				"generation requests, asset metadata, templates, presets, quota counts); no credentials, keys or signed links. " +
				"Needs an admin role too (a key: its creator's), else 403 permission_denied",
		}, d.export),
		httpapi.CommandAs(httpapi.Action{
			Name: "organizations.data.erase", Method: http.MethodDelete, Path: "/api/organizations/data/erase", Permission: "privacy:write",
			Destructive: true, ReadModel: read, OutputSchema: erasureOut, AuthorizationMode: httpapi.AuthRuntime,
			Summary: "Erase the organization's studio data and asset files (confirmation must be ERASE); it stays erased after a " +
				"rebuild of the read models. Backups and the event log are kept under the retention policy. Needs an admin role " +
				"too (a key: its creator's), else 403 permission_denied",
			InputSchema: httpapi.Object([]string{"confirmation"}, map[string]string{"confirmation": confirmationConst}),
		}, c.EraseData),
		httpapi.Perform(httpapi.Action{
			Name: "workspaces.delete", Method: http.MethodDelete, Path: ws, Permission: "workspace:delete", Destructive: true,
			OutputSchema: workspacesOut,
			Summary:      "Delete a workspace that is not the default one and holds no project, asset, template or preset (409 otherwise)",
			InputSchema:  httpapi.Object([]string{"workspaceSlug"}, map[string]string{"workspaceSlug": slugSchema}),
		}, c.DeleteWorkspace),
		httpapi.CommandAs(httpapi.Action{
			Name: "projects.create", Method: http.MethodPost, Path: ws + "/projects", Permission: "workspace:write",
			SuccessStatus: http.StatusCreated, ReadModel: read, OutputSchema: projectOut,
			Summary: "Start a project in the workspace; templateId names a project template of the workspace",
			InputSchema: httpapi.Object([]string{"workspaceSlug", "title"}, map[string]string{"workspaceSlug": slugSchema, "title": titleSchema,
				"objective": longNullable, "templateId": refNullable, "brandKitId": refNullable}),
		}, c.CreateProject),
		httpapi.CommandAs(httpapi.Action{
			Name: "projects.duplicate", Method: http.MethodPost, Path: ws + "/projects/{projectId}/duplicate", Permission: "briefs:write",
			SuccessStatus: http.StatusCreated, ReadModel: read, OutputSchema: projectOut,
			Summary: "Copy a project (brief, scenes, composition versions); includeAssets copies its assets too, and the copied " +
				"versions then name the copies",
			InputSchema: httpapi.Object([]string{"workspaceSlug", "projectId"}, map[string]string{"workspaceSlug": slugSchema,
				"projectId": idSchema, "title": optTitle, "includeAssets": boolSchema}),
		}, c.DuplicateProject),
		httpapi.CommandAs(httpapi.Action{
			Name: "project_templates.update", Method: http.MethodPatch, Path: ws + "/project-templates/{templateId}",
			Permission: "settings:write", AuthorizationMode: httpapi.AuthRuntime, ReadModel: read, OutputSchema: templateOut,
			Summary: "Change a project template: its owner or an admin of the workspace (runtime authorization)",
			InputSchema: httpapi.RequireAnyOf(httpapi.Object([]string{"workspaceSlug", "templateId"}, map[string]string{
				"workspaceSlug": slugSchema, "templateId": idSchema, "name": titleSchema, "description": longNullable,
				"promptDefaults": valuesSchema, "platforms": platformsSchema}), "name", "description", "promptDefaults", "platforms"),
		}, c.UpdateTemplate),
		httpapi.CommandAs(httpapi.Action{
			Name: "presets.create", Method: http.MethodPost, Path: ws + "/presets", Permission: "settings:write",
			AuthorizationMode: httpapi.AuthRuntime, SuccessStatus: http.StatusCreated, ReadModel: read, OutputSchema: presetOut,
			Summary: "Save generation settings as a preset of the workspace (runtime authorization: settings:write in this workspace); " +
				"its creator owns it",
			InputSchema: httpapi.Object([]string{"workspaceSlug", "name"}, map[string]string{"workspaceSlug": slugSchema, "name": titleSchema,
				"description": longNullable, "settings": valuesSchema}),
		}, c.CreatePreset),
		httpapi.CommandAs(httpapi.Action{
			Name: "presets.update", Method: http.MethodPatch, Path: ws + "/presets/{presetId}", Permission: "settings:write",
			AuthorizationMode: httpapi.AuthRuntime, ReadModel: read, OutputSchema: presetOut,
			Summary: "Change a preset: its owner or an admin of the workspace (runtime authorization)",
			InputSchema: httpapi.RequireAnyOf(httpapi.Object([]string{"workspaceSlug", "presetId"}, map[string]string{
				"workspaceSlug": slugSchema, "presetId": idSchema, "name": titleSchema, "description": longNullable, "settings": valuesSchema}),
				"name", "description", "settings"),
		}, c.UpdatePreset),
		httpapi.CommandAs(httpapi.Action{
			Name: "projects.compositions.create", Method: http.MethodPost, Path: ws + "/projects/{projectId}/compositions",
			Permission: "assets:write", SuccessStatus: http.StatusCreated, ReadModel: read, OutputSchema: compositionOut,
			Summary: "Record a composition version: aspect ratio and the snapshot a renderer draws (scenes, backgrounds, text, image " +
				"and video layers, cut and fade transitions); the snapshot's assets must be the workspace's",
			InputSchema: httpapi.Object([]string{"workspaceSlug", "projectId", "title", "aspectRatio", "snapshot"}, map[string]string{
				"workspaceSlug": slugSchema, "projectId": idSchema, "title": titleSchema, "aspectRatio": aspectSchema,
				"snapshot": string(snapshotOut), "notes": notesSchema, "sourceKind": sourceKindSchema, "generationStatus": genStatusSchema}),
		}, c.CreateComposition),
		httpapi.CommandAs(httpapi.Action{
			Name: "projects.compositions.update", Method: http.MethodPatch, Path: ws + "/projects/{projectId}/compositions/{compositionVersionId}",
			Permission: "assets:write", ReadModel: read, OutputSchema: compositionOut,
			Summary: "Change a composition version; its generation status moves pending -> queued -> running -> completed | failed | " +
				"cancelled (409 invalid_transition otherwise)",
			InputSchema: httpapi.RequireAnyOf(httpapi.Object([]string{"workspaceSlug", "projectId", "compositionVersionId"}, map[string]string{
				"workspaceSlug": slugSchema, "projectId": idSchema, "compositionVersionId": idSchema, "title": titleSchema,
				"aspectRatio": aspectSchema, "snapshot": string(snapshotOut), "notes": notesSchema, "generationStatus": genStatusSchema}),
				"title", "aspectRatio", "snapshot", "notes", "generationStatus"),
		}, c.UpdateComposition),
		httpapi.CommandAs(httpapi.Action{
			Name: "projects.render_jobs.create", Method: http.MethodPost, Path: ws + "/projects/{projectId}/render-jobs",
			Permission: "exports:read", SuccessStatus: http.StatusCreated, ReadModel: read, OutputSchema: renderJobOut,
			Summary: "Queue a render of a composition version (the project's latest by default) to mp4, mov, gif or png_sequence; " +
				"counted against the workspace's monthly quota (429 quota_exceeded past it)",
			InputSchema: httpapi.Object([]string{"workspaceSlug", "projectId"}, map[string]string{"workspaceSlug": slugSchema,
				"projectId": idSchema, "compositionVersionId": idSchema, "provider": providerSchema, "outputFormat": outputFormatEnum,
				"priority": prioritySchema}),
		}, c.CreateRenderJob),
		httpapi.CommandAs(httpapi.Action{
			Name: "projects.render_jobs.update", Method: http.MethodPatch, Path: ws + "/projects/{projectId}/render-jobs/{renderJobId}",
			Permission: "exports:read", ReadModel: read, OutputSchema: renderJobOut,
			Summary: "A renderer's report: queued -> rendering -> completed | failed | cancelled, progress 0..100; a terminal job " +
				"stays terminal (409 invalid_transition); completed names its output asset",
			InputSchema: httpapi.RequireAnyOf(httpapi.Object([]string{"workspaceSlug", "projectId", "renderJobId"}, map[string]string{
				"workspaceSlug": slugSchema, "projectId": idSchema, "renderJobId": idSchema, "renderStatus": renderStatusEnum,
				"progress": progressSchema, "failureReason": reasonSchema, "outputAssetId": idSchema, "startedAt": dateTimeNullable,
				"completedAt": dateTimeNullable}), "renderStatus", "progress", "failureReason", "outputAssetId", "startedAt", "completedAt"),
		}, c.UpdateRenderJob),
		httpapi.CommandAs(httpapi.Action{
			Name: "projects.scenes.regenerate", Method: http.MethodPost, Path: ws + "/projects/{projectId}/scenes/{sceneId}/generation/regenerate",
			Permission: "generation:write", AuthorizationMode: httpapi.AuthRuntime, SuccessStatus: http.StatusAccepted, ReadModel: read,
			OutputSchema: generationOut,
			Summary: "Queue new candidates for scenes (the path's scene by default); gateway provider and model overrides are a " +
				"workspace admin's (runtime authorization); counted against the monthly generation quota",
			InputSchema: httpapi.Object([]string{"workspaceSlug", "projectId", "sceneId"}, generationMembers(map[string]string{
				"workspaceSlug": slugSchema, "projectId": idSchema, "sceneId": idSchema})),
		}, c.RegenerateScene),
		httpapi.CommandAs(httpapi.Action{
			Name: "projects.structured_brief.update", Method: http.MethodPatch, Path: ws + "/projects/{projectId}/structured-brief",
			Permission: "briefs:write", ReadModel: read, OutputSchema: projectOut,
			Summary: "Change the project's structured brief (title, objective, audience, styleNotes; an empty string clears one)",
			InputSchema: httpapi.RequireAnyOf(httpapi.Object([]string{"workspaceSlug", "projectId"}, map[string]string{
				"workspaceSlug": slugSchema, "projectId": idSchema, "title": httpapi.NullableLine(domain.MaxTitle), "objective": longNullable,
				"audience": longNullable, "styleNotes": longNullable}), "title", "objective", "audience", "styleNotes"),
		}, c.UpdateBrief),
		httpapi.Bytes(httpapi.Action{
			Name: "assets.preview.get", Method: http.MethodGet, Path: ws + "/assets/{assetId}/preview", ReadOnly: true,
			Produces: "*/*", OutputSchema: previewOut, Problems: []int{http.StatusForbidden}, // the one refusal of a bad link
			Summary: "An asset's bytes through a signed link (token and expiresAt from assets.get); an altered, expired or foreign " +
				"link is one refusal (403)",
			InputSchema: httpapi.Object([]string{"workspaceSlug", "assetId", "token", "expiresAt"}, map[string]string{
				"workspaceSlug": slugSchema, "assetId": idSchema, "token": httpapi.LineSchema(1, 128), "expiresAt": httpapi.LineSchema(1, 32)}),
		}, d.preview),
		httpapi.Query(httpapi.Action{
			Name: "generation.model_options.list", Method: http.MethodGet, Path: ws + "/generation/model-options", Permission: "generation:write",
			ReadOnly: true, OutputSchema: modelsOut,
			Summary:     "What a generation request may choose: providers, gateway overrides, output kinds and their bounds",
			InputSchema: httpapi.Object([]string{"workspaceSlug"}, map[string]string{"workspaceSlug": slugSchema}),
		}, d.modelOptions),
		httpapi.Query(httpapi.Action{
			Name: "workspace.creative_resources.list", Method: http.MethodGet, Path: ws + "/creative-resources", Permission: "workspace:read",
			ReadOnly: true, ReadModel: read, OutputSchema: creativeOut,
			Summary:     "The workspace's templates, presets and brand fonts (font assets)",
			InputSchema: httpapi.Object([]string{"workspaceSlug"}, map[string]string{"workspaceSlug": slugSchema}),
		}, d.creativeResources),
		httpapi.Query(httpapi.Action{
			Name: "settings.status.get", Method: http.MethodGet, Path: ws + "/settings/status", Permission: "workspace:read",
			ReadOnly: true, ReadModel: read, OutputSchema: settingsOut,
			Summary:     "The workspace's settings as they stand: the workspace, this month's quotas, render formats and providers",
			InputSchema: httpapi.Object([]string{"workspaceSlug"}, map[string]string{"workspaceSlug": slugSchema}),
		}, d.settingsStatus),
		httpapi.Query(httpapi.Action{
			Name: "projects.sync.get", Method: http.MethodGet, Path: ws + "/projects/{projectId}/sync", Permission: "workspace:read",
			ReadOnly: true, ReadModel: read, OutputSchema: syncOut,
			Summary: "What a desktop client needs to bring a project up to date: the project, its scenes, latest composition " +
				"version and counts",
			InputSchema: httpapi.Object([]string{"workspaceSlug", "projectId"}, map[string]string{"workspaceSlug": slugSchema, "projectId": idSchema}),
		}, d.sync),
		httpapi.Query(httpapi.Action{
			Name: "projects.list", Method: http.MethodGet, Path: ws + "/projects", Permission: "workspace:read", ReadOnly: true,
			ReadModel: read, OutputSchema: projectPageOut,
			Summary: "The workspace's projects, newest first, a page at a time (nextCursor)",
			InputSchema: httpapi.Object([]string{"workspaceSlug"}, map[string]string{"workspaceSlug": slugSchema, "limit": limitSchema,
				"cursor": cursorSchema}),
		}, d.projects),
		httpapi.Query(httpapi.Action{
			Name: "projects.planning.get", Method: http.MethodGet, Path: ws + "/projects/{projectId}/planning", Permission: "workspace:read",
			ReadOnly: true, ReadModel: read, OutputSchema: planningOut,
			Summary:     "The project's creative plan: its status (none, generating, ready, failed), plan id, scenes and latest planning request",
			InputSchema: httpapi.Object([]string{"workspaceSlug", "projectId"}, map[string]string{"workspaceSlug": slugSchema, "projectId": idSchema}),
		}, d.planning),
		httpapi.CommandAs(httpapi.Action{
			Name: "projects.planning.generate", Method: http.MethodPost, Path: ws + "/projects/{projectId}/planning/generate",
			Permission: "generation:write", SuccessStatus: http.StatusAccepted, ReadModel: read, OutputSchema: generationOut,
			Summary: "Queue a creative plan from the project's brief (sceneCount scenes, 5 by default); counted against the monthly " +
				"generation quota. The plan is ready for review once persisted (studio.plan.ready)",
			InputSchema: httpapi.Object([]string{"workspaceSlug", "projectId"}, map[string]string{"workspaceSlug": slugSchema,
				"projectId": idSchema, "sceneCount": sceneCountSchema, "provider": genProviderEnum, "fallbackProvider": genProviderNull,
				"gatewayProviderOverride": overrideNull, "gatewayModelOverride": modelNull}),
		}, c.GeneratePlan),
	}
}

// generationMembers adds seed 002's generation request members to schema members.
func generationMembers(m map[string]string) map[string]string {
	for k, v := range map[string]string{"sceneIds": sceneIDsSchema, "provider": genProviderEnum, "fallbackProvider": genProviderNull,
		"candidateCount": candidateSchema, "sourceAssetId": refNullable, "outputKind": outputKindSchema, "videoDurationSeconds": videoSecondsNull,
		"gatewayProviderOverride": overrideNull, "gatewayModelOverride": modelNull, "assetId": refNullable} {
		m[k] = v
	}
	return m
}
