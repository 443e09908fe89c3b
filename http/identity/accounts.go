package identity

import (
	"context"
	"encoding/json"
	httpapi "github.com/platform/backend/http"
	"net/http"
	"time"

	"github.com/platform/backend/commands"
	identitycmd "github.com/platform/backend/commands/identity"
	"github.com/platform/backend/domain/errs"
	domain "github.com/platform/backend/domain/identity"
	"github.com/platform/backend/domain/text"
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
	cmds, q := d.Commands, d.Accounts
	orgPath := map[string]string{"orgId": uuidString}
	userPath := map[string]string{"userId": uuidString}
	return Part{Actions: []httpapi.Action{
		{
			Name: "app_platform_auth.organizations.create", Method: http.MethodPost, Path: "/api/organizations",
			AuthorizationMode: httpapi.AuthRuntime, SuccessStatus: http.StatusCreated,
			Summary: "Create an organization; the signed-in user becomes its owner",
			InputSchema: httpapi.Object([]string{"name", "slug"}, map[string]string{
				"name": httpapi.LineSchema(1, text.MaxTitle), "slug": slugSchema, "developerWorkspace": `{"type":"boolean"}`}),
			Handle: func(ctx context.Context, c *httpapi.Call) (httpapi.Reply, error) {
				if c.Principal.UserID == "" {
					return httpapi.Reply{}, errs.PermissionDenied("organizations are created by a signed-in user, who becomes the owner")
				}
				var in identitycmd.CreateOrganization
				if err := c.Decode(&in); err != nil {
					return httpapi.Reply{}, err
				}
				in.Owner = c.Principal.UserID
				return httpapi.FromResult(cmds.CreateOrganization(ctx, c.Meta, in))
			},
		},
		{
			Name: "app_platform_auth.organizations.get", Method: http.MethodGet, Path: "/api/organizations/{orgId}", Permission: "organizations:read",
			ReadOnly: true, ReadModel: identityview.Name, Summary: "One organization (404 for another tenant's or a permanently deleted one)",
			InputSchema: httpapi.Object([]string{"orgId"}, orgPath),
			Handle: func(ctx context.Context, c *httpapi.Call) (httpapi.Reply, error) {
				id, err := orgID(c)
				if err != nil {
					return httpapi.Reply{}, err
				}
				o, err := q.Organization(ctx, id)
				return httpapi.OK(o), err
			},
		},
		{
			Name: "app_platform_auth.organizations.export", Method: http.MethodGet, Path: "/api/organizations/{orgId}/export", Permission: "organizations:read",
			ReadOnly: true, ReadModel: identityview.Name, Summary: "Portable organization record with its members; no secret of any kind",
			InputSchema: httpapi.Object([]string{"orgId"}, orgPath),
			Handle: func(ctx context.Context, c *httpapi.Call) (httpapi.Reply, error) {
				id, err := orgID(c)
				if err != nil {
					return httpapi.Reply{}, err
				}
				out, err := q.ExportOrganization(ctx, id, time.Now().UTC())
				return httpapi.OK(out), err
			},
		},
		{
			Name: "app_platform_auth.organizations.members.list", Method: http.MethodGet, Path: "/api/organizations/{orgId}/members", Permission: "users:read",
			ReadOnly: true, ReadModel: identityview.Name, Summary: "The organization's members and roles",
			InputSchema: httpapi.Object([]string{"orgId"}, orgPath),
			Handle: func(ctx context.Context, c *httpapi.Call) (httpapi.Reply, error) {
				id, err := orgID(c)
				if err != nil {
					return httpapi.Reply{}, err
				}
				if _, err := q.Organization(ctx, id); err != nil {
					return httpapi.Reply{}, err
				}
				list, err := q.Members(ctx, id)
				return httpapi.OK(map[string]any{"members": list}), err
			},
		},
		{
			Name: "app_platform_auth.organizations.members.update", Method: http.MethodPut, Path: "/api/organizations/{orgId}/members/{userId}",
			Permission: "users:manage", Summary: "Change a member's role (role ladder; platform roles only in the administration organization); /validate sees it at once",
			InputSchema: httpapi.Object([]string{"orgId", "userId", "role"}, map[string]string{"orgId": uuidString, "userId": uuidString,
				"role": roleEnum, "platformRole": platformEnum}),
			Handle: func(ctx context.Context, c *httpapi.Call) (httpapi.Reply, error) {
				var in identitycmd.SetMember
				if err := c.Decode(&in); err != nil {
					return httpapi.Reply{}, err
				}
				if err := identitycmd.AuthorizeOrganization(c.Principal, in.OrganizationID); err != nil {
					return httpapi.Reply{}, err
				}
				actor, err := cmds.ActorIn(ctx, c.Principal, in.OrganizationID)
				if err != nil {
					return httpapi.Reply{}, err
				}
				return httpapi.FromResult(cmds.ChangeMemberRole(ctx, c.Meta, actor, in))
			},
		},
		{
			Name: "app_platform_auth.organizations.members.remove", Method: http.MethodDelete, Path: "/api/organizations/{orgId}/members/{userId}",
			Permission: "users:manage", Summary: "End a membership (an organization keeps at least one owner)",
			InputSchema: httpapi.Object([]string{"orgId", "userId"}, map[string]string{"orgId": uuidString, "userId": uuidString}),
			Handle: func(ctx context.Context, c *httpapi.Call) (httpapi.Reply, error) {
				var in identitycmd.SetMember
				if err := c.Decode(&in); err != nil {
					return httpapi.Reply{}, err
				}
				if err := identitycmd.AuthorizeOrganization(c.Principal, in.OrganizationID); err != nil {
					return httpapi.Reply{}, err
				}
				actor, err := cmds.ActorIn(ctx, c.Principal, in.OrganizationID)
				if err != nil {
					return httpapi.Reply{}, err
				}
				return httpapi.FromResult(cmds.RemoveMember(ctx, c.Meta, actor, in.OrganizationID, in.UserID))
			},
		},
		orgLifecycleAction("app_platform_auth.organizations.delete", http.MethodDelete, "/api/organizations/{orgId}", "organizations:delete", false,
			"Soft-delete the organization: a recoverable tombstone (purged after 30 days)", cmds.DeleteOrganization),
		orgLifecycleAction("app_platform_auth.organizations.restore", http.MethodPost, "/api/organizations/{orgId}/restore", "organizations:restore", false,
			"Restore a soft-deleted organization", cmds.RestoreOrganization),
		orgLifecycleAction("app_platform_auth.organizations.delete_permanently", http.MethodDelete, "/api/organizations/{orgId}/permanent", "organizations:delete", true,
			"Permanently delete a soft-deleted organization (never the platform administration organization); get and export then answer 404",
			cmds.DeleteOrganizationPermanently),
		{
			Name: "app_platform_auth.organizations.slug_availability", Method: http.MethodGet, Path: "/api/internal/organizations/slug-availability",
			ReadOnly: true, AuthorizationMode: httpapi.AuthRuntime,
			Summary: "Whether a slug can be used: reason empty, invalid, reserved, taken or available (checked in that order); never an error for taken or invalid",
			// Any text up to a URL's length is classified (reason invalid), never refused.
			InputSchema: httpapi.Object(nil, map[string]string{"slug": httpapi.PatternSchema(text.MaxURL, "")}),
			Handle: func(ctx context.Context, c *httpapi.Call) (httpapi.Reply, error) {
				var in struct {
					Slug string `json:"slug"`
				}
				if err := c.Decode(&in); err != nil {
					return httpapi.Reply{}, err
				}
				reason := domain.SlugReason(in.Slug, false)
				if reason == "available" {
					taken, err := slugTaken(ctx, d, in.Slug)
					if err != nil {
						return httpapi.Reply{}, err
					}
					reason = domain.SlugReason(in.Slug, taken)
				}
				return httpapi.OK(map[string]any{"available": reason == "available", "slug": in.Slug, "reason": reason}), nil
			},
		},
		{
			Name: "app_platform_auth.users.create", Method: http.MethodPost, Path: "/api/users", Permission: "users:manage",
			SuccessStatus: http.StatusAccepted,
			Summary: "Add a person to the caller's organization by email with a role (not above the caller's): an address without " +
				"an account becomes an account of the organization (name, password as given); one whose account belongs elsewhere " +
				"is invited by email. Always 202 with the same body, which names no user, so it never tells whether the address " +
				"has an account; a member or a pending invitation here is 409 email_taken",
			InputSchema: httpapi.Object([]string{"email"}, map[string]string{
				"email": httpapi.EmailSchema(), "name": httpapi.LineSchema(0, text.MaxTitle),
				"password": `{"type":"string","minLength":10,"maxLength":256}`, "role": roleEnum}),
			Handle: func(ctx context.Context, c *httpapi.Call) (httpapi.Reply, error) {
				var in identitycmd.CreateUser
				if err := c.Decode(&in); err != nil {
					return httpapi.Reply{}, err
				}
				actor, err := cmds.ActorIn(ctx, c.Principal, c.Principal.OrganizationID)
				if err != nil {
					return httpapi.Reply{}, err
				}
				// No position: it would name the stream written (the
				// organization's or its invitations'), telling the two apart.
				res, err := cmds.AddUser(ctx, c.Meta, actor, in)
				return httpapi.Reply{Body: res.Value, Replayed: res.Replayed}, err
			},
		},
		{
			Name: "app_platform_auth.users.get", Method: http.MethodGet, Path: "/api/users/{userId}", Permission: "users:read",
			ReadOnly: true, ReadModel: identityview.Name, Summary: "One user of the caller's organization (404 otherwise)",
			InputSchema: httpapi.Object([]string{"userId"}, userPath),
			Handle: func(ctx context.Context, c *httpapi.Call) (httpapi.Reply, error) {
				id := varOf(c, "userId")
				if err := q.UserVisible(ctx, c.Principal, id); err != nil {
					return httpapi.Reply{}, err
				}
				u, err := q.User(ctx, id)
				return httpapi.OK(u), err
			},
		},
		{
			Name: "app_platform_auth.users.export", Method: http.MethodGet, Path: "/api/users/{userId}/export", Permission: "users:read",
			ReadOnly: true, ReadModel: identityview.Name,
			Summary:     "Portable user record: profile, memberships, sessions; no secret of any kind. The user itself, an admin (users:manage) of its home organization, or a platform role",
			InputSchema: httpapi.Object([]string{"userId"}, userPath),
			Handle: func(ctx context.Context, c *httpapi.Call) (httpapi.Reply, error) {
				id := varOf(c, "userId")
				if err := q.UserVisible(ctx, c.Principal, id); err != nil {
					return httpapi.Reply{}, err
				}
				// The export spans every organization the user belongs to, so a
				// fellow member of one of them is not enough.
				if c.Principal.UserID != id && !c.Principal.PlatformWide() {
					u, err := q.User(ctx, id)
					if err != nil {
						return httpapi.Reply{}, err
					}
					if u.HomeOrganizationID != c.Principal.OrganizationID || !c.Principal.Allows(permUsersManage) {
						return httpapi.Reply{}, errs.PermissionDenied("only the user, an admin of its home organization or a platform role exports a user")
					}
				}
				out, err := q.ExportUser(ctx, id, time.Now().UTC())
				return httpapi.OK(out), err
			},
		},
		userLifecycleAction("app_platform_auth.users.delete", http.MethodDelete, "/api/users/{userId}", false,
			"Soft-delete a user (the user itself or an admin of its home organization): sign-in and sessions stop at once; recoverable for 30 days",
			cmds.DeleteUser),
		userLifecycleAction("app_platform_auth.users.restore", http.MethodPost, "/api/users/{userId}/restore", false,
			"Restore a soft-deleted user", cmds.RestoreUser),
		userLifecycleAction("app_platform_auth.users.delete_permanently", http.MethodDelete, "/api/users/{userId}/permanent", true,
			"Permanently delete a user: personal data is crypto-shredded (stays erased after any replay); get and export then answer 404",
			cmds.DeleteUserPermanently),
		{
			Name: "app_platform_auth.privacy.maintenance.run", Method: http.MethodPost, Path: "/api/internal/privacy-maintenance",
			Permission: "privacy:maintain",
			Summary:    "Run privacy maintenance now: purge tombstones older than 30 days and audit records older than 365 days, in batches of 100",
			Handle: func(ctx context.Context, c *httpapi.Call) (httpapi.Reply, error) {
				rep, err := cmds.PurgeExpired(ctx, time.Now().UTC())
				return httpapi.OK(rep), err
			},
		},
	}}
}

// slugTaken: a uniqueness claim in the event store (the write side) or an
// organization of the read model holds the slug.
func slugTaken(ctx context.Context, d AccountsDeps, slug string) (bool, error) {
	taken, err := d.Commands.Store().Taken(ctx, domain.UniqueSlug, slug)
	if err != nil {
		return false, errs.Unavailable("identity store unavailable", err)
	}
	if taken {
		return true, nil
	}
	return d.Accounts.SlugInUse(ctx, slug)
}

func varOf(c *httpapi.Call, name string) string {
	var in map[string]any
	_ = c.Decode(&in)
	s, _ := in[name].(string)
	return s
}

// orgID reads {orgId} and applies tenant isolation: another tenant's
// organization is a missing one.
func orgID(c *httpapi.Call) (string, error) {
	id := varOf(c, "orgId")
	return id, identitycmd.AuthorizeOrganization(c.Principal, id)
}

type orgLifecycleFunc func(context.Context, commands.Meta, string) (commands.Result[identitycmd.OrganizationLifecycle], error)

func orgLifecycleAction(name, method, path, permission string, permanent bool, summary string, run orgLifecycleFunc) httpapi.Action {
	props := map[string]string{"orgId": uuidString}
	required := []string{"orgId"}
	if permanent {
		props["confirm"], required = confirmTrue, append(required, "confirm")
	}
	return httpapi.Action{
		Name: name, Method: method, Path: path, Permission: permission, Destructive: permanent, Summary: summary,
		InputSchema: httpapi.Object(required, props),
		Handle: func(ctx context.Context, c *httpapi.Call) (httpapi.Reply, error) {
			id, err := orgID(c)
			if err != nil {
				return httpapi.Reply{}, err
			}
			// Deleting and restoring the organization stays the owners' (or the
			// platform's), whatever a customized bundle grants.
			if !c.Principal.PlatformWide() && domain.RoleOrDefault(c.Principal.Role) != domain.RoleOwner {
				return httpapi.Reply{}, errs.PermissionDenied("only an owner deletes or restores the organization")
			}
			return httpapi.FromResult(run(ctx, c.Meta, id))
		},
	}
}

type userLifecycleFunc func(context.Context, commands.Meta, domain.Principal, string) (commands.Result[identitycmd.UserLifecycle], error)

// permUsersManage is checked at run time where a user may act on itself.
const permUsersManage = AppID + ".users:manage"

// userLifecycleAction: users may delete (and restore) their own account;
// anyone else needs users:manage, and the command checks the ladder.
func userLifecycleAction(name, method, path string, permanent bool, summary string, run userLifecycleFunc) httpapi.Action {
	props := map[string]string{"userId": uuidString}
	required := []string{"userId"}
	if permanent {
		props["confirm"], required = confirmTrue, append(required, "confirm")
	}
	return httpapi.Action{
		Name: name, Method: method, Path: path, AuthorizationMode: httpapi.AuthRuntime, Destructive: permanent, Summary: summary + " (permission users:manage unless it is the caller's own account)",
		InputSchema: httpapi.Object(required, props),
		Handle: func(ctx context.Context, c *httpapi.Call) (httpapi.Reply, error) {
			id := varOf(c, "userId")
			if c.Principal.UserID != id && !c.Principal.Allows(permUsersManage) {
				return httpapi.Reply{}, errs.PermissionDenied("the credential lacks permission " + permUsersManage)
			}
			return httpapi.FromResult(run(ctx, c.Meta, c.Principal, id))
		},
	}
}
