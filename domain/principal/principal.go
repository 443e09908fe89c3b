// Package principal is who a validated credential speaks for and the
// permission strings every route checks. It is the identity context's
// answer that every service reads, so the HTTP kernel depends on this small
// package and not on the identity context itself.
package principal

import (
	"fmt"
	"regexp"
	"strings"
)

// PlatformTenant is the organization id of platform-wide streams (the
// service catalog): every principal may read them.
const PlatformTenant = "platform"

// Principal is who a validated credential speaks for. Services authorize
// from it, and it is rebuilt from stored state on every validation.
type Principal struct {
	ID             string   `json:"principal_id"`
	Type           string   `json:"principal_type"`  // api_key, user, service
	OrganizationID string   `json:"organization_id"` // the active organization
	Role           string   `json:"role"`            // organization role (users); "member" for keys (see ActingRole)
	Scopes         []string `json:"scopes"`          // API keys: the key's explicit scopes
	// Permissions are what the principal may do now, evaluated at
	// validation: full strings or patterns (`*.*:*` is the platform bypass).
	Permissions []string `json:"permissions"`
	Service     string   `json:"service,omitempty"`
	// Session principals (Type "user") only:
	UserID    string `json:"user_id,omitempty"`
	SessionID string `json:"session_id,omitempty"`
	// PlatformRole is platform_super_admin or platform_admin, set only when
	// the active organization is the platform administration organization.
	PlatformRole string `json:"platform_role,omitempty"`
	// API key principals only: ActsAs is the user the key acts as, the user
	// at the root of its creator chain (a key minted by a key acts as that
	// key's user), "" for a key the system minted; ActingRole is that
	// user's current role in the organization (admin for a system key),
	// what runtime role checks read for a key (ActsAtLeast) and what per-user
	// accounting charges (ActingUser). Role stays member: identity's own
	// admin routes rank keys by their permissions, not by their creator.
	ActsAs     string `json:"acts_as,omitempty"`
	ActingRole string `json:"acting_role,omitempty"`
	// Workspaces are the workspaces an API key is bound to (its resource
	// bindings of type workspace); empty: every workspace of its
	// organization (sessions, unbound keys).
	Workspaces []WorkspaceBinding `json:"workspaces,omitempty"`
}

// WorkspaceBinding narrows a credential to one workspace: the scopes it
// allows there, at its access level.
type WorkspaceBinding struct {
	WorkspaceID   string   `json:"workspace_id"`
	AccessLevel   string   `json:"access_level"` // read, write or admin
	AllowedScopes []string `json:"allowed_scopes"`
}

// AllowsIn reports whether the principal may act with permission (a full
// string) in a workspace: it holds the permission, and it is unbound or
// bound to that workspace with the permission's scope allowed there at the
// binding's access level. A key bound to workspace A holds its permissions
// for A only, whatever it may do in another one it is bound to.
func (p Principal) AllowsIn(workspaceID, permission string) bool {
	if !p.Allows(permission) {
		return false
	}
	if len(p.Workspaces) == 0 || p.PlatformWide() {
		return true
	}
	perm, err := ParsePermission(permission)
	if err != nil {
		return false
	}
	for _, b := range p.Workspaces {
		if b.WorkspaceID == workspaceID {
			for _, s := range b.AllowedScopes {
				if s == perm.Scope() && LevelAllows(b.AccessLevel, s) {
					return true
				}
			}
		}
	}
	return false
}

// BoundTo reports whether the principal may enter a workspace at all:
// unbound, or bound to it.
func (p Principal) BoundTo(workspaceID string) bool {
	if len(p.Workspaces) == 0 || p.PlatformWide() {
		return true
	}
	for _, b := range p.Workspaces {
		if b.WorkspaceID == workspaceID {
			return true
		}
	}
	return false
}

// LevelAllows reports whether a binding's access level covers a scope:
// read allows read actions; write everything but management; admin
// everything.
func LevelAllows(level, scope string) bool {
	_, action, _ := strings.Cut(scope, ":")
	switch level {
	case "admin":
		return true
	case "write":
		return action != "manage" && action != "admin"
	default:
		return action == "read"
	}
}

// PlatformWide reports the platform-wide bypass (seed 001, authentication
// rule 7): a platform role held in the administration organization.
func (p Principal) PlatformWide() bool { return p.PlatformRole != "" }

// SeesOrganization: a principal sees its own active organization, and a
// platform role sees every organization. Anything else answers 404.
func (p Principal) SeesOrganization(organizationID string) bool {
	return organizationID != "" && (organizationID == p.OrganizationID || p.PlatformWide())
}

// Allows reports whether the principal holds a full permission string
// (`appId.resource:action`). Validation filled Permissions from the one
// evaluation every route shares: role bundle, overrides and service access
// for users, the explicit scopes of the target application for keys.
func (p Principal) Allows(permission string) bool { return Holds(p.Permissions, permission) }

// Permission strings are `appId.resource:action` (seed 001). An action's
// permission inside one service is written `resource:action` (seed 000:
// `status:read`); qualified with the service's app id it is the full string
// (`status.status:read`). API key scopes are the short form of their target
// application. Any segment of a granted pattern may be `*`.
type Permission struct{ App, Resource, Action string }

var (
	appIDPattern = regexp.MustCompile(`^[a-z][a-z0-9_]{1,62}$`)
	// SegmentPattern is one resource or action segment (or `*`).
	SegmentPattern = regexp.MustCompile(`^(\*|[a-z0-9][a-z0-9_-]*)$`)
)

// WellFormedAppID reports whether s has an app id's shape.
func WellFormedAppID(s string) bool { return wellFormedAppID(s) }

// wellFormedAppID and wellFormedSegment are appIDPattern and SegmentPattern
// spelled out: every authorized request parses its permission and the
// principal's patterns, and the regular expressions were most of that.
func wellFormedAppID(s string) bool {
	if len(s) < 2 || len(s) > 63 || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	for i := 1; i < len(s); i++ {
		if c := s[i]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

func wellFormedSegment(s string) bool {
	if s == "*" {
		return true
	}
	if s == "" || !(s[0] >= 'a' && s[0] <= 'z' || s[0] >= '0' && s[0] <= '9') {
		return false
	}
	for i := 1; i < len(s); i++ {
		if c := s[i]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// ParsePermission reads `appId.resource:action`; segments may be `*`.
func ParsePermission(s string) (Permission, error) {
	app, rest, ok := strings.Cut(s, ".")
	if !ok {
		return Permission{}, fmt.Errorf("permission %q: want appId.resource:action", s)
	}
	res, act, ok := strings.Cut(rest, ":")
	if !ok {
		return Permission{}, fmt.Errorf("permission %q: want appId.resource:action", s)
	}
	if app != "*" && !wellFormedAppID(app) || !wellFormedSegment(res) || !wellFormedSegment(act) {
		return Permission{}, fmt.Errorf("permission %q: want appId.resource:action", s)
	}
	return Permission{App: app, Resource: res, Action: act}, nil
}

func (p Permission) String() string { return p.App + "." + p.Resource + ":" + p.Action }

// Scope is the short form inside the permission's application.
func (p Permission) Scope() string { return p.Resource + ":" + p.Action }

// Qualify turns a short scope of an application into its permission string.
func Qualify(appID, scope string) string { return appID + "." + scope }

// Matches reports whether the pattern p grants the concrete permission q.
func (p Permission) Matches(q Permission) bool {
	seg := func(a, b string) bool { return a == "*" || a == b }
	return seg(p.App, q.App) && seg(p.Resource, q.Resource) && seg(p.Action, q.Action)
}

// Holds reports whether any pattern grants permission (a full string).
func Holds(patterns []string, permission string) bool {
	q, err := ParsePermission(permission)
	if err != nil {
		return false
	}
	for _, s := range patterns {
		// A pattern without a wildcard grants exactly itself: compared, not
		// parsed (a key with every tenant scope holds ~150 patterns, each
		// parsed on every authorized request).
		if s == permission {
			return true
		}
		if !strings.Contains(s, "*") {
			continue
		}
		if p, err := ParsePermission(s); err == nil && p.Matches(q) {
			return true
		}
	}
	return false
}
