package identity_test

import (
	"testing"
	"time"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/domain/identity"
)

func TestValidSlug(t *testing.T) {
	tests := map[string]bool{
		"abc": true, "a-b-c": true, "team42": true, "a23456789012345678901234567890123456789012345678": true,
		"ab": false, "a234567890123456789012345678901234567890123456789": false, "-abc": false, "abc-": false,
		"a--b": false, "ABC": false, "a_b": false, "": false, "ab c": false,
	}
	for slug, want := range tests {
		if got := identity.ValidSlug(slug); got != want {
			t.Errorf("ValidSlug(%q) = %v, want %v", slug, got, want)
		}
	}
}

func TestAPIKeyLifecycle(t *testing.T) {
	now := time.Unix(100, 0).UTC()
	k, _ := identity.LoadAPIKey(nil)
	if _, err := k.Revoke(now); errs.KindOf(err) != errs.KindNotFound {
		t.Fatalf("revoking a missing key: %v", err)
	}
	if _, err := k.Create(identity.NewAPIKey{KeyID: "k", OrganizationID: "o", Name: "n", Scopes: []string{"nocolon"}}, now); errs.KindOf(err) != errs.KindInvalidInput {
		t.Fatalf("bad scope: %v", err)
	}
	created, err := k.Create(identity.NewAPIKey{KeyID: "k", OrganizationID: "o", Name: "n", Scopes: []string{"status:read"}, SecretHash: "h"}, now)
	if err != nil || len(created) != 1 || created[0].Type != identity.APIKeyCreated {
		t.Fatalf("create: %v %v", created, err)
	}
	history, _ := event.Append(nil, created)
	k, _ = identity.LoadAPIKey(history)
	if !k.Active() {
		t.Fatal("a created key is active")
	}
	revoked, err := k.Revoke(now)
	if err != nil || len(revoked) != 1 || revoked[0].Type != identity.APIKeyRevoked {
		t.Fatalf("revoke: %v %v", revoked, err)
	}
	history, _ = event.Append(history, revoked)
	k, _ = identity.LoadAPIKey(history)
	if k.Active() || k.StateName() != identity.KeyRevoked {
		t.Fatal("a revoked key is not active")
	}
	if again, err := k.Revoke(now); err != nil || len(again) != 0 {
		t.Fatalf("revoking twice changes nothing: %v %v", again, err)
	}
}

func TestPrincipalAllows(t *testing.T) {
	p := identity.Principal{Permissions: []string{"status.status:read", "ops.*:read"}}
	if !p.Allows("status.status:read") || p.Allows("status.status:write") || p.Allows("dashboard.status:read") {
		t.Fatal("permissions are exact per application")
	}
	if !p.Allows("ops.history:read") || p.Allows("ops.history:write") {
		t.Fatal("patterns match per segment")
	}
	if (identity.Principal{Scopes: []string{"*"}}).Allows("status.status:read") {
		t.Fatal("scopes alone grant nothing: validation evaluates them into permissions")
	}
}

func TestUserCreateChecksEmailAndClaimsItsHash(t *testing.T) {
	u, _ := identity.LoadUser(nil)
	if _, err := u.Create(identity.NewUser{ID: "u", Email: "not-an-email"}, time.Now()); errs.KindOf(err) != errs.KindInvalidInput {
		t.Fatalf("bad email: %v", err)
	}
	changes, err := u.Create(identity.NewUser{ID: "u", HomeOrganizationID: "o", Email: "A@Example.com", EmailHash: "h1",
		SealedEmail: "enc:v1:x"}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if len(changes[0].Unique) != 1 || changes[0].Unique[0] != (event.Unique{Kind: "email", Value: "h1"}) {
		t.Fatalf("claims %+v, want the email hash", changes[0].Unique)
	}
	if p := changes[0].Payload.(identity.UserCreatedV1); p.Email != "enc:v1:x" {
		t.Fatalf("the event keeps the sealed email only, got %q", p.Email)
	}
}
