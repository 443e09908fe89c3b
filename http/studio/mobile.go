package studio

import (
	"context"
	"net/http"

	studiocmd "github.com/platform/backend/commands/studio"
	"github.com/platform/backend/domain/errs"
	domain "github.com/platform/backend/domain/studio"
	httpapi "github.com/platform/backend/http"
	studioview "github.com/platform/backend/projections/studio"
)

// The mobile experience contract (seed 002, version 2026-07-03): three
// routes in the caller's organization (its context is required: a
// credential without an organization is refused), read through an offline
// cache: answers may be kept privately and served stale while the device
// is offline or the service fails (stale-if-error), revalidated otherwise;
// the contract's fallback path is /app/projects.
const (
	MobileContractVersion = "2026-07-03"
	MobileFallbackPath    = "/app/projects"
	// mobileCache: private (per credential), revalidate when online, a
	// week of stale-if-error for the offline read-through.
	mobileCache = "private, max-age=0, must-revalidate, stale-if-error=604800"
)

func mobileHeaders() http.Header {
	return http.Header{"Cache-Control": {mobileCache}, "Vary": {"Authorization, X-Api-Key"},
		"X-Platform-Offline-Policy": {"read-through"}, "X-Platform-Fallback-Path": {MobileFallbackPath},
		"X-Platform-Contract-Version": {MobileContractVersion}}
}

func (d Deps) mobileActions(read string) []httpapi.Action {
	project := httpapi.Object([]string{"projectId"}, map[string]string{"projectId": idSchema})
	return []httpapi.Action{
		httpapi.Decoded(httpapi.Action{Name: "app.projects.list", Method: http.MethodGet, Path: "/app/projects", Permission: "projects:read",
			ReadOnly: true, ReadModel: read, OutputSchema: mobileProjectsOut,
			Summary: "Mobile: the projects of a workspace of the caller's organization (the default one unless workspaceSlug), " +
				"newest first; offline read-through cache headers",
			InputSchema: httpapi.Object(nil, map[string]string{"workspaceSlug": slugSchema, "limit": limitSchema, "cursor": cursorSchema}),
		}, d.mobileProjects),
		httpapi.Decoded(httpapi.Action{Name: "app.projects.brief.get", Method: http.MethodGet, Path: "/app/projects/{projectId}/brief",
			Permission: "projects:read", ReadOnly: true, ReadModel: read, OutputSchema: mobileBriefOut,
			Summary: "Mobile: a project's brief and scenes (fallback /app/projects)", InputSchema: project,
		}, d.mobileBrief),
		httpapi.Decoded(httpapi.Action{Name: "app.projects.review.get", Method: http.MethodGet, Path: "/app/projects/{projectId}/review",
			Permission: "projects:read", ReadOnly: true, ReadModel: read, OutputSchema: mobileReviewOut,
			Summary: "Mobile: what a reviewer needs: the project, its latest composition version, approval requests and renders " +
				"(fallback /app/projects)", InputSchema: project,
		}, d.mobileReview),
	}
}

// MobileProjectsQuery is app.projects.list's input.
type MobileProjectsQuery struct {
	WorkspaceSlug string `json:"workspaceSlug"`
	Limit         int    `json:"limit"`
	Cursor        string `json:"cursor"`
}

// MobileProjects is app.projects.list's answer.
type MobileProjects struct {
	Workspace  studiocmd.WorkspaceView `json:"workspace"`
	Projects   []domain.Project        `json:"projects"`
	NextCursor *string                 `json:"nextCursor"`
}

// MobileProjectQuery names a project of the caller's organization.
type MobileProjectQuery struct {
	ProjectID string `json:"projectId"`
}

// MobileBrief is app.projects.brief.get's answer.
type MobileBrief struct {
	Project domain.Project `json:"project"`
	Scenes  []domain.Scene `json:"scenes"`
}

// MobileReview is app.projects.review.get's answer.
type MobileReview struct {
	Project           domain.Project      `json:"project"`
	LatestComposition *domain.Composition `json:"latestComposition"`
	Approvals         []domain.Approval   `json:"approvals"`
	RenderJobs        []domain.RenderJob  `json:"renderJobs"`
}

// organizationContext: the mobile contract requires one.
func organizationContext(c *httpapi.Call) error {
	if c.Principal.OrganizationID == "" {
		return errs.PermissionDenied("the mobile routes need an organization context")
	}
	return nil
}

func (d Deps) mobileProjects(ctx context.Context, c *httpapi.Call, in MobileProjectsQuery) (httpapi.Reply, error) {
	if err := organizationContext(c); err != nil {
		return httpapi.Reply{}, err
	}
	slug := in.WorkspaceSlug
	if slug == "" {
		all, err := d.Commands.Workspaces(ctx, c.Principal)
		if err != nil {
			return httpapi.Reply{}, err
		}
		for _, w := range all {
			if w.Default || slug == "" {
				slug = w.Slug
			}
		}
	}
	s, ws, err := d.scope(ctx, c.Principal, slug, studiocmd.PermProjectsRead)
	if err != nil {
		return httpapi.Reply{}, err
	}
	page, err := d.Queries.Projects(ctx, s, studioview.Page{Limit: in.Limit, Cursor: in.Cursor})
	if err != nil {
		return httpapi.Reply{}, err
	}
	return httpapi.Reply{Body: MobileProjects{Workspace: studiocmd.Views([]studiocmd.Workspace{ws})[0], Projects: page.Projects,
		NextCursor: page.NextCursor}, Header: mobileHeaders()}, nil
}

// mobileProject finds a project of the caller's organization that the
// caller may read in its workspace.
func (d Deps) mobileProject(ctx context.Context, c *httpapi.Call, id string) (domain.Project, studioview.Scope, error) {
	if err := organizationContext(c); err != nil {
		return domain.Project{}, studioview.Scope{}, err
	}
	pr, err := d.Queries.ProjectOf(ctx, c.Principal.OrganizationID, id)
	if err != nil {
		return domain.Project{}, studioview.Scope{}, err
	}
	if !c.Principal.BoundTo(pr.WorkspaceID) {
		return domain.Project{}, studioview.Scope{}, errs.PermissionDenied("the credential is not bound to this project's workspace")
	}
	if !c.Principal.AllowsIn(pr.WorkspaceID, studiocmd.PermProjectsRead) {
		return domain.Project{}, studioview.Scope{}, errs.PermissionDenied("the credential lacks permission " + studiocmd.PermProjectsRead + " in this workspace")
	}
	return pr, studioview.Scope{Organization: c.Principal.OrganizationID, Workspace: pr.WorkspaceID}, nil
}

func (d Deps) mobileBrief(ctx context.Context, c *httpapi.Call, in MobileProjectQuery) (httpapi.Reply, error) {
	pr, s, err := d.mobileProject(ctx, c, in.ProjectID)
	if err != nil {
		return httpapi.Reply{}, err
	}
	scenes, err := d.Queries.Scenes(ctx, s, pr.ProjectID)
	if err != nil {
		return httpapi.Reply{}, err
	}
	return httpapi.Reply{Body: MobileBrief{Project: pr, Scenes: scenes}, Header: mobileHeaders()}, nil
}

func (d Deps) mobileReview(ctx context.Context, c *httpapi.Call, in MobileProjectQuery) (httpapi.Reply, error) {
	pr, s, err := d.mobileProject(ctx, c, in.ProjectID)
	if err != nil {
		return httpapi.Reply{}, err
	}
	out := MobileReview{Project: pr}
	comps, err := d.Queries.Compositions(ctx, s, pr.ProjectID)
	if err != nil {
		return httpapi.Reply{}, err
	}
	if len(comps) > 0 {
		out.LatestComposition = &comps[0]
	}
	if out.Approvals, err = d.Queries.Approvals(ctx, s, pr.ProjectID); err != nil {
		return httpapi.Reply{}, err
	}
	if out.RenderJobs, err = d.Queries.RenderJobs(ctx, s, pr.ProjectID, ""); err != nil {
		return httpapi.Reply{}, err
	}
	return httpapi.Reply{Body: out, Header: mobileHeaders()}, nil
}
