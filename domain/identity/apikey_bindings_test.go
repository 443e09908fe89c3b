package identity_test

import (
	"slices"
	"testing"
	"time"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/domain/event/eventtest"
	"github.com/platform/backend/domain/identity"
)

var testNow = time.Unix(1_800_000_000, 0).UTC()

func TestBindableOptionsAndCheck(t *testing.T) {
	cat := testCatalog(t)
	acc, _ := identity.LoadOrgAccess("o", eventtest.History(t, []event.Change{event.New(identity.ServiceAccessGranted,
		identity.ServiceAccessV1{OrganizationID: "o", AppID: "design", Source: identity.AccessGranted})}...))
	caller := identity.Caller{Type: "api_key", OrganizationID: "o", Permissions: []string{"design.workspace:read", "status.status:read"}}
	ws := []identity.Workspace{{ID: "o", Name: "acme"}}
	opts, err := identity.BindableOptions(identity.OptionsInput{Catalog: cat, Access: acc, Caller: caller, AppID: "design", Workspaces: ws})
	if err != nil {
		t.Fatal(err)
	}
	if len(opts.Scopes) != 1 || opts.Scopes[0].Scope != "workspace:read" {
		t.Fatalf("scopes %+v", opts.Scopes)
	}
	if len(opts.Resources) != 1 || opts.Resources[0].ResourceType != "workspace" || len(opts.Resources[0].Aliases) != 3 {
		t.Fatalf("duplicates must collapse: %+v", opts.Resources)
	}
	if _, err := identity.BindableOptions(identity.OptionsInput{Catalog: cat, Access: acc, Caller: caller, AppID: "studio", Workspaces: ws}); errs.KindOf(err) != errs.KindPermissionDenied {
		t.Fatalf("an app the organization may not use: %v", err)
	}
	if _, err := identity.BindableOptions(identity.OptionsInput{Catalog: cat, Access: acc, Caller: caller, AppID: "dapp_x"}); errs.KindOf(err) != errs.KindInvalidInput {
		t.Fatalf("a dapp id: %v", err)
	}
	tests := []struct {
		name     string
		scopes   []string
		bindings []identity.ResourceBinding
		pointers []string
	}{
		{name: "offered", scopes: []string{"workspace:read"}},
		{name: "not offered", scopes: []string{"workspace:read", "brands:read"}, pointers: []string{"/scopes/1"}},
		{name: "alias binds canonically", scopes: []string{"workspace:read"},
			bindings: []identity.ResourceBinding{{ResourceType: "design_workspace", ResourceID: "o", AccessLevel: "read"}}},
		{name: "unknown type", scopes: []string{"workspace:read"},
			bindings: []identity.ResourceBinding{{ResourceType: "board", ResourceID: "o", AccessLevel: "read"}},
			pointers: []string{"/resourceBindings/0/resourceType"}},
		{name: "other resource", scopes: []string{"workspace:read"},
			bindings: []identity.ResourceBinding{{ResourceType: "workspace", ResourceID: "x", AccessLevel: "read"}},
			pointers: []string{"/resourceBindings/0/resourceId"}},
		{name: "above offered level", scopes: []string{"workspace:read"},
			bindings: []identity.ResourceBinding{{ResourceType: "workspace", ResourceID: "o", AccessLevel: "write"}},
			pointers: []string{"/resourceBindings/0/accessLevel"}},
		{name: "allowed scope beyond the key", scopes: []string{"workspace:read"},
			bindings: []identity.ResourceBinding{{ResourceType: "workspace", ResourceID: "o", AccessLevel: "read", AllowedScopes: []string{"brands:read"}}},
			pointers: []string{"/resourceBindings/0/allowedScopes/0"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := identity.CheckKeyRequest(opts, tt.scopes, tt.bindings)
			if len(tt.pointers) == 0 {
				if err != nil {
					t.Fatal(err)
				}
				for _, b := range out {
					if b.ResourceType != "workspace" || !slices.Equal(b.AllowedScopes, []string{"workspace:read"}) {
						t.Fatalf("binding %+v", b)
					}
				}
				return
			}
			e, ok := errs.As(err)
			if !ok || e.Kind != errs.KindInvalidInput {
				t.Fatalf("err %v", err)
			}
			var got []string
			for _, f := range e.Fields {
				got = append(got, f.Pointer)
			}
			if !slices.Equal(got, tt.pointers) {
				t.Fatalf("pointers %v, want %v", got, tt.pointers)
			}
		})
	}
}

func TestAPIKeyUpdateAndSuspension(t *testing.T) {
	k, _ := identity.LoadAPIKey(nil)
	created, err := k.Create(identity.NewAPIKey{KeyID: "k", OrganizationID: "o", Name: "n", Service: "status", Scopes: []string{"status:read"},
		Bindings: []identity.ResourceBinding{{ResourceType: "workspace", ResourceID: "o", AccessLevel: "read"}}}, testNow)
	if err != nil || len(created) != 2 || created[1].Type != identity.APIKeyResourcesBound {
		t.Fatalf("create with bindings: %v %v", created, err)
	}
	h := eventtest.History(t, created...)
	k, _ = identity.LoadAPIKey(h)
	if len(k.Bindings()) != 1 {
		t.Fatal("bindings not loaded")
	}
	up, err := k.Update(identity.KeyUpdate{Scopes: []string{"status:write"}}, testNow)
	if err != nil || len(up) != 1 {
		t.Fatalf("update: %v %v", up, err)
	}
	h, _ = event.Append(h, up)
	k, _ = identity.LoadAPIKey(h)
	if !slices.Equal(k.Created().Scopes, []string{"status:write"}) || len(k.Bindings()) != 0 {
		t.Fatalf("after update: %+v %+v", k.Created(), k.Bindings())
	}
	if same, err := k.Update(identity.KeyUpdate{Scopes: []string{"status:write"}}, testNow); err != nil || len(same) != 0 {
		t.Fatalf("an unchanged update appends nothing: %v %v", same, err)
	}
	rev, _ := k.Revoke(testNow)
	h, _ = event.Append(h, rev)
	k, _ = identity.LoadAPIKey(h)
	if _, err := k.Update(identity.KeyUpdate{Scopes: []string{"status:read"}}, testNow); errs.KindOf(err) != errs.KindConflict {
		t.Fatalf("a revoked key is final: %v", err)
	}

	acc, _ := identity.LoadOrgAccess("o", nil)
	if acc.CanMutateKeys() != nil {
		t.Fatal("an active workspace mutates keys")
	}
	for _, tt := range []struct {
		status string
		code   string
	}{{identity.WorkspaceStateSuspended, "workspace_suspended"}, {identity.WorkspaceStateRevoked, "workspace_revoked"}} {
		a, _ := identity.LoadOrgAccess("o", nil)
		ch, err := a.SetWorkspaceStatus(tt.status, "r", testNow)
		if err != nil {
			t.Fatal(err)
		}
		a, _ = identity.LoadOrgAccess("o", eventtest.History(t, ch...))
		if e, ok := errs.As(a.CanMutateKeys()); !ok || e.Code != tt.code {
			t.Fatalf("%s: %v", tt.status, a.CanMutateKeys())
		}
	}
}
