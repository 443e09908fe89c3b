package identity_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/domain/event/eventtest"
	"github.com/platform/backend/domain/identity"
)

func TestWorkspaces(t *testing.T) {
	now := time.Date(2026, 4, 10, 9, 0, 0, 0, time.UTC)
	const org = "org-1"
	load := identity.LoadWorkspaces(org)
	created := func(id, slug, name string) event.Change {
		return event.New(identity.WorkspaceCreated, identity.WorkspaceV1{OrganizationID: org, WorkspaceID: id, Slug: slug, Name: name, At: now})
	}
	str := func(s string) *string { return &s }

	t.Run("an organization starts with its default workspace, whose id is the organization's", func(t *testing.T) {
		w := eventtest.Given(t, load).Model()
		d := w.Default()
		if d.WorkspaceID != org || d.Slug != "default" || !d.Default || d.CreatedAt != nil || len(w.List()) != 1 {
			t.Fatalf("default workspace %+v, list %+v", d, w.List())
		}
	})
	t.Run("create", func(t *testing.T) {
		eventtest.Given(t, load).When(func(w *identity.Workspaces) ([]event.Change, error) {
			return w.Create(identity.NewWorkspace{ID: "w2", Slug: "brand-a", Name: " Brand A "}, now)
		}).Then(eventtest.Events(created("w2", "brand-a", "Brand A")))
	})
	t.Run("a slug is unique in the organization", func(t *testing.T) {
		eventtest.Given(t, load, created("w2", "brand-a", "A")).When(func(w *identity.Workspaces) ([]event.Change, error) {
			return w.Create(identity.NewWorkspace{ID: "w3", Slug: "brand-a", Name: "B"}, now)
		}).Then(eventtest.Conflict("workspace_slug_taken"))
		eventtest.Given(t, load).When(func(w *identity.Workspaces) ([]event.Change, error) {
			return w.Create(identity.NewWorkspace{ID: "w3", Slug: "default", Name: "B"}, now)
		}).Then(eventtest.Conflict("workspace_slug_taken"))
	})
	t.Run("bad slug and name", func(t *testing.T) {
		eventtest.Given(t, load).When(func(w *identity.Workspaces) ([]event.Change, error) {
			return w.Create(identity.NewWorkspace{ID: "w3", Slug: "Bad Slug", Name: " "}, now)
		}).Then(eventtest.Invalid("/slug", "/name"))
	})
	t.Run("at most 100 workspaces", func(t *testing.T) {
		var given []event.Change
		for i := 1; i < identity.MaxWorkspaces; i++ {
			given = append(given, created(fmt.Sprintf("w%d", i), fmt.Sprintf("ws-%d", i), "W"))
		}
		eventtest.Given(t, load, given...).When(func(w *identity.Workspaces) ([]event.Change, error) {
			return w.Create(identity.NewWorkspace{ID: "last", Slug: "last-one", Name: "L"}, now)
		}).Then(eventtest.Conflict("workspace_limit_reached"))
	})
	t.Run("rename name and slug; the same values change nothing", func(t *testing.T) {
		eventtest.Given(t, load, created("w2", "brand-a", "A")).When(func(w *identity.Workspaces) ([]event.Change, error) {
			return w.Rename("w2", str("brand-b"), nil, now)
		}).Then(eventtest.Events(event.New(identity.WorkspaceRenamed, identity.WorkspaceV1{OrganizationID: org, WorkspaceID: "w2", Slug: "brand-b", Name: "A", At: now})))
		eventtest.Given(t, load, created("w2", "brand-a", "A")).When(func(w *identity.Workspaces) ([]event.Change, error) {
			return w.Rename("w2", str("brand-a"), str("A"), now)
		}).Then(eventtest.NoEvents())
		eventtest.Given(t, load, created("w2", "brand-a", "A")).When(func(w *identity.Workspaces) ([]event.Change, error) {
			return w.Rename("w2", str("default"), nil, now)
		}).Then(eventtest.Conflict("workspace_slug_taken"))
		eventtest.Given(t, load).When(func(w *identity.Workspaces) ([]event.Change, error) {
			return w.Rename("nowhere", nil, str("x"), now)
		}).Then(eventtest.NotFound())
	})
	t.Run("the default workspace is not deleted; another one is, and its slug is free again", func(t *testing.T) {
		eventtest.Given(t, load, created("w2", "brand-a", "A")).When(func(w *identity.Workspaces) ([]event.Change, error) {
			return w.Delete(org, now)
		}).Then(eventtest.Conflict("default_workspace"))
		out := eventtest.Given(t, load, created("w2", "brand-a", "A")).When(func(w *identity.Workspaces) ([]event.Change, error) {
			return w.Delete("w2", now)
		}).Then(eventtest.Events(event.New(identity.WorkspaceDeleted, identity.WorkspaceV1{OrganizationID: org, WorkspaceID: "w2", Slug: "brand-a", Name: "A", At: now})))
		eventtest.GivenHistory(t, load, out.History()).When(func(w *identity.Workspaces) ([]event.Change, error) {
			return w.Create(identity.NewWorkspace{ID: "w3", Slug: "brand-a", Name: "A again"}, now)
		}).Then(eventtest.Events(created("w3", "brand-a", "A again")))
	})
	t.Run("default.set moves the default; the former default can then be deleted", func(t *testing.T) {
		out := eventtest.Given(t, load, created("w2", "brand-a", "A")).When(func(w *identity.Workspaces) ([]event.Change, error) {
			return w.SetDefault("w2", now)
		}).Then(eventtest.Events(event.New(identity.WorkspaceDefaultSet, identity.WorkspaceV1{OrganizationID: org, WorkspaceID: "w2", Slug: "brand-a", Name: "A", At: now})))
		s := eventtest.GivenHistory(t, load, out.History())
		if s.Model().Default().WorkspaceID != "w2" {
			t.Fatalf("default %+v", s.Model().Default())
		}
		s.When(func(w *identity.Workspaces) ([]event.Change, error) { return w.SetDefault("w2", now) }).Then(eventtest.NoEvents())
		s.When(func(w *identity.Workspaces) ([]event.Change, error) { return w.Delete(org, now) }).
			Then(eventtest.Events(event.New(identity.WorkspaceDeleted, identity.WorkspaceV1{OrganizationID: org, WorkspaceID: org, Slug: "default", Name: "Default", At: now})))
	})
}
