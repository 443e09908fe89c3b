package brands

import "github.com/platform/backend/domain/principal"

// Library is the library owner of seed 000's configuration
// (LIBRARY_OWNER_ORGANIZATION_ID, LIBRARY_OWNER_WORKSPACE_ID): its published
// kits are offered to every organization. With a workspace, the library is
// that workspace's kits; without one, the organization's kits that belong
// to no workspace. The zero Library offers nothing.
type Library struct {
	OrganizationID string
	WorkspaceID    string
}

// Holds reports whether a kit of this owner is in the library.
func (l Library) Holds(organizationID string, workspaceID *string) bool {
	if l.OrganizationID == "" || organizationID != l.OrganizationID {
		return false
	}
	if l.WorkspaceID == "" {
		return workspaceID == nil
	}
	return workspaceID != nil && *workspaceID == l.WorkspaceID
}

// Owner is who a kit belongs to.
type Owner struct {
	OrganizationID string
	WorkspaceID    *string
}

// Owns reports whether the caller may see the kit as its own: a kit of its
// organization, of no workspace or of a workspace the credential is bound to.
func (o Owner) Owns(p principal.Principal) bool {
	if o.OrganizationID == "" || o.OrganizationID != p.OrganizationID {
		return false
	}
	return o.WorkspaceID == nil || p.BoundTo(*o.WorkspaceID)
}

// Sees reports whether the caller may read the kit: its own, or a published
// kit of the library (read-only to everyone else).
func (o Owner) Sees(p principal.Principal, published bool, lib Library) bool {
	return o.Owns(p) || published && lib.Holds(o.OrganizationID, o.WorkspaceID)
}
