package identity_test

import (
	"testing"
	"time"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/domain/event/eventtest"
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
	key := identity.NewAPIKey{KeyID: "k", OrganizationID: "o", Name: "n", Scopes: []string{"status:read"}, SecretHash: "h"}
	created := event.New(identity.APIKeyCreated, identity.APIKeyCreatedV1{KeyID: "k", OrganizationID: "o", Name: "n",
		Scopes: []string{"status:read"}, SecretHash: "h", CreatedAt: now})
	revoked := event.New(identity.APIKeyRevoked, identity.APIKeyRevokedV1{KeyID: "k", RevokedAt: now})
	type apiKey = *identity.APIKey
	create := func(n identity.NewAPIKey) func(apiKey) ([]event.Change, error) {
		return func(k apiKey) ([]event.Change, error) { return k.Create(n, now) }
	}
	revoke := func(k apiKey) ([]event.Change, error) { return k.Revoke(now) }
	tests := []struct {
		name  string
		given []event.Change
		when  func(apiKey) ([]event.Change, error)
		then  eventtest.Then
	}{
		{name: "revoking a missing key", when: revoke, then: eventtest.NotFound()},
		{name: "a scope that is not resource:action", when: create(identity.NewAPIKey{KeyID: "k", OrganizationID: "o", Name: "n", Scopes: []string{"nocolon"}}),
			then: eventtest.Invalid("/scopes")},
		{name: "create", when: create(key), then: eventtest.Events(created)},
		{name: "create twice", given: []event.Change{created}, when: create(key), then: eventtest.Conflict("api_key_exists")},
		{name: "revoke", given: []event.Change{created}, when: revoke, then: eventtest.Events(revoked)},
		{name: "revoking twice changes nothing", given: []event.Change{created, revoked}, when: revoke, then: eventtest.NoEvents()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			eventtest.Given(t, identity.LoadAPIKey, tt.given...).When(tt.when).Then(tt.then)
		})
	}
	if k := eventtest.Given(t, identity.LoadAPIKey, created).Model(); !k.Active() {
		t.Fatal("a created key is active")
	}
	if k := eventtest.Given(t, identity.LoadAPIKey, created, revoked).Model(); k.Active() || k.StateName() != identity.KeyRevoked {
		t.Fatal("a revoked key is not active")
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
