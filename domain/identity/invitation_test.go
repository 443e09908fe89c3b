package identity_test

import (
	"testing"
	"time"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/domain/event/eventtest"
	"github.com/platform/backend/domain/identity"
)

func newInvitation(id, emailHash, role string) identity.NewInvitation {
	return identity.NewInvitation{ID: id, OrganizationID: "o", SealedEmail: "enc:v1:x", EmailHash: emailHash, Role: role,
		InvitedBy: "inviter", CodeHash: "code-" + id}
}

func errCode(err error) string {
	if e, ok := errs.As(err); ok {
		return e.Code
	}
	return ""
}

func TestInvitationCreateLadder(t *testing.T) {
	for _, tc := range []struct {
		name  string
		actor identity.Actor
		role  string
		admin bool
		code  string // "" = allowed
	}{
		{"an admin invites a member", identity.Actor{Role: identity.RoleAdmin}, identity.RoleMember, false, ""},
		{"an admin invites an admin", identity.Actor{Role: identity.RoleAdmin}, identity.RoleAdmin, false, ""},
		{"an admin cannot invite a super_admin", identity.Actor{Role: identity.RoleAdmin}, identity.RoleSuperAdmin, false, "permission_denied"},
		{"an admin cannot invite an owner", identity.Actor{Role: identity.RoleAdmin}, identity.RoleOwner, false, "permission_denied"},
		{"a super_admin cannot invite an owner", identity.Actor{Role: identity.RoleSuperAdmin}, identity.RoleOwner, false, "permission_denied"},
		{"an owner invites an owner", identity.Actor{Role: identity.RoleOwner}, identity.RoleOwner, false, ""},
		{"a member cannot invite", identity.Actor{Role: identity.RoleMember}, identity.RoleGuest, false, "permission_denied"},
		{"a platform role is never invited", identity.Actor{Role: identity.RoleOwner}, identity.RolePlatformAdmin, true, "invalid_input"},
		{"an unknown role is refused", identity.Actor{Role: identity.RoleOwner}, "boss", false, "invalid_input"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, _ := identity.LoadInvitations(nil)
			changes, err := b.Create(tc.actor, newInvitation("i1", "eh", tc.role), tc.admin, testNow)
			if tc.code != "" {
				if errCode(err) != tc.code {
					t.Fatalf("want %s, got %v", tc.code, err)
				}
				return
			}
			if err != nil || len(changes) != 1 {
				t.Fatalf("create: %v", err)
			}
			p := changes[0].Payload.(identity.InvitationCreatedV1)
			if p.Role != tc.role || !p.ExpiresAt.Equal(testNow.Add(identity.InvitationTTL)) || p.SecretHash != "code-i1" {
				t.Fatalf("payload %+v", p)
			}
		})
	}
}

// invitationBook: i1 (email e1, member) pending; i2 (e2) accepted by u2;
// i3 (e3) revoked. All created at testNow.
func invitationBook(t *testing.T) []event.Recorded {
	t.Helper()
	owner := identity.Actor{Role: identity.RoleOwner}
	var h []event.Recorded
	step := func(f func(b *identity.Invitations) ([]event.Change, error)) {
		b, err := identity.LoadInvitations(h)
		if err != nil {
			t.Fatal(err)
		}
		c, err := f(b)
		if err != nil {
			t.Fatal(err)
		}
		h, _ = event.Append(h, c)
	}
	for _, id := range []string{"i1", "i2", "i3"} {
		step(func(b *identity.Invitations) ([]event.Change, error) {
			return b.Create(owner, newInvitation(id, "e"+id[1:], identity.RoleMember), false, testNow)
		})
	}
	step(func(b *identity.Invitations) ([]event.Change, error) { return b.Accept("i2", "code-i2", "u2", testNow) })
	step(func(b *identity.Invitations) ([]event.Change, error) { return b.Revoke(owner, "i3", "owner", testNow) })
	return h
}

func TestInvitationAccept(t *testing.T) {
	h := invitationBook(t)
	for _, tc := range []struct {
		name, id, code string
		at             time.Time
		want           string // "" = accepted
	}{
		{"a pending invitation is accepted", "i1", "code-i1", testNow.Add(time.Hour), ""},
		{"a wrong code is not found", "i1", "code-i2", testNow, "not_found"},
		{"an unknown invitation is not found", "i9", "code-i9", testNow, "not_found"},
		{"accepting twice fails", "i2", "code-i2", testNow, "invitation_accepted"},
		{"a revoked invitation fails", "i3", "code-i3", testNow, "invitation_revoked"},
		{"an expired invitation fails", "i1", "code-i1", testNow.Add(identity.InvitationTTL), "invitation_expired"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, _ := identity.LoadInvitations(h)
			changes, err := b.Accept(tc.id, tc.code, "u1", tc.at)
			if errCode(err) != tc.want {
				t.Fatalf("want %q, got %v", tc.want, err)
			}
			if tc.want != "" {
				return
			}
			after, _ := event.Append(h, changes)
			b, _ = identity.LoadInvitations(after)
			if _, err := b.Accept(tc.id, tc.code, "u1", tc.at); errCode(err) != "invitation_accepted" {
				t.Fatalf("second accept: %v", err)
			}
			if i, _ := b.Get(tc.id); i.State != identity.InvitationStateAccepted || i.AcceptedBy != "u1" {
				t.Fatalf("after accept: %+v", i)
			}
		})
	}
}

func TestInvitationListRevokeAndDuplicates(t *testing.T) {
	h := invitationBook(t)
	b, _ := identity.LoadInvitations(h)
	if pending := b.List(testNow, true); len(pending) != 1 || pending[0].InvitationID != "i1" {
		t.Fatalf("pending: %+v", pending)
	}
	if all := b.List(testNow, false); len(all) != 3 {
		t.Fatalf("all: %+v", all)
	}
	if pending := b.List(testNow.Add(identity.InvitationTTL), true); len(pending) != 0 {
		t.Fatalf("expired invitations listed as pending: %+v", pending)
	}
	owner, admin := identity.Actor{Role: identity.RoleOwner}, identity.Actor{Role: identity.RoleAdmin}
	if _, err := b.Create(owner, newInvitation("i4", "e1", identity.RoleGuest), false, testNow); errCode(err) != "invitation_pending" {
		t.Fatalf("a second pending invitation of one email: %v", err)
	}
	if _, err := b.Create(owner, newInvitation("i4", "e1", identity.RoleGuest), false, testNow.Add(identity.InvitationTTL)); err != nil {
		t.Fatalf("a new invitation after the old one expired: %v", err)
	}
	for _, tc := range []struct {
		name  string
		actor identity.Actor
		id    string
		want  string // "" = ok
		n     int    // events
	}{
		{"revoking a pending invitation", admin, "i1", "", 1},
		{"revoking twice changes nothing", admin, "i3", "", 0},
		{"an accepted invitation cannot be revoked", owner, "i2", "invitation_accepted", 0},
		{"an unknown invitation", owner, "i9", "not_found", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := b.Revoke(tc.actor, tc.id, "x", testNow)
			if errCode(err) != tc.want || len(c) != tc.n {
				t.Fatalf("want %q and %d events, got %v and %d", tc.want, tc.n, err, len(c))
			}
		})
	}
	// An admin may not revoke an owner invitation an owner made.
	c, _ := b.Create(owner, newInvitation("i5", "e5", identity.RoleOwner), false, testNow)
	after, _ := event.Append(h, c)
	b, _ = identity.LoadInvitations(after)
	if _, err := b.Revoke(admin, "i5", "x", testNow); errCode(err) != "permission_denied" {
		t.Fatalf("admin revokes an owner invitation: %v", err)
	}
}

func TestAddInvited(t *testing.T) {
	o, _ := identity.LoadOrganization(nil)
	created, err := o.Create(identity.NewOrganization{ID: "o", Name: "O", SealedName: "enc:v1:n", Slug: "org-one", Owner: "owner"}, testNow)
	if err != nil {
		t.Fatal(err)
	}
	h := eventtest.History(t, created...)
	o, _ = identity.LoadOrganization(h)
	for _, tc := range []struct {
		name, user, role, want string
	}{
		{"a new member with the invited role", "u1", identity.RoleAdmin, ""},
		{"an existing member", "owner", identity.RoleMember, "already_member"},
		{"a platform role is refused", "u2", identity.RolePlatformSuperAdmin, "invalid_input"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := o.AddInvited(tc.user, tc.role, testNow)
			if errCode(err) != tc.want {
				t.Fatalf("want %q, got %v", tc.want, err)
			}
			if tc.want == "" {
				after, _ := event.Append(h, c)
				o2, _ := identity.LoadOrganization(after)
				if m, ok := o2.Member(tc.user); !ok || m.Role != tc.role || m.PlatformRole != "" {
					t.Fatalf("member %+v %v", m, ok)
				}
			}
		})
	}
	deleted, _ := o.SoftDelete(testNow)
	gone, _ := event.Append(h, deleted)
	o, _ = identity.LoadOrganization(gone)
	if _, err := o.AddInvited("u3", identity.RoleMember, testNow); errCode(err) != "organization_deleted" {
		t.Fatalf("a deleted organization takes members: %v", err)
	}
}
