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

// Clone is a copy that shares no list with p (nil lists stay nil). It
// costs two allocations whatever the lists: every string list is a window
// of one backing array, cut to its length and capacity so that an append to
// one reallocates instead of writing into the next, and the workspace
// bindings are one more. Validation hands each caller a clone (~35k/s).
func (p Principal) Clone() Principal {
	n := len(p.Scopes) + len(p.Permissions)
	for _, w := range p.Workspaces {
		n += len(w.AllowedScopes)
	}
	strs := make([]string, 0, n)
	take := func(list []string) []string {
		if list == nil {
			return nil
		}
		from := len(strs)
		strs = append(strs, list...)
		return strs[from:len(strs):len(strs)]
	}
	p.Scopes, p.Permissions = take(p.Scopes), take(p.Permissions)
	if p.Workspaces != nil {
		p.Workspaces = append(make([]WorkspaceBinding, 0, len(p.Workspaces)), p.Workspaces...)
		for i := range p.Workspaces {
			p.Workspaces[i].AllowedScopes = take(p.Workspaces[i].AllowedScopes)
		}
	}
	return p
}
