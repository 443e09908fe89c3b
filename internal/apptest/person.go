package apptest

import (
	"context"
	"testing"
	"time"

	"github.com/platform/backend/commands"
	identitycmd "github.com/platform/backend/commands/identity"
	"github.com/platform/backend/domain/identity"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/internal/testenv"
)

// Person is a user of an organization with a role: a signed-in session's
// access token, and an API key the user minted (it acts as the user).
type Person struct {
	UserID, Session, Key string
}

// NewPerson adds a user with role to the organization (an owner's doing),
// signs it in (identity's sign-in) and mints a key as that user with the
// default scopes, through the identity commands the HTTP routes run.
func (h *Harness) NewPerson(t testing.TB, org, role string) Person {
	t.Helper()
	ctx := context.Background()
	system := commands.Meta{OrganizationID: org, Actor: eventstore.Actor{ID: "apptest", Type: "system"}}
	email, password := testenv.UniqueName(role)+"@example.test", "a long enough password"
	u, err := h.Identity().CreateUser(ctx, system, identity.Actor{Role: identity.RoleOwner},
		identitycmd.CreateUser{Email: email, Name: "Person " + role, Password: password, Role: role})
	if err != nil {
		t.Fatal(err)
	}
	var s identitycmd.SessionTokens
	// Sign-in finds a user by email in the accounts read model.
	Eventually(t, 15*time.Second, "sign-in of the new "+role, func() bool {
		s, err = h.Identity().Login(ctx, commands.Meta{}, identitycmd.Login{Email: email, Password: password, OrganizationID: org})
		return err == nil
	})
	key, err := h.Identity().CreateAPIKey(ctx, commands.Meta{OrganizationID: org, Actor: eventstore.Actor{ID: u.Value.UserID, Type: "user"}},
		identitycmd.CreateAPIKey{Name: role + "'s key", Scopes: DefaultScopes})
	if err != nil {
		t.Fatal(err)
	}
	return Person{UserID: u.Value.UserID, Session: s.AccessToken, Key: key.Value.Token}
}
