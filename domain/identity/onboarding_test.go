package identity_test

import (
	"testing"
	"time"

	"github.com/platform/backend/domain/event/eventtest"
	"github.com/platform/backend/domain/identity"
)

func TestDecideAddUser(t *testing.T) {
	tests := []struct {
		name                         string
		account, member, pendingHere bool
		want                         string
	}{
		{"new address", false, false, false, identity.AddUserCreate},
		{"account elsewhere", true, false, false, identity.AddUserInvite},
		{"member here", true, true, false, identity.AddUserAlready},
		{"account elsewhere, invited here", true, false, true, identity.AddUserAlready},
		// A pending invitation answers the same with or without an account:
		// otherwise inviting first and adding next would tell them apart.
		{"new address, invited here", false, false, true, identity.AddUserAlready},
	}
	for _, tt := range tests {
		if got := identity.DecideAddUser(tt.account, tt.member, tt.pendingHere); got != tt.want {
			t.Errorf("%s: %s, want %s", tt.name, got, tt.want)
		}
	}
}

func TestInvitationsPendingFor(t *testing.T) {
	b, _ := identity.LoadInvitations(nil)
	owner := identity.Actor{UserID: "o", Role: identity.RoleOwner}
	ch, err := b.Create(owner, identity.NewInvitation{ID: "i1", OrganizationID: "org", SealedEmail: "enc:v1:x", EmailHash: "h1",
		Role: "member", InvitedBy: "o", CodeHash: "c"}, false, testNow)
	if err != nil {
		t.Fatal(err)
	}
	b, _ = identity.LoadInvitations(eventtest.History(t, ch...))
	if !b.PendingFor("h1", testNow) || b.PendingFor("h2", testNow) || b.PendingFor("h1", testNow.Add(identity.InvitationTTL)) {
		t.Fatal("pending: the invited hash until it expires, nobody else")
	}
}

func TestSignupClaimCheck(t *testing.T) {
	ok := identity.SignupClaim{UserID: "u", OrganizationID: "o", Email: "a@b.test", PasswordHash: "$argon2id$...", OrganizationSlug: "acme",
		ExpiresAt: testNow.Add(identity.SignupTTL)}
	if err := ok.Check(testNow); err != nil {
		t.Fatal(err)
	}
	expired := ok
	expired.ExpiresAt = testNow.Add(-time.Second)
	incomplete := ok
	incomplete.PasswordHash = ""
	for _, c := range []identity.SignupClaim{expired, incomplete, {}} {
		if err := c.Check(testNow); err != identity.ErrSignupTokenInvalid {
			t.Errorf("%+v: %v", c, err)
		}
	}
}
