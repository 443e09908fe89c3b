package principal

import (
	"reflect"
	"testing"
)

// TestEqualSeesEveryMember: changing any member of a principal (every
// field, found by reflection, so a member added later is covered), or a
// nil list becoming empty (null and [] encode differently), makes it
// unequal; a copy is equal.
func TestEqualSeesEveryMember(t *testing.T) {
	base := Principal{ID: "k", Type: "api_key", OrganizationID: "o", Role: "member", Scopes: []string{"a:read"},
		Permissions: []string{"x.a:read"}, Service: "x", UserID: "u", SessionID: "s", PlatformRole: "p", ActsAs: "u",
		ActingRole: "admin", Workspaces: []WorkspaceBinding{{WorkspaceID: "w", AccessLevel: "read", AllowedScopes: []string{"a:read"}}}}
	if !base.Equal(base) {
		t.Fatal("a principal is not equal to itself")
	}
	typ := reflect.TypeOf(base)
	for i := range typ.NumField() {
		changed := base
		changed.Workspaces = []WorkspaceBinding{base.Workspaces[0]}
		f := reflect.ValueOf(&changed).Elem().Field(i)
		switch f.Kind() {
		case reflect.String:
			f.SetString(f.String() + "!")
		case reflect.Slice:
			f.Set(reflect.MakeSlice(f.Type(), 0, 0)) // empty, not nil
		default:
			t.Fatalf("member %s of kind %s: teach Equal and this test", typ.Field(i).Name, f.Kind())
		}
		if base.Equal(changed) || changed.Equal(base) {
			t.Errorf("changing %s leaves the principal equal", typ.Field(i).Name)
		}
	}
	if n := reflect.TypeOf(WorkspaceBinding{}).NumField(); n != 3 {
		t.Fatalf("WorkspaceBinding has %d members: teach Equal and this test", n)
	}
	for _, change := range []func(*WorkspaceBinding){
		func(b *WorkspaceBinding) { b.WorkspaceID = "v" },
		func(b *WorkspaceBinding) { b.AccessLevel = "write" },
		func(b *WorkspaceBinding) { b.AllowedScopes = nil },
	} {
		changed := base
		changed.Workspaces = []WorkspaceBinding{base.Workspaces[0]}
		change(&changed.Workspaces[0])
		if base.Equal(changed) {
			t.Errorf("a changed workspace binding leaves the principal equal: %+v", changed.Workspaces[0])
		}
	}
	clone := base.Clone()
	if !clone.Equal(base) {
		t.Error("a clone is not equal")
	}
	clone.Permissions[0], clone.Workspaces[0].AllowedScopes[0] = "changed", "changed"
	if base.Permissions[0] == "changed" || base.Workspaces[0].AllowedScopes[0] == "changed" {
		t.Error("a clone shares lists")
	}
	if c := (Principal{Scopes: []string{}}).Clone(); c.Scopes == nil || c.Permissions != nil {
		t.Errorf("a clone tells nil from empty no longer: %#v", c)
	}
	empty := base
	empty.Scopes = nil
	if empty.Equal(Principal{ID: "k", Type: "api_key", OrganizationID: "o", Role: "member", Scopes: []string{}}) {
		t.Error("nil and empty scopes are equal")
	}
}

// TestCloneListsStayApart: a clone's lists share one backing array, so each
// is cut to its own length: an append to one reallocates rather than
// writing over the next, and a clone costs two allocations however many
// lists it has (validation clones every answer it hands out).
func TestCloneListsStayApart(t *testing.T) {
	base := Principal{ID: "k", Scopes: []string{"a:read", "b:read"}, Permissions: []string{"x.a:read", "x.b:read"},
		Workspaces: []WorkspaceBinding{
			{WorkspaceID: "w1", AllowedScopes: []string{"a:read"}},
			{WorkspaceID: "w2", AllowedScopes: []string{"b:read"}},
		}}
	c := base.Clone()
	_ = append(c.Scopes, "appended")
	_ = append(c.Permissions, "appended")
	_ = append(c.Workspaces[0].AllowedScopes, "appended")
	_ = append(c.Workspaces, WorkspaceBinding{WorkspaceID: "appended"})
	if !c.Equal(base) {
		t.Fatalf("an append to one list of a clone changed another: %+v", c)
	}
	if n := testing.AllocsPerRun(100, func() { c = base.Clone() }); n > 2 {
		t.Errorf("Clone: %v allocations, want at most 2", n)
	}
}
