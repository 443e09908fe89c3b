package studio

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"time"

	studiocmd "github.com/platform/backend/commands/studio"
	"github.com/platform/backend/commands/workspace"
	"github.com/platform/backend/domain/principal"
	httpapi "github.com/platform/backend/http"
	studioview "github.com/platform/backend/projections/studio"
)

// platformActions are the routes every platform service serves in the
// seeds' shape: who-am-I and seed 000's bootstrap (the widget is the
// platform's contract: Widget).
func (d Deps) platformActions() []httpapi.Action {
	return []httpapi.Action{
		httpapi.Query(httpapi.Action{
			Name: "whoami.get", Method: http.MethodGet, Path: "/api/whoami", ReadOnly: true, AuthorizationMode: httpapi.AuthRuntime,
			OutputSchema: whoamiOut,
			Summary: "Who the credential speaks for: principal, organization, the workspaces it may enter and its studio permissions " +
				"(any valid credential)",
		}, d.whoami),
		httpapi.Query(httpapi.Action{
			Name: "workspace.bootstrap", Method: http.MethodGet, Path: "/api/bootstrap", Permission: "workspace:read", ReadOnly: true,
			OutputSchema: bootstrapOut,
			Summary: "Seed 000's bootstrap: the user and the organization with its workspaces (valid only for this credential), " +
				"and the identity actions that manage them",
		}, d.bootstrap),
	}
}

// WhoAmI is whoami.get's answer.
type WhoAmI struct {
	PrincipalID    string                    `json:"principalId"`
	PrincipalType  string                    `json:"principalType"`
	OrganizationID string                    `json:"organizationId"`
	UserID         *string                   `json:"userId"`
	Role           string                    `json:"role"`
	Workspaces     []studiocmd.WorkspaceView `json:"workspaces"`
	// BoundToWorkspaces: the credential is a key bound to the listed
	// workspaces only.
	BoundToWorkspaces bool     `json:"boundToWorkspaces"`
	Permissions       []string `json:"permissions"`
}

func (d Deps) whoami(ctx context.Context, p principal.Principal, _ httpapi.NoInput) (WhoAmI, error) {
	all, err := d.Commands.Workspaces(ctx, p)
	if err != nil {
		return WhoAmI{}, err
	}
	out := WhoAmI{PrincipalID: p.ID, PrincipalType: p.Type, OrganizationID: p.OrganizationID, Role: p.Role,
		Workspaces: studiocmd.Views(all), BoundToWorkspaces: len(p.Workspaces) > 0, Permissions: []string{}}
	if p.UserID != "" {
		out.UserID = &p.UserID
	}
	for _, perm := range p.Permissions {
		if strings.HasPrefix(perm, studiocmd.AppID+".") || strings.HasPrefix(perm, "*.") {
			out.Permissions = append(out.Permissions, perm)
		}
	}
	slices.Sort(out.Permissions)
	return out, nil
}

// Bootstrap is seed 000's bootstrap answer (commands/workspace).
type Bootstrap = workspace.Bootstrap

// SuggestedActions are seed 000's follow-up identity actions.
var SuggestedActions = workspace.SuggestedActions

func (d Deps) bootstrap(ctx context.Context, p principal.Principal, _ httpapi.NoInput) (Bootstrap, error) {
	return workspace.BootstrapOf(ctx, d.Commands.Directory(), p)
}

// WidgetFigures are the studio's tile: projects, approvals waiting for a
// reviewer and renders queued or rendering, in the workspaces the caller may
// enter.
type WidgetFigures struct {
	Projects         int `json:"projects"`
	PendingApprovals int `json:"pendingApprovals"`
	ActiveRenders    int `json:"activeRenders"`
}

// Widget is the studio's dashboard tile (the platform's widget contract,
// bound by the kernel as widget.get): workspace:read, seed 000's widget
// permission of a workspace service.
func Widget(d Deps) *httpapi.Widget {
	return httpapi.NewWidget(httpapi.Widget{Title: "Studio", Permission: "workspace:read", ReadModel: studioview.Name,
		Summary: "The studio's summary for the dashboard grid: projects, approvals waiting, renders in progress"},
		func(ctx context.Context, p principal.Principal) (WidgetFigures, error) {
			var bound []string // nil: every workspace
			for _, b := range p.Workspaces {
				bound = append(bound, b.WorkspaceID)
			}
			projects, pending, rendering, err := d.Queries.OrganizationCounts(ctx, p.OrganizationID, bound)
			return WidgetFigures{Projects: projects, PendingApprovals: pending, ActiveRenders: rendering}, err
		})
}

// actionItemsLimit bounds the approvals the action queue reads.
const actionItemsLimit = 100

// ActionItems are the studio's part of the dashboard's action queue: the
// approval requests waiting for a decision that the caller may decide
// (the reviewer they name, or an admin of their workspace), in the
// workspaces the caller may enter. approvals:write is the permission that
// decides them.
func ActionItems(d Deps) *httpapi.ActionItems {
	return httpapi.NewActionItems("approvals:write", func(ctx context.Context, p principal.Principal, _ time.Time) ([]httpapi.ActionItem, error) {
		var bound []string // nil: every workspace
		for _, b := range p.Workspaces {
			bound = append(bound, b.WorkspaceID)
		}
		open, err := d.Queries.OpenApprovals(ctx, p.OrganizationID, bound, actionItemsLimit)
		if err != nil {
			return nil, err
		}
		me := p.Author()
		out := []httpapi.ActionItem{}
		for _, a := range open {
			if a.ReviewerUserID != me && !studiocmd.WorkspaceAdmin(p, a.WorkspaceID) || !p.AllowsIn(a.WorkspaceID, studiocmd.PermApprovalsWrite) {
				continue
			}
			at := a.RequestedAt
			detail := "Approve or reject the project \"" + a.ProjectTitle + "\"."
			if a.Note != nil {
				detail += " " + *a.Note
			}
			out = append(out, httpapi.ActionItem{Kind: "studio.approval.requested", ObjectID: a.ApprovalRequestID,
				Title: "A project awaits approval", Detail: detail, Severity: "warning",
				Path: "/app/projects/" + a.ProjectID + "/review", Resolve: "projects.approvals.approve", At: &at})
		}
		return out, nil
	})
}
