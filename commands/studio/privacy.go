package studio

import (
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/principal"
)

// PrivacyAdminRole is the least organization role that exports or erases
// the organization's studio data (organizations.data.export and .erase).
// The permissions (privacy:read, privacy:write) are in the member's default
// bundle, and an erasure removes every project, asset and file of every
// workspace: the seed's permission alone would let any member do it. So,
// as the gateway's connections do (principal.ActsAtLeast), the caller must
// also act as an admin: a session's current role, an API key's creator's
// current role; the platform-wide roles pass.
const PrivacyAdminRole = principal.RoleAdmin

// AuthorizePrivacy is the runtime check of the export and the erasure, on
// top of their permission: 403 permission_denied below admin.
func AuthorizePrivacy(p principal.Principal) error {
	if p.ActsAtLeast(PrivacyAdminRole) {
		return nil
	}
	return errs.PermissionDenied("exporting or erasing the organization's studio data needs an admin role (owner, super_admin or admin); " +
		"an API key acts with its creator's role")
}
