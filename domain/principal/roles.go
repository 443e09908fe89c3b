package principal

import "slices"

// Role ladder (seed 001): platform roles, which count only in the platform
// administration organization, and the organization roles, highest first.
// The identity context owns memberships; every context reads the ladder
// here to check a principal's role at runtime.
const (
	RolePlatformSuperAdmin = "platform_super_admin"
	RolePlatformAdmin      = "platform_admin"
	RoleOwner              = "owner"
	RoleSuperAdmin         = "super_admin"
	RoleAdmin              = "admin"
	RoleMember             = "member"
	RoleGuest              = "guest"
)

// Roles are the organization roles, highest first.
var Roles = []string{RoleOwner, RoleSuperAdmin, RoleAdmin, RoleMember, RoleGuest}

// RoleOrDefault applies the seed's rule: a missing role claim means member.
func RoleOrDefault(role string) string {
	if role == "" {
		return RoleMember
	}
	return role
}

// Rank orders organization roles: owner 5 ... guest 1; unknown roles 0.
func Rank(role string) int {
	i := slices.Index(Roles, RoleOrDefault(role))
	if i < 0 {
		return 0
	}
	return len(Roles) - i
}

// OrganizationRole is the organization role a principal acts with in its
// organization: a session's current role; an API key's ActingRole (the
// current role of the user it acts as: a key never exceeds its creator);
// "" for anything else (services), which ranks below every role.
func (p Principal) OrganizationRole() string {
	switch p.Type {
	case "user":
		return RoleOrDefault(p.Role)
	case "api_key":
		return p.ActingRole
	}
	return ""
}

// ActsAtLeast reports whether the principal acts in its organization with
// role min or a higher one, or holds a platform role in the administration
// organization (the platform-wide bypass).
func (p Principal) ActsAtLeast(min string) bool {
	role := p.OrganizationRole()
	return p.PlatformWide() || (role != "" && Rank(role) >= Rank(min))
}

// ActingUser is the user a principal acts as: a session's user, the user an
// API key acts as (ActsAs); "" for services and keys the system minted.
func (p Principal) ActingUser() string {
	switch p.Type {
	case "user":
		return p.UserID
	case "api_key":
		return p.ActsAs
	}
	return ""
}

// Author is who a record names as its author or owner: the user behind a
// session, else the credential (an API key names itself, not the user it
// acts as: unlike ActingUser).
func (p Principal) Author() string {
	if p.UserID != "" {
		return p.UserID
	}
	return p.ID
}
