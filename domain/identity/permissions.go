package identity

import (
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/principal"
)

// Permission strings (`appId.resource:action`) and the principal are the
// small package every service reads (domain/principal); these names keep the
// identity context's code reading as before.
type Permission = principal.Permission

var scopePattern = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]*:[a-z0-9][a-z0-9_-]*$`)

// ValidAppID reports whether s is a well-formed identity app id. Developer
// portal ids (`dapp_...`) are a different identifier space and never app ids.
func ValidAppID(s string) bool { return principal.WellFormedAppID(s) && !IsDeveloperAppID(s) }

// IsDeveloperAppID reports whether s is a developer-portal application id.
func IsDeveloperAppID(s string) bool { return strings.HasPrefix(s, DeveloperAppPrefix) }

// ValidScope reports whether s is a short `resource:action` scope.
func ValidScope(s string) bool { return scopePattern.MatchString(s) }

// ParsePermission reads `appId.resource:action`; segments may be `*`.
func ParsePermission(s string) (Permission, error) { return principal.ParsePermission(s) }

// Qualify turns a short scope of an application into its permission string.
func Qualify(appID, scope string) string { return principal.Qualify(appID, scope) }

// Holds reports whether any pattern grants permission (a full string).
func Holds(patterns []string, permission string) bool { return principal.Holds(patterns, permission) }

// Role ladder (seed 001), declared with the principal every context reads
// (domain/principal). Platform roles exist only in the administration
// organization; elsewhere they grant nothing beyond member.
const (
	RolePlatformSuperAdmin = principal.RolePlatformSuperAdmin
	RolePlatformAdmin      = principal.RolePlatformAdmin
	RoleOwner              = principal.RoleOwner
	RoleSuperAdmin         = principal.RoleSuperAdmin
	RoleAdmin              = principal.RoleAdmin
	RoleMember             = principal.RoleMember
	RoleGuest              = principal.RoleGuest
)

// IsPlatformRole reports whether role is one of the two platform roles.
func IsPlatformRole(role string) bool {
	return role == RolePlatformSuperAdmin || role == RolePlatformAdmin
}

// DefaultRoleBundles are the permissions each organization role holds until
// the organization sets its own bundle. They are patterns over every
// application the organization may use:
//   - owner, super_admin: everything (`*.*:*`);
//   - admin: read, write, invoke, send, poll, replay and manage actions;
//   - member: read, write, invoke and send (no `:manage`: no user-permission
//     management, no service access changes, no polling or replays);
//   - guest: read only.
var DefaultRoleBundles = map[string][]string{
	RoleOwner:      {"*.*:*"},
	RoleSuperAdmin: {"*.*:*"},
	RoleAdmin:      {"*.*:read", "*.*:write", "*.*:invoke", "*.*:send", "*.*:poll", "*.*:replay", "*.*:manage", "*.*:translate"},
	RoleMember:     {"*.*:read", "*.*:write", "*.*:invoke", "*.*:send", "*.*:translate"},
	RoleGuest:      {"*.*:read"},
}

// Source kinds of an evaluated permission.
const (
	SourceRoleBundle    = "role_bundle"
	SourceUserOverride  = "user_override"
	SourceServiceAccess = "organization_service_access"
	SourcePlatformRole  = "platform_role"
)

// Source explains one reason a permission is (or is not) held.
type Source struct {
	Type   string `json:"type"`
	ID     string `json:"id"`
	Effect string `json:"effect"` // allow or deny
}

// PermissionEntry is one evaluated permission with every source that spoke.
type PermissionEntry struct {
	Permission string   `json:"permission"`
	AppID      string   `json:"appId"`
	Allowed    bool     `json:"allowed"`
	Sources    []Source `json:"sources"`
}

// Overrides are a user's explicit grants and denials; a deny wins.
type Overrides struct {
	Grant []string `json:"grant"`
	Deny  []string `json:"deny"`
}

// ServiceGrant is one application the organization may use, and why.
type ServiceGrant struct {
	AppID  string `json:"appId"`
	Source string `json:"source"` // default, granted, provision_from_checkout
}

// RoleBundle is the bundle a role evaluates with, and whether the
// organization customized it.
type RoleBundle struct {
	Role        string   `json:"role"`
	Permissions []string `json:"permissions"`
	Custom      bool     `json:"custom"`
}

// EvalInput is everything an evaluation reads; the caller loads it.
type EvalInput struct {
	Role     string
	Platform bool // a platform role in the administration organization
	Bundle   RoleBundle
	Override Overrides
	Services []ServiceGrant
	Catalog  []CatalogEntry
}

// Evaluation is the payload of GET /api/users/{userId}/permissions.
type Evaluation struct {
	EffectivePermissions []string          `json:"effectivePermissions"`
	Entries              []PermissionEntry `json:"entries"`
	Sources              EvalSources       `json:"sources"`
}

type EvalSources struct {
	RoleBundles               []RoleBundle   `json:"roleBundles"`
	UserOverrides             Overrides      `json:"userOverrides"`
	OrganizationServiceAccess []ServiceGrant `json:"organizationServiceAccess"`
}

// Evaluate expands the role bundle and the user's overrides over the
// permissions the catalog declares for the applications the organization
// may use. A deny override wins over every grant; a platform role in the
// administration organization holds every declared permission.
func Evaluate(in EvalInput) Evaluation {
	ev := Evaluation{EffectivePermissions: []string{}, Entries: []PermissionEntry{}, Sources: EvalSources{
		RoleBundles: []RoleBundle{in.Bundle}, UserOverrides: in.Override, OrganizationServiceAccess: in.Services}}
	if ev.Sources.UserOverrides.Grant == nil {
		ev.Sources.UserOverrides.Grant = []string{}
	}
	if ev.Sources.UserOverrides.Deny == nil {
		ev.Sources.UserOverrides.Deny = []string{}
	}
	if ev.Sources.OrganizationServiceAccess == nil {
		ev.Sources.OrganizationServiceAccess = []ServiceGrant{}
	}
	access := map[string]ServiceGrant{}
	for _, g := range in.Services {
		access[g.AppID] = g
	}
	entries := sortedCatalog(in.Catalog)
	for _, app := range entries {
		grant, accessible := access[app.AppID]
		if !accessible && !in.Platform {
			continue
		}
		scopes := app.Scopes
		if in.Platform {
			scopes = append(slices.Clone(scopes), app.PlatformScopes...)
		}
		for _, scope := range scopes {
			perm := Qualify(app.AppID, scope)
			e := PermissionEntry{Permission: perm, AppID: app.AppID}
			allow := false
			if in.Platform {
				e.Sources = append(e.Sources, Source{Type: SourcePlatformRole, ID: in.Role, Effect: "allow"})
				allow = true
			}
			if Holds(in.Bundle.Permissions, perm) {
				e.Sources = append(e.Sources, Source{Type: SourceRoleBundle, ID: in.Bundle.Role, Effect: "allow"})
				allow = true
			}
			if Holds(in.Override.Grant, perm) {
				e.Sources = append(e.Sources, Source{Type: SourceUserOverride, ID: "grant", Effect: "allow"})
				allow = true
			}
			denied := Holds(in.Override.Deny, perm)
			if denied {
				e.Sources = append(e.Sources, Source{Type: SourceUserOverride, ID: "deny", Effect: "deny"})
			}
			if len(e.Sources) == 0 {
				continue // nothing speaks of it: not an entry
			}
			if accessible {
				e.Sources = append(e.Sources, Source{Type: SourceServiceAccess, ID: app.AppID + ":" + grant.Source, Effect: "allow"})
			}
			e.Allowed = allow && !denied
			ev.Entries = append(ev.Entries, e)
			if e.Allowed {
				ev.EffectivePermissions = append(ev.EffectivePermissions, perm)
			}
		}
	}
	return ev
}

func sortedCatalog(c []CatalogEntry) []CatalogEntry {
	out := slices.Clone(c)
	sort.Slice(out, func(i, j int) bool { return out[i].AppID < out[j].AppID })
	return out
}

// Caller is who asks, as authorization sees it: the validated principal plus
// its effective permissions (full strings or patterns).
type Caller struct {
	PrincipalID    string
	Type           string // user, api_key, service
	OrganizationID string
	Role           string // organization role
	// PlatformRole and InAdministration: a platform role counts only while
	// the active organization is the administration organization.
	PlatformRole     string
	InAdministration bool
	Permissions      []string
}

// Rule is how one route is authorized. OrgAdminRoute marks the
// organization-scoped admin routes (sessions, security, password reset,
// user-permission management) on which same-organization owner, super_admin
// and admin keep elevated access whatever their bundle says.
type Rule struct {
	Permission    string // full permission string
	OrgAdminRoute bool
}

// PlatformBypass reports whether the caller holds a platform role in the
// administration organization: the only platform-wide bypass.
func PlatformBypass(c Caller) bool {
	return c.Type == "user" && IsPlatformRole(c.PlatformRole) && c.InAdministration
}

// Authorize decides one request on an organization's data. Another
// organization is indistinguishable from a missing one (404), except for the
// platform bypass.
func Authorize(c Caller, targetOrganizationID string, r Rule) error {
	if PlatformBypass(c) {
		return nil
	}
	if targetOrganizationID == "" || targetOrganizationID != c.OrganizationID {
		return errs.NotFound("organization")
	}
	if r.OrgAdminRoute && c.Type == "user" && IsAdminRole(c.Role) {
		return nil
	}
	if r.Permission == "" || Holds(c.Permissions, r.Permission) {
		return nil
	}
	return errs.PermissionDenied("the credential lacks permission " + r.Permission)
}
