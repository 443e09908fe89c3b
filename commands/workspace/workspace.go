// Package workspace is how a context enters one of identity's workspaces on
// a caller's behalf: the organization's workspaces (Directory, answered by
// identity's write side), a slug resolved and checked against the caller's
// bindings and permissions (Enter), the workspaces a credential may enter
// (Bound), and seed 000's bootstrap answer built from them. The studio and
// the design service share it; it imports no context.
package workspace

import (
	"context"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/principal"
)

// Workspace is an identity workspace as a context sees it.
type Workspace struct {
	ID, Slug, Name string
	Default        bool
}

// Directory answers a context's questions about an organization's
// workspaces, from identity's write side (a workspace created or renamed a
// moment ago is seen at once).
type Directory interface {
	Workspaces(ctx context.Context, organizationID string) ([]Workspace, error)
}

// ErrBinding is a credential bound to other workspaces.
var ErrBinding = errs.PermissionDenied("the credential is not bound to this workspace")

// Enter resolves a workspace slug of the caller's organization and checks
// the caller may act there with permission (a full permission string): an
// unknown slug (or another organization's) is 404; a key bound to other
// workspaces, or not allowed the permission's scope in this one, is 403
// permission_denied.
func Enter(ctx context.Context, dir Directory, p principal.Principal, slug, permission string) (Workspace, error) {
	all, err := dir.Workspaces(ctx, p.OrganizationID)
	if err != nil {
		return Workspace{}, err
	}
	for _, ws := range all {
		if ws.Slug == slug {
			if !p.BoundTo(ws.ID) {
				return Workspace{}, ErrBinding
			}
			if !p.AllowsIn(ws.ID, permission) {
				return Workspace{}, errs.PermissionDenied("the credential lacks permission " + permission + " in this workspace")
			}
			return ws, nil
		}
	}
	return Workspace{}, errs.NotFound("workspace")
}

// Bound lists the organization's workspaces the caller is bound to.
func Bound(ctx context.Context, dir Directory, p principal.Principal) ([]Workspace, error) {
	all, err := dir.Workspaces(ctx, p.OrganizationID)
	if err != nil {
		return nil, err
	}
	out := all[:0:0]
	for _, ws := range all {
		if p.BoundTo(ws.ID) {
			out = append(out, ws)
		}
	}
	return out, nil
}

// View is a workspace as answers show it.
type View struct {
	WorkspaceID string `json:"workspaceId"`
	Slug        string `json:"slug"`
	Name        string `json:"name"`
	Default     bool   `json:"default"`
}

// Views are workspaces as answers show them.
func Views(all []Workspace) []View {
	out := make([]View, len(all))
	for i, w := range all {
		out[i] = View{WorkspaceID: w.ID, Slug: w.Slug, Name: w.Name, Default: w.Default}
	}
	return out
}

// Bootstrap is seed 000's bootstrap answer: user and organization only.
type Bootstrap struct {
	User         BootstrapUser         `json:"user"`
	Organization BootstrapOrganization `json:"organization"`
}

// BootstrapUser is who the credential speaks for.
type BootstrapUser struct {
	PrincipalID   string  `json:"principalId"`
	PrincipalType string  `json:"principalType"`
	UserID        *string `json:"userId"`
	Role          string  `json:"role"`
}

// BootstrapOrganization is the organization with the workspaces this
// credential may enter (a workspace id is valid within this credential's
// context only, seed 000) and the identity actions that manage them.
type BootstrapOrganization struct {
	OrganizationID   string   `json:"organizationId"`
	Workspaces       []View   `json:"workspaces"`
	DefaultWorkspace *string  `json:"defaultWorkspace"`
	SuggestedActions []string `json:"suggestedActions"`
}

// SuggestedActions are seed 000's follow-up identity actions.
var SuggestedActions = []string{"app_platform_auth.workspaces.list", "app_platform_auth.workspaces.create",
	"app_platform_auth.workspaces.rename", "app_platform_auth.workspaces.default.set"}

// BootstrapOf is the caller's bootstrap: the workspaces it may enter, the
// default one's slug when it is among them.
func BootstrapOf(ctx context.Context, dir Directory, p principal.Principal) (Bootstrap, error) {
	all, err := Bound(ctx, dir, p)
	if err != nil {
		return Bootstrap{}, err
	}
	out := Bootstrap{User: BootstrapUser{PrincipalID: p.ID, PrincipalType: p.Type, Role: p.Role},
		Organization: BootstrapOrganization{OrganizationID: p.OrganizationID, Workspaces: Views(all), SuggestedActions: SuggestedActions}}
	if p.UserID != "" {
		out.User.UserID = &p.UserID
	}
	for _, w := range all {
		if w.Default {
			out.Organization.DefaultWorkspace = &w.Slug
		}
	}
	return out, nil
}
