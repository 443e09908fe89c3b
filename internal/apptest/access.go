package apptest

import (
	"context"
	"testing"

	"github.com/platform/backend/commands"
	identitycmd "github.com/platform/backend/commands/identity"
	"github.com/platform/backend/domain/identity"
	"github.com/platform/backend/eventstore"
)

// system is the actor of what a test sets up through the identity commands
// (not a member's doing).
func system(org string) commands.Meta {
	return commands.Meta{OrganizationID: org, Actor: eventstore.Actor{ID: "test", Type: "system"}}
}

// Key mints an API key of an organization with scopes, bound to workspaces
// when bindings are given: the narrow credentials of the isolation tests.
func (h *Harness) Key(t testing.TB, org string, scopes []string, bindings ...identity.ResourceBinding) string {
	t.Helper()
	k, err := h.Identity().CreateAPIKey(context.Background(), system(org),
		identitycmd.CreateAPIKey{Name: "test", Scopes: scopes, ResourceBindings: bindings})
	if err != nil {
		t.Fatal(err)
	}
	return k.Value.Token
}

// Workspace creates a workspace of an organization (its name is the slug)
// and answers its id.
func (h *Harness) Workspace(t testing.TB, org, slug string) string {
	t.Helper()
	res, err := h.Access().CreateWorkspace(context.Background(), system(org), identitycmd.CreateWorkspace{Slug: slug, Name: slug})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range res.Value.Workspaces {
		if w.Slug == slug {
			return w.WorkspaceID
		}
	}
	t.Fatalf("workspace %s not created: %+v", slug, res.Value)
	return ""
}
