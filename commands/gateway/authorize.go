package gateway

import (
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/principal"
)

// ConnectionAdminRole is the least organization role that changes an
// organization's provider connections (create, update, choose, replace or
// rotate credentials, disconnect, delete) or reads their webhook signing
// secrets: whoever does can take over the organization's provider traffic,
// or forge the webhooks relayed to its apps. Members read connections.
const ConnectionAdminRole = principal.RoleAdmin

// AuthorizeConnectionAdmin is the runtime check of those actions, on top
// of their permission: a session's current role, or for an API key its
// creator's current role (a member's key is a member's), at least admin;
// the platform-wide roles pass. 403 permission_denied otherwise.
func AuthorizeConnectionAdmin(p principal.Principal) error {
	if p.ActsAtLeast(ConnectionAdminRole) {
		return nil
	}
	return errs.PermissionDenied("changing the organization's provider connections or reading their webhook signing secrets needs " +
		"an admin role (owner, super_admin or admin); an API key acts with its creator's role")
}
