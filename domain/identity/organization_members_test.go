package identity_test

import (
	"testing"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/domain/identity"
)

// orgWith builds an organization "o" whose creator "owner" is an owner,
// with further members (user id -> role), in the given lifecycle state.
func orgWith(t *testing.T, state string, administration bool, members map[string]identity.Member) *identity.Organization {
	t.Helper()
	o, _ := identity.LoadOrganization(nil)
	changes, err := o.Create(identity.NewOrganization{ID: "o", Name: "Acme", Slug: "acme", Owner: "owner", Administration: administration}, t0)
	h := apply(t, nil, changes, err)
	for id, m := range members {
		h = apply(t, h, []event.Change{event.New(identity.MemberAdded, identity.MemberV1{OrganizationID: "o", UserID: id,
			Role: m.Role, PlatformRole: m.PlatformRole, At: t0})}, nil)
	}
	o, _ = identity.LoadOrganization(h)
	if state == identity.StateDeleted || state == identity.StateErased {
		changes, err := o.SoftDelete(t0)
		h = apply(t, h, changes, err)
		o, _ = identity.LoadOrganization(h)
	}
	if state == identity.StateErased {
		changes, err := o.DeletePermanently(t0)
		h = apply(t, h, changes, err)
		o, _ = identity.LoadOrganization(h)
	}
	return o
}

func role(r string) identity.Member { return identity.Member{Role: r} }

func TestLastOwnerRule(t *testing.T) {
	tests := []struct {
		name    string
		state   string
		members map[string]identity.Member
		user    string
		refused bool
	}{
		{"the sole owner of an active organization", identity.StateActive, nil, "owner", true},
		{"one of two owners", identity.StateActive, map[string]identity.Member{"u": role("owner")}, "owner", false},
		{"an admin", identity.StateActive, map[string]identity.Member{"u": role("admin")}, "u", false},
		{"a non-member", identity.StateActive, nil, "u", false},
		{"the sole owner of a soft-deleted organization", identity.StateDeleted, nil, "owner", false},
		{"the sole owner of an erased organization", identity.StateErased, nil, "owner", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := orgWith(t, tc.state, false, tc.members)
			err := identity.CheckNotLastOwner([]*identity.Organization{o}, tc.user)
			if tc.refused != (err != nil) || (err != nil && (errs.KindOf(err) != errs.KindConflict || errCode(err) != "last_owner")) {
				t.Fatalf("CheckNotLastOwner: %v, want refused %v", err, tc.refused)
			}
			changes, err := o.RemoveForErasure(tc.user, true, t0)
			if tc.refused != (err != nil) {
				t.Fatalf("RemoveForErasure keeping the last owner: %v, want refused %v", err, tc.refused)
			}
			member := false
			if _, ok := o.Member(tc.user); ok {
				member = true
			}
			if !tc.refused && member != (len(changes) == 1 && changes[0].Type == identity.MemberRemoved) {
				t.Fatalf("a member is removed once, a non-member not at all: %+v", changes)
			}
			// Once the user is erased, the membership ends regardless.
			if changes, err := o.RemoveForErasure(tc.user, false, t0); err != nil || member != (len(changes) == 1) {
				t.Fatalf("RemoveForErasure after erasure: %+v %v", changes, err)
			}
		})
	}
	// Several organizations: one sole ownership is enough to refuse.
	shared := orgWith(t, identity.StateActive, false, map[string]identity.Member{"u": role("owner")})
	alone := orgWith(t, identity.StateActive, false, nil)
	if err := identity.CheckNotLastOwner([]*identity.Organization{shared, alone}, "owner"); errCode(err) != "last_owner" {
		t.Fatalf("sole owner of one of two organizations: %v", err)
	}
}

func TestActorNowReadsTheCurrentRole(t *testing.T) {
	members := map[string]identity.Member{"adm": role("member"), "ops": {Role: "member", PlatformRole: ""}}
	o := orgWith(t, identity.StateActive, false, members)
	admin := orgWith(t, identity.StateActive, true, map[string]identity.Member{"ops": {Role: "member"}})
	tests := []struct {
		name string
		org  *identity.Organization
		in   identity.Actor
		want identity.Actor
	}{
		{"a demoted admin acts as member", o, identity.Actor{UserID: "adm", Role: "admin"}, identity.Actor{UserID: "adm", Role: "member"}},
		{"a removed member has no role", o, identity.Actor{UserID: "gone", Role: "owner"}, identity.Actor{UserID: "gone"}},
		{"a key actor is unchanged", o, identity.Actor{Role: "admin"}, identity.Actor{Role: "admin"}},
		{"a platform role from elsewhere stays", o, identity.Actor{UserID: "root", PlatformRole: "platform_admin"},
			identity.Actor{UserID: "root", PlatformRole: "platform_admin"}},
		{"a platform role revoked in the administration organization is gone", admin,
			identity.Actor{UserID: "ops", Role: "member", PlatformRole: "platform_admin"}, identity.Actor{UserID: "ops", Role: "member"}},
		{"the administration owner keeps its platform role", admin,
			identity.Actor{UserID: "owner", Role: "owner", PlatformRole: "platform_super_admin"},
			identity.Actor{UserID: "owner", Role: "owner", PlatformRole: "platform_super_admin"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.org.ActorNow(tc.in); got != tc.want {
				t.Fatalf("ActorNow(%+v) = %+v, want %+v", tc.in, got, tc.want)
			}
		})
	}
	// The ladder then decides with the current role: the demoted admin
	// promotes nobody.
	if _, err := o.SetMember(o.ActorNow(identity.Actor{UserID: "adm", Role: "admin"}), identity.Member{UserID: "ops", Role: "admin"}, t0); errs.KindOf(err) != errs.KindPermissionDenied {
		t.Fatalf("a demoted admin promoted a member: %v", err)
	}
}

func TestSignInAllowed(t *testing.T) {
	members := map[string]identity.Member{"adm": role("admin")}
	tests := []struct {
		name     string
		state    string
		user     string
		explicit bool
		want     bool
	}{
		{"a member of an active organization", identity.StateActive, "adm", false, true},
		{"a non-member", identity.StateActive, "x", true, false},
		{"an owner of a soft-deleted organization asking for it", identity.StateDeleted, "owner", true, true},
		{"an owner of a soft-deleted organization by default", identity.StateDeleted, "owner", false, false},
		{"an admin of a soft-deleted organization asking for it", identity.StateDeleted, "adm", true, false},
		{"an owner of an erased organization", identity.StateErased, "owner", true, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := orgWith(t, tc.state, false, members).SignInAllowed(tc.user, tc.explicit); got != tc.want {
				t.Fatalf("SignInAllowed = %v, want %v", got, tc.want)
			}
		})
	}
}
