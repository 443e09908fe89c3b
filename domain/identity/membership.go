package identity

import (
	"slices"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/principal"
)

// The role constants (RoleOwner ... RoleGuest, RolePlatformSuperAdmin,
// RolePlatformAdmin) are declared in permissions.go.

// Roles are the organization roles, highest first.
var Roles = principal.Roles

// PlatformRoles, highest first.
var PlatformRoles = []string{RolePlatformSuperAdmin, RolePlatformAdmin}

// RoleOrDefault applies the seed's rule: a missing role claim means member.
func RoleOrDefault(role string) string { return principal.RoleOrDefault(role) }

// Rank orders organization roles: owner 5 ... guest 1; unknown roles 0.
func Rank(role string) int { return principal.Rank(role) }

// IsAdminRole: owner, super_admin and admin keep elevated access on the
// organization-scoped admin routes (members, sessions, security).
func IsAdminRole(role string) bool { return Rank(role) >= Rank(RoleAdmin) }

// Member is one user's membership of an organization.
type Member struct {
	UserID       string `json:"user_id"`
	Role         string `json:"role"`
	PlatformRole string `json:"platform_role,omitempty"`
}

// Actor is who asks for a membership change, as the command layer resolved
// it: its organization role (rank) here, and whether it holds a platform role
// in the administration organization.
type Actor struct {
	UserID       string
	Role         string // the actor's role in this organization; "" when not a member
	PlatformRole string // set only for members of the administration organization
}

func (a Actor) platform() bool { return a.PlatformRole != "" }

// CheckRoleChange applies the ladder: an actor assigns no role above its own,
// touches nobody above itself, only an owner makes or unmakes owners, and
// only a platform_super_admin grants platform roles. Platform roles bypass
// the organization ladder (seed 001, authentication rule 7).
func CheckRoleChange(a Actor, current, next Member, administrationOrg bool) error {
	var fields []errs.Field
	if !slices.Contains(Roles, next.Role) {
		fields = append(fields, errs.Field{Pointer: "/role", Detail: "must be one of owner, super_admin, admin, member, guest"})
	}
	if next.PlatformRole != "" && !slices.Contains(PlatformRoles, next.PlatformRole) {
		fields = append(fields, errs.Field{Pointer: "/platformRole", Detail: "must be platform_super_admin or platform_admin"})
	}
	if next.PlatformRole != "" && !administrationOrg {
		fields = append(fields, errs.Field{Pointer: "/platformRole", Detail: "platform roles exist only in the platform administration organization"})
	}
	if len(fields) > 0 {
		return errs.Invalid(fields...)
	}
	if next.PlatformRole != current.PlatformRole && a.PlatformRole != RolePlatformSuperAdmin {
		return errs.PermissionDenied("only a platform_super_admin grants or removes platform roles")
	}
	if a.platform() {
		return nil
	}
	mine := Rank(a.Role)
	switch {
	case !IsAdminRole(a.Role):
		return errs.PermissionDenied("changing roles needs owner, super_admin or admin in this organization")
	case Rank(next.Role) > mine:
		return errs.PermissionDenied("a role above your own cannot be assigned")
	case current.Role != "" && Rank(current.Role) > mine:
		return errs.PermissionDenied("a member above your own role cannot be changed")
	case (next.Role == RoleOwner || current.Role == RoleOwner) && a.Role != RoleOwner && current.Role != next.Role:
		return errs.PermissionDenied("only an owner makes or unmakes owners")
	}
	return nil
}

// CheckOutranks applies the ladder to permission management (overrides of a
// member, the bundle of a role): only a platform role, an owner, or a
// strictly higher organization role changes what a role may do, so an admin
// cannot strip an owner nor widen its own role.
func CheckOutranks(c Caller, role string) error {
	if PlatformBypass(c) || RoleOrDefault(c.Role) == RoleOwner || Rank(c.Role) > Rank(RoleOrDefault(role)) {
		return nil
	}
	return errs.PermissionDenied("only a higher role changes what the " + RoleOrDefault(role) + " role may do")
}
