package studio

import (
	"net/http"

	studiocmd "github.com/platform/backend/commands/studio"
	httpapi "github.com/platform/backend/http"
)

// oursActions are the 25 studio actions seed 002 declares without showing
// (docs/decisions.md): what a production team expects beside the table's.
func (d Deps) oursActions(c *studiocmd.Handlers, read string) []httpapi.Action {
	project := map[string]string{"workspaceSlug": slugSchema, "projectId": idSchema}
	with := func(extra map[string]string) map[string]string {
		out := map[string]string{"workspaceSlug": slugSchema, "projectId": idSchema}
		for k, v := range extra {
			out[k] = v
		}
		return out
	}
	pr := []string{"workspaceSlug", "projectId"}
	workspace := map[string]string{"workspaceSlug": slugSchema}
	return []httpapi.Action{
		httpapi.Query(httpapi.Action{Name: "projects.get", Method: http.MethodGet, Path: ws + "/projects/{projectId}", Permission: "workspace:read",
			ReadOnly: true, ReadModel: read, OutputSchema: projectOut, Summary: "A project with its brief and plan state",
			InputSchema: httpapi.Object(pr, project)}, d.project),
		httpapi.CommandAs(httpapi.Action{Name: "projects.update", Method: http.MethodPatch, Path: ws + "/projects/{projectId}",
			Permission: "workspace:write", ReadModel: read, OutputSchema: projectOut,
			Summary: "Change a project's title, objective, template or brand kit (an empty string clears a nullable member)",
			InputSchema: httpapi.RequireAnyOf(httpapi.Object(pr, with(map[string]string{"title": titleSchema, "objective": longNullable,
				"templateId": refNullable, "brandKitId": refNullable})), "title", "objective", "templateId", "brandKitId")}, c.UpdateProject),
		httpapi.CommandAs(httpapi.Action{Name: "projects.delete", Method: http.MethodDelete, Path: ws + "/projects/{projectId}",
			Permission: "workspace:write", Destructive: true, ReadModel: read, OutputSchema: projectOut,
			Summary: "Delete a project from every read (its assets stay in the workspace)", InputSchema: httpapi.Object(pr, project)}, c.DeleteProject),
		httpapi.Query(httpapi.Action{Name: "projects.structured_brief.get", Method: http.MethodGet, Path: ws + "/projects/{projectId}/structured-brief",
			Permission: "workspace:read", ReadOnly: true, ReadModel: read, OutputSchema: briefOut, Summary: "The project's structured brief",
			InputSchema: httpapi.Object(pr, project)}, d.brief),
		httpapi.Query(httpapi.Action{Name: "projects.scenes.list", Method: http.MethodGet, Path: ws + "/projects/{projectId}/scenes",
			Permission: "workspace:read", ReadOnly: true, ReadModel: read, OutputSchema: sceneListOut, Summary: "The project's scenes in order",
			InputSchema: httpapi.Object(pr, project)}, d.scenes),
		httpapi.CommandAs(httpapi.Action{Name: "projects.scenes.create", Method: http.MethodPost, Path: ws + "/projects/{projectId}/scenes",
			Permission: "briefs:write", SuccessStatus: http.StatusCreated, ReadModel: read, OutputSchema: sceneListOut,
			Summary: "Add a scene (at the end, or at position); answers the project's scenes",
			InputSchema: httpapi.Object([]string{"workspaceSlug", "projectId", "title"}, with(map[string]string{"title": titleSchema,
				"description": longNullable, "prompt": promptNullable, "durationMs": durationSchema, "position": positionSchema}))}, c.AddScene),
		httpapi.CommandAs(httpapi.Action{Name: "projects.scenes.update", Method: http.MethodPatch, Path: ws + "/projects/{projectId}/scenes/{sceneId}",
			Permission: "briefs:write", ReadModel: read, OutputSchema: sceneListOut, Summary: "Change or move a scene; answers the project's scenes",
			InputSchema: httpapi.RequireAnyOf(httpapi.Object([]string{"workspaceSlug", "projectId", "sceneId"}, with(map[string]string{
				"sceneId": idSchema, "title": titleSchema, "description": longNullable, "prompt": promptNullable, "durationMs": durationSchema,
				"position": positionSchema})), "title", "description", "prompt", "durationMs", "position")}, c.UpdateScene),
		httpapi.CommandAs(httpapi.Action{Name: "projects.scenes.delete", Method: http.MethodDelete, Path: ws + "/projects/{projectId}/scenes/{sceneId}",
			Permission: "briefs:write", Destructive: true, ReadModel: read, OutputSchema: sceneListOut,
			Summary:     "Remove a scene; the ones after it move up. Answers the project's scenes",
			InputSchema: httpapi.Object([]string{"workspaceSlug", "projectId", "sceneId"}, with(map[string]string{"sceneId": idSchema}))}, c.RemoveScene),
		httpapi.Query(httpapi.Action{Name: "assets.list", Method: http.MethodGet, Path: ws + "/assets", Permission: "workspace:read",
			ReadOnly: true, ReadModel: read, OutputSchema: assetPageOut,
			Summary: "The workspace's assets, newest first (of one project, or of a kind), with signed preview links",
			InputSchema: httpapi.Object([]string{"workspaceSlug"}, map[string]string{"workspaceSlug": slugSchema, "projectId": idSchema,
				"kind": assetKindEnum, "limit": limitSchema, "cursor": cursorSchema})}, d.assets),
		httpapi.Bytes(httpapi.Action{Name: "assets.upload", Method: http.MethodPost, Path: ws + "/assets", Permission: "assets:write",
			SuccessStatus: http.StatusCreated, ReadModel: read, OutputSchema: assetOut,
			Summary: "Upload a file as an asset of the workspace (of a project with projectId): the body is the file, its " +
				"Content-Type the asset's (images, videos, audio, fonts, zip); 413 above the size limit, nothing stored",
			InputSchema: httpapi.Object([]string{"workspaceSlug"}, map[string]string{"workspaceSlug": slugSchema, "projectId": idSchema,
				"filename": httpapi.LineSchema(1, 255)}),
			Body: &httpapi.RawBody{MediaTypes: uploadTypes(), MaxBytes: c.Config().AssetMaxBytes, Schema: assetBodySchema}}, d.upload),
		httpapi.Query(httpapi.Action{Name: "assets.get", Method: http.MethodGet, Path: ws + "/assets/{assetId}", Permission: "workspace:read",
			ReadOnly: true, ReadModel: read, OutputSchema: assetViewOut, Summary: "An asset's metadata with a signed preview link",
			InputSchema: httpapi.Object([]string{"workspaceSlug", "assetId"}, map[string]string{"workspaceSlug": slugSchema, "assetId": idSchema})}, d.asset),
		httpapi.CommandAs(httpapi.Action{Name: "assets.delete", Method: http.MethodDelete, Path: ws + "/assets/{assetId}", Permission: "assets:write",
			Destructive: true, ReadModel: read, OutputSchema: assetOut, Summary: "Delete an asset and its file",
			InputSchema: httpapi.Object([]string{"workspaceSlug", "assetId"}, map[string]string{"workspaceSlug": slugSchema, "assetId": idSchema})}, c.DeleteAsset),
		httpapi.CommandAs(httpapi.Action{Name: "projects.approvals.request", Method: http.MethodPost, Path: ws + "/projects/{projectId}/approvals",
			Permission: "briefs:write", SuccessStatus: http.StatusCreated, ReadModel: read, OutputSchema: approvalOut,
			Summary: "Ask a reviewer (an active member of the organization) to approve the project; one open request at a time " +
				"(409 approval_pending)",
			InputSchema: httpapi.Object([]string{"workspaceSlug", "projectId", "reviewerUserId"}, with(map[string]string{
				"reviewerUserId": idSchema, "note": noteNullable}))}, c.RequestApproval),
		httpapi.Query(httpapi.Action{Name: "projects.approvals.list", Method: http.MethodGet, Path: ws + "/projects/{projectId}/approvals",
			Permission: "workspace:read", ReadOnly: true, ReadModel: read, OutputSchema: approvalsOut,
			Summary: "The project's approval requests, newest first", InputSchema: httpapi.Object(pr, project)}, d.approvals),
		httpapi.CommandAs(httpapi.Action{Name: "projects.approvals.approve", Method: http.MethodPost,
			Path: ws + "/projects/{projectId}/approvals/{approvalRequestId}/approve", Permission: "approvals:write",
			AuthorizationMode: httpapi.AuthRuntime, ReadModel: read, OutputSchema: approvalOut,
			Summary:     "Approve an open request: the reviewer it names or an admin of the workspace (runtime authorization)",
			InputSchema: httpapi.Object([]string{"workspaceSlug", "projectId", "approvalRequestId"}, with(map[string]string{"approvalRequestId": idSchema, "note": noteNullable}))}, c.Approve),
		httpapi.CommandAs(httpapi.Action{Name: "projects.approvals.reject", Method: http.MethodPost,
			Path: ws + "/projects/{projectId}/approvals/{approvalRequestId}/reject", Permission: "approvals:write",
			AuthorizationMode: httpapi.AuthRuntime, ReadModel: read, OutputSchema: approvalOut,
			Summary:     "Reject an open request: the reviewer it names or an admin of the workspace (runtime authorization)",
			InputSchema: httpapi.Object([]string{"workspaceSlug", "projectId", "approvalRequestId"}, with(map[string]string{"approvalRequestId": idSchema, "note": noteNullable}))}, c.Reject),
		httpapi.CommandAs(httpapi.Action{Name: "project_templates.create", Method: http.MethodPost, Path: ws + "/project-templates",
			Permission: "settings:write", SuccessStatus: http.StatusCreated, ReadModel: read, OutputSchema: templateOut,
			Summary: "Add a project template to the workspace; its creator owns it",
			InputSchema: httpapi.Object([]string{"workspaceSlug", "name"}, map[string]string{"workspaceSlug": slugSchema, "name": titleSchema,
				"description": longNullable, "promptDefaults": valuesSchema, "platforms": platformsSchema})}, c.CreateTemplate),
		httpapi.Query(httpapi.Action{Name: "project_templates.list", Method: http.MethodGet, Path: ws + "/project-templates",
			Permission: "workspace:read", ReadOnly: true, ReadModel: read, OutputSchema: templatesOut, Summary: "The workspace's project templates",
			InputSchema: httpapi.Object([]string{"workspaceSlug"}, workspace)}, d.templates),
		httpapi.Query(httpapi.Action{Name: "presets.list", Method: http.MethodGet, Path: ws + "/presets", Permission: "workspace:read",
			ReadOnly: true, ReadModel: read, OutputSchema: presetsOut, Summary: "The workspace's presets",
			InputSchema: httpapi.Object([]string{"workspaceSlug"}, workspace)}, d.presets),
		httpapi.Query(httpapi.Action{Name: "projects.compositions.list", Method: http.MethodGet, Path: ws + "/projects/{projectId}/compositions",
			Permission: "workspace:read", ReadOnly: true, ReadModel: read, OutputSchema: compositionsOut,
			Summary: "The project's composition versions, newest first", InputSchema: httpapi.Object(pr, project)}, d.compositions),
		httpapi.Query(httpapi.Action{Name: "projects.compositions.get", Method: http.MethodGet,
			Path: ws + "/projects/{projectId}/compositions/{compositionVersionId}", Permission: "workspace:read", ReadOnly: true, ReadModel: read,
			OutputSchema: compositionOut, Summary: "One composition version with its snapshot",
			InputSchema: httpapi.Object([]string{"workspaceSlug", "projectId", "compositionVersionId"}, with(map[string]string{"compositionVersionId": idSchema}))}, d.composition),
		httpapi.Query(httpapi.Action{Name: "projects.render_jobs.list", Method: http.MethodGet, Path: ws + "/projects/{projectId}/render-jobs",
			Permission: "exports:read", ReadOnly: true, ReadModel: read, OutputSchema: renderJobsOut,
			Summary:     "The project's render jobs in queue order (priority, then age), of one status when given",
			InputSchema: httpapi.Object(pr, with(map[string]string{"renderStatus": renderStatusEnum}))}, d.renderJobs),
		httpapi.Query(httpapi.Action{Name: "projects.render_jobs.get", Method: http.MethodGet, Path: ws + "/projects/{projectId}/render-jobs/{renderJobId}",
			Permission: "exports:read", ReadOnly: true, ReadModel: read, OutputSchema: renderJobOut, Summary: "One render job",
			InputSchema: httpapi.Object([]string{"workspaceSlug", "projectId", "renderJobId"}, with(map[string]string{"renderJobId": idSchema}))}, d.renderJob),
		httpapi.CommandAs(httpapi.Action{Name: "projects.render_jobs.cancel", Method: http.MethodPost,
			Path: ws + "/projects/{projectId}/render-jobs/{renderJobId}/cancel", Permission: "exports:read", ReadModel: read, OutputSchema: renderJobOut,
			Summary:     "Cancel a queued or rendering job for good (409 invalid_transition once terminal)",
			InputSchema: httpapi.Object([]string{"workspaceSlug", "projectId", "renderJobId"}, with(map[string]string{"renderJobId": idSchema}))}, c.CancelRenderJob),
		httpapi.Query(httpapi.Action{Name: "workspace.quota.get", Method: http.MethodGet, Path: ws + "/quota", Permission: "workspace:read",
			ReadOnly: true, ReadModel: read, OutputSchema: quotaOut,
			Summary:     "This month's counts of the workspace's quota'd actions, their limits and the month's warnings",
			InputSchema: httpapi.Object([]string{"workspaceSlug"}, workspace)}, d.quota),
	}
}
