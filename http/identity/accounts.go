package identity

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/platform/backend/commands"
	identitycmd "github.com/platform/backend/commands/identity"
	"github.com/platform/backend/domain/errs"
	domain "github.com/platform/backend/domain/identity"
	"github.com/platform/backend/domain/text"
	httpapi "github.com/platform/backend/http"
	identityview "github.com/platform/backend/projections/identity"
)

const (
	uuidString   = `{"type":"string","format":"uuid"}`
	roleEnum     = `{"type":"string","enum":["owner","super_admin","admin","member","guest"]}`
	platformEnum = `{"type":"string","enum":["","platform_super_admin","platform_admin"]}`
	// confirmTrue: seed 001's permanent deletions need a confirmation given
	// in the request itself, not only by the client's prompt.
	confirmTrue = `{"type":"boolean","const":true,"description":"must be true: the deletion is irreversible"}`
)

// slugSchema is an organization slug: the platform's reserved words are
// refused as the domain refuses them (422 at the member).
var slugSchema = `{"type":"string","pattern":"^[a-z0-9]+(-[a-z0-9]+)*$","minLength":3,"maxLength":48,"not":{"enum":` +
	string(must(json.Marshal(domain.ReservedSlugs))) + `}}`

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// accountActions: organizations, users, memberships, lifecycle, exports,
// slug availability and privacy maintenance.
func accountActions(d AccountsDeps) Part {
	cmds := d.Commands
	orgPath := map[string]string{"orgId": uuidString}
	userPath := map[string]string{"userId": uuidString}
	return Part{Actions: []httpapi.Action{
		httpapi.CommandAs(httpapi.Action{
			Name: "app_platform_auth.organizations.create", Method: http.MethodPost, Path: "/api/organizations",
			AuthorizationMode: httpapi.AuthRuntime, SuccessStatus: http.StatusCreated,
			Summary: "Create an organization; the signed-in user becomes its owner",
			InputSchema: httpapi.Object([]string{"name", "slug"}, map[string]string{
				"name": httpapi.LineSchema(1, text.MaxTitle), "slug": slugSchema, "developerWorkspace": `{"type":"boolean"}`}),
		}, d.createOrganization),
		httpapi.Query(httpapi.Action{
			Name: "app_platform_auth.organizations.get", Method: http.MethodGet, Path: "/api/organizations/{orgId}", Permission: "organizations:read",
			ReadOnly: true, ReadModel: identityview.Name, Summary: "One organization (404 for another tenant's or a permanently deleted one)",
			InputSchema: httpapi.Object([]string{"orgId"}, orgPath),
		}, d.organization),
		httpapi.Query(httpapi.Action{
			Name: "app_platform_auth.organizations.export", Method: http.MethodGet, Path: "/api/organizations/{orgId}/export", Permission: "organizations:read",
			ReadOnly: true, ReadModel: identityview.Name, Summary: "Portable organization record with its members; no secret of any kind",
			InputSchema: httpapi.Object([]string{"orgId"}, orgPath),
		}, d.exportOrganization),
		httpapi.Query(httpapi.Action{
			Name: "app_platform_auth.organizations.members.list", Method: http.MethodGet, Path: "/api/organizations/{orgId}/members", Permission: "users:read",
			ReadOnly: true, ReadModel: identityview.Name, Summary: "The organization's members and roles",
			InputSchema: httpapi.Object([]string{"orgId"}, orgPath),
		}, d.members),
		httpapi.CommandAs(httpapi.Action{
			Name: "app_platform_auth.organizations.members.update", Method: http.MethodPut, Path: "/api/organizations/{orgId}/members/{userId}",
			Permission: "users:manage", Summary: "Change a member's role (role ladder; platform roles only in the administration organization); /validate sees it at once",
			InputSchema: httpapi.Object([]string{"orgId", "userId", "role"}, map[string]string{"orgId": uuidString, "userId": uuidString,
				"role": roleEnum, "platformRole": platformEnum}),
		}, d.changeMemberRole),
		httpapi.CommandAs(httpapi.Action{
			Name: "app_platform_auth.organizations.members.remove", Method: http.MethodDelete, Path: "/api/organizations/{orgId}/members/{userId}",
			Permission: "users:manage", Summary: "End a membership (an organization keeps at least one owner)",
			InputSchema: httpapi.Object([]string{"orgId", "userId"}, map[string]string{"orgId": uuidString, "userId": uuidString}),
		}, d.removeMember),
		orgLifecycleAction("app_platform_auth.organizations.delete", http.MethodDelete, "/api/organizations/{orgId}", "organizations:delete", false,
			"Soft-delete the organization: a recoverable tombstone (purged after 30 days)", cmds.DeleteOrganization),
		orgLifecycleAction("app_platform_auth.organizations.restore", http.MethodPost, "/api/organizations/{orgId}/restore", "organizations:restore", false,
			"Restore a soft-deleted organization", cmds.RestoreOrganization),
		orgLifecycleAction("app_platform_auth.organizations.delete_permanently", http.MethodDelete, "/api/organizations/{orgId}/permanent", "organizations:delete", true,
			"Permanently delete a soft-deleted organization (never the platform administration organization); get and export then answer 404",
			cmds.DeleteOrganizationPermanently),
		httpapi.Query(httpapi.Action{
			Name: "app_platform_auth.organizations.slug_availability", Method: http.MethodGet, Path: "/api/internal/organizations/slug-availability",
			ReadOnly: true, AuthorizationMode: httpapi.AuthRuntime,
			Summary: "Whether a slug can be used: reason empty, invalid, reserved, taken or available (checked in that order); never an error for taken or invalid",
			// Any text up to a URL's length is classified (reason invalid), never refused.
			InputSchema: httpapi.Object(nil, map[string]string{"slug": httpapi.PatternSchema(text.MaxURL, "")}),
		}, d.slugAvailability),
		httpapi.Decoded(httpapi.Action{
			Name: "app_platform_auth.users.create", Method: http.MethodPost, Path: "/api/users", Permission: "users:manage",
			SuccessStatus: http.StatusAccepted,
			Summary: "Add a person to the caller's organization by email with a role (not above the caller's): an address without " +
				"an account becomes an account of the organization (name, password as given); one whose account belongs elsewhere " +
				"is invited by email. Always 202 with the same body, which names no user, so it never tells whether the address " +
				"has an account; a member or a pending invitation here is 409 email_taken",
			InputSchema: httpapi.Object([]string{"email"}, map[string]string{
				"email": httpapi.EmailSchema(), "name": httpapi.LineSchema(0, text.MaxTitle),
				"password": `{"type":"string","minLength":10,"maxLength":256}`, "role": roleEnum}),
		}, func(ctx context.Context, c *httpapi.Call, in identitycmd.CreateUser) (httpapi.Reply, error) {
			actor, err := cmds.ActorIn(ctx, c.Principal, c.Principal.OrganizationID)
			if err != nil {
				return httpapi.Reply{}, err
			}
			// No position: it would name the stream written (the
			// organization's or its invitations'), telling the two apart.
			res, err := cmds.AddUser(ctx, c.Meta, actor, in)
			return httpapi.Reply{Body: res.Value, Replayed: res.Replayed}, err
		}),
		httpapi.Query(httpapi.Action{
			Name: "app_platform_auth.users.get", Method: http.MethodGet, Path: "/api/users/{userId}", Permission: "users:read",
			ReadOnly: true, ReadModel: identityview.Name, Summary: "One user of the caller's organization (404 otherwise)",
			InputSchema: httpapi.Object([]string{"userId"}, userPath),
		}, d.user),
		httpapi.Query(httpapi.Action{
			Name: "app_platform_auth.users.export", Method: http.MethodGet, Path: "/api/users/{userId}/export", Permission: "users:read",
			ReadOnly: true, ReadModel: identityview.Name,
			Summary:     "Portable user record: profile, memberships, sessions; no secret of any kind. The user itself, an admin (users:manage) of its home organization, or a platform role",
			InputSchema: httpapi.Object([]string{"userId"}, userPath),
		}, d.exportUser),
		userLifecycleAction("app_platform_auth.users.delete", http.MethodDelete, "/api/users/{userId}", false,
			"Soft-delete a user (the user itself or an admin of its home organization): sign-in and sessions stop at once; recoverable for 30 days",
			cmds.DeleteUser),
		userLifecycleAction("app_platform_auth.users.restore", http.MethodPost, "/api/users/{userId}/restore", false,
			"Restore a soft-deleted user", cmds.RestoreUser),
		userLifecycleAction("app_platform_auth.users.delete_permanently", http.MethodDelete, "/api/users/{userId}/permanent", true,
			"Permanently delete a user: personal data is crypto-shredded (stays erased after any replay); get and export then answer 404",
			cmds.DeleteUserPermanently),
		httpapi.Perform(httpapi.Action{
			Name: "app_platform_auth.privacy.maintenance.run", Method: http.MethodPost, Path: "/api/internal/privacy-maintenance",
			Permission: "privacy:maintain",
			Summary:    "Run privacy maintenance now: purge tombstones older than 30 days and audit records older than 365 days, in batches of 100",
		}, d.purgeExpired),
	}}
}

type orgLifecycleFunc func(context.Context, commands.Meta, string) (commands.Result[identitycmd.OrganizationLifecycle], error)

// orgLifecycleAction: deleting and restoring the organization stays the
// owners' (or the platform's), whatever a customized bundle grants; a
// permanent deletion is confirmed in the request.
func orgLifecycleAction(name, method, path, permission string, permanent bool, summary string, run orgLifecycleFunc) httpapi.Action {
	a := httpapi.Action{Name: name, Method: method, Path: path, Permission: permission, Destructive: permanent, Summary: summary,
		InputSchema: httpapi.Object([]string{"orgId"}, map[string]string{"orgId": uuidString})}
	act := func(ctx context.Context, m commands.Meta, p domain.Principal, in OrganizationRef) (commands.Result[identitycmd.OrganizationLifecycle], error) {
		if err := identitycmd.AuthorizeOrganization(p, in.OrganizationID); err != nil {
			return commands.Result[identitycmd.OrganizationLifecycle]{}, err
		}
		if !p.PlatformWide() && domain.RoleOrDefault(p.Role) != domain.RoleOwner {
			return commands.Result[identitycmd.OrganizationLifecycle]{}, errs.PermissionDenied("only an owner deletes or restores the organization")
		}
		return run(ctx, m, in.OrganizationID)
	}
	if !permanent {
		return httpapi.CommandAs(a, act)
	}
	a.InputSchema = httpapi.Object([]string{"orgId", "confirm"}, map[string]string{"orgId": uuidString, "confirm": confirmTrue})
	return httpapi.CommandAs(a, func(ctx context.Context, m commands.Meta, p domain.Principal, in ConfirmedOrganization) (commands.Result[identitycmd.OrganizationLifecycle], error) {
		return act(ctx, m, p, in.OrganizationRef)
	})
}

type userLifecycleFunc func(context.Context, commands.Meta, domain.Principal, string) (commands.Result[identitycmd.UserLifecycle], error)

// permUsersManage is checked at run time where a user may act on itself.
const permUsersManage = AppID + ".users:manage"

// userLifecycleAction: users may delete (and restore) their own account;
// anyone else needs users:manage, and the command checks the ladder.
func userLifecycleAction(name, method, path string, permanent bool, summary string, run userLifecycleFunc) httpapi.Action {
	a := httpapi.Action{Name: name, Method: method, Path: path, AuthorizationMode: httpapi.AuthRuntime, Destructive: permanent,
		Summary:     summary + " (permission users:manage unless it is the caller's own account)",
		InputSchema: httpapi.Object([]string{"userId"}, map[string]string{"userId": uuidString})}
	act := func(ctx context.Context, m commands.Meta, p domain.Principal, in UserRef) (commands.Result[identitycmd.UserLifecycle], error) {
		if p.UserID != in.UserID && !p.Allows(permUsersManage) {
			return commands.Result[identitycmd.UserLifecycle]{}, errs.PermissionDenied("the credential lacks permission " + permUsersManage)
		}
		return run(ctx, m, p, in.UserID)
	}
	if !permanent {
		return httpapi.CommandAs(a, act)
	}
	a.InputSchema = httpapi.Object([]string{"userId", "confirm"}, map[string]string{"userId": uuidString, "confirm": confirmTrue})
	return httpapi.CommandAs(a, func(ctx context.Context, m commands.Meta, p domain.Principal, in ConfirmedUser) (commands.Result[identitycmd.UserLifecycle], error) {
		return act(ctx, m, p, in.UserRef)
	})
}
