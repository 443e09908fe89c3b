package identity

import (
	"context"
	"net/http"

	identitycmd "github.com/platform/backend/commands/identity"
	domain "github.com/platform/backend/domain/identity"
	"github.com/platform/backend/domain/principal"
	"github.com/platform/backend/domain/text"
	httpapi "github.com/platform/backend/http"
)

// workspaceSlugSchema is a new workspace slug (the organization slug's
// rule); a slug naming an existing workspace in a path is any identifier (an
// unknown one is 404).
var workspaceSlugSchema = httpapi.StringSchema(3, 48, `^[a-z0-9]+(-[a-z0-9]+)*$`, nil)

// workspaceNameSchema is a workspace's name: one line, not blank (trimmed).
var workspaceNameSchema = httpapi.StringSchema(1, text.MaxTitle, text.NonBlankLinePattern, nil)

// WorkspacesPart is seed 000's app_platform_auth.workspaces.list, create,
// rename and default.set: the caller's organization's workspaces, the
// resources API keys bind (resource type workspace). Deleting one is the
// studio's workspaces.delete, which knows whether it is empty.
func WorkspacesPart(a *identitycmd.Access) Part {
	return Part{Actions: []httpapi.Action{
		httpapi.Query(httpapi.Action{
			Name: "app_platform_auth.workspaces.list", Method: http.MethodGet, Path: "/api/workspaces", Permission: "organizations:read",
			ReadOnly: true, Summary: "The caller's organization's workspaces in creation order, the default one marked",
		}, func(ctx context.Context, p principal.Principal, _ httpapi.NoInput) (domain.WorkspaceList, error) {
			return a.ListWorkspaces(ctx, p)
		}),
		httpapi.Command(httpapi.Action{
			Name: "app_platform_auth.workspaces.create", Method: http.MethodPost, Path: "/api/workspaces", Permission: "organizations:manage",
			SuccessStatus: http.StatusCreated,
			Summary:       "Add a workspace; its slug is unique in the organization (409 workspace_slug_taken), at most 100 workspaces",
			InputSchema: httpapi.Object([]string{"slug", "name"}, map[string]string{
				"slug": workspaceSlugSchema, "name": workspaceNameSchema}),
		}, a.CreateWorkspace),
		httpapi.Command(httpapi.Action{
			Name: "app_platform_auth.workspaces.rename", Method: http.MethodPatch, Path: "/api/workspaces/{workspaceSlug}",
			Permission: "organizations:manage", Summary: "Rename a workspace: a new name, a new slug, or both",
			InputSchema: httpapi.RequireAnyOf(httpapi.Object([]string{"workspaceSlug"}, map[string]string{
				"workspaceSlug": httpapi.NonEmptyID, "slug": workspaceSlugSchema, "name": workspaceNameSchema}), "slug", "name"),
		}, a.RenameWorkspace),
		httpapi.Command(httpapi.Action{
			Name: "app_platform_auth.workspaces.default.set", Method: http.MethodPut, Path: "/api/workspaces/{workspaceSlug}/default",
			Permission: "organizations:manage", Summary: "Make a workspace the organization's default (the default one cannot be deleted)",
			InputSchema: httpapi.Object([]string{"workspaceSlug"}, map[string]string{"workspaceSlug": httpapi.NonEmptyID}),
		}, a.SetDefaultWorkspace),
	}}
}
