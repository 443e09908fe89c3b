package principal

import "slices"

// Equal reports whether two principals are the same answer, member by
// member (an answer encoded for one may be sent for the other).
func (p Principal) Equal(o Principal) bool {
	return p.ID == o.ID && p.Type == o.Type && p.OrganizationID == o.OrganizationID && p.Role == o.Role &&
		p.Service == o.Service && p.UserID == o.UserID && p.SessionID == o.SessionID && p.PlatformRole == o.PlatformRole &&
		p.ActsAs == o.ActsAs && p.ActingRole == o.ActingRole &&
		sameStrings(p.Scopes, o.Scopes) && sameStrings(p.Permissions, o.Permissions) &&
		slices.EqualFunc(p.Workspaces, o.Workspaces, func(a, b WorkspaceBinding) bool {
			return a.WorkspaceID == b.WorkspaceID && a.AccessLevel == b.AccessLevel && sameStrings(a.AllowedScopes, b.AllowedScopes)
		})
}

// sameStrings is slices.Equal that also tells nil from empty: they encode
// as null and [].
func sameStrings(a, b []string) bool {
	return (a == nil) == (b == nil) && slices.Equal(a, b)
}

// Clone is a copy that shares no list with p (nil lists stay nil).
func (p Principal) Clone() Principal {
	p.Scopes, p.Permissions = slices.Clone(p.Scopes), slices.Clone(p.Permissions)
	p.Workspaces = slices.Clone(p.Workspaces)
	for i := range p.Workspaces {
		p.Workspaces[i].AllowedScopes = slices.Clone(p.Workspaces[i].AllowedScopes)
	}
	return p
}
