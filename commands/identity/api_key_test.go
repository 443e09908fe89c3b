package identity_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/platform/backend/commands"
	identitycmd "github.com/platform/backend/commands/identity"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	domain "github.com/platform/backend/domain/identity"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/eventstore/memstore"
)

// Unit tests of the API key commands on the in-memory event store (the
// bootstrap path: Handlers.CreateAPIKey; HTTP goes through Access, whose
// option calculation its integration tests cover).

var t0 = time.Date(2026, 5, 2, 10, 0, 0, 0, time.UTC)

// keyHandlers are handlers on an in-memory store with an active
// organization "org-a" (owner user-1) and a soft-deleted "org-gone".
func keyHandlers(t *testing.T) (*identitycmd.Handlers, *memstore.Store) {
	t.Helper()
	store := memstore.New(func() time.Time { return t0 })
	seed := func(streamType, streamID, org string, changes ...event.Change) {
		m := commands.Meta{OrganizationID: org, Actor: eventstore.Actor{ID: "system", Type: "system"}}
		if _, err := commands.Run(context.Background(), store, m, streamType, streamID,
			func([]event.Recorded) ([]event.Change, struct{}, error) { return changes, struct{}{}, nil }); err != nil {
			t.Fatal(err)
		}
	}
	created := func(org string) event.Change {
		return event.New(domain.OrganizationCreated, domain.OrganizationCreatedV1{OrganizationID: org, Name: "sealed", Slug: org, CreatedAt: t0})
	}
	seed(domain.StreamOrganization, "org-a", "org-a", created("org-a"),
		event.New(domain.MemberAdded, domain.MemberV1{OrganizationID: "org-a", UserID: "user-1", Role: domain.RoleOwner, At: t0}))
	seed(domain.StreamUser, "user-1", "org-a", event.New(domain.UserCreated, domain.UserCreatedV1{UserID: "user-1", OrganizationID: "org-a", CreatedAt: t0}))
	seed(domain.StreamOrganization, "org-gone", "org-gone", created("org-gone"),
		event.New(domain.OrganizationDeleted, domain.OrganizationChangedV1{OrganizationID: "org-gone", At: t0}))
	return identitycmd.NewHandlers(store, func() time.Time { return t0 }), store
}

func keyMeta(org string) commands.Meta {
	return commands.Meta{OrganizationID: org, Actor: eventstore.Actor{ID: "user-1", Type: "user"}}
}

func TestCreateAPIKey(t *testing.T) {
	ctx := context.Background()
	in := identitycmd.CreateAPIKey{Name: "ci", Service: "status", Scopes: []string{"status:read"}}
	tests := []struct {
		name     string
		org      string
		in       identitycmd.CreateAPIKey
		wantCode string
	}{
		{name: "an active organization's key", org: "org-a", in: in},
		{name: "a missing organization", org: "org-none", in: in, wantCode: "not_found"},
		{name: "a soft-deleted organization", org: "org-gone", in: in, wantCode: "organization_deleted"},
		{name: "a scope that is not resource:action", org: "org-a", in: identitycmd.CreateAPIKey{Name: "ci", Service: "status", Scopes: []string{"read"}},
			wantCode: "invalid_input"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, store := keyHandlers(t)
			res, err := h.CreateAPIKey(ctx, keyMeta(tt.org), tt.in)
			if errs.CodeOf(err) != tt.wantCode {
				t.Fatalf("want %q, got %v", tt.wantCode, err)
			}
			if err != nil {
				return
			}
			k := res.Value
			if k.State != domain.KeyActive || k.OrganizationID != tt.org || k.CreatedBy != "user-1" || k.SecretHash != "" ||
				!strings.HasPrefix(k.Token, identitycmd.TokenPrefix+k.KeyID+".") || res.Position != (eventstore.Position{StreamID: k.KeyID, Version: 1}) {
				t.Fatalf("created %+v at %v", k, res.Position)
			}
			events, _ := store.Load(ctx, k.KeyID)
			if len(events) != 1 || strings.Contains(string(events[0].Payload), k.Token[len(identitycmd.TokenPrefix+k.KeyID+"."):]) {
				t.Fatalf("the stream keeps the secret's hash only: %s", events[0].Payload)
			}
		})
	}
}

func TestCreateAPIKeyReplayOmitsTheToken(t *testing.T) {
	ctx := context.Background()
	h, _ := keyHandlers(t)
	m := keyMeta("org-a")
	m.IdempotencyKey, m.RequestHash = "k1", "h1"
	in := identitycmd.CreateAPIKey{Name: "ci", Service: "status", Scopes: []string{"status:read"}}
	first, err := h.CreateAPIKey(ctx, m, in)
	if err != nil {
		t.Fatal(err)
	}
	again, err := h.CreateAPIKey(ctx, m, in)
	if err != nil {
		t.Fatal(err)
	}
	if !again.Replayed || again.Value.KeyID != first.Value.KeyID || again.Value.Token != "" || first.Value.Token == "" {
		t.Fatalf("a replay answers the same key without its token (shown once): %+v then %+v", first, again)
	}
}

func TestRevokeAPIKey(t *testing.T) {
	ctx := context.Background()
	h, store := keyHandlers(t)
	created, err := h.CreateAPIKey(ctx, keyMeta("org-a"), identitycmd.CreateAPIKey{Name: "ci", Service: "status", Scopes: []string{"status:read"}})
	if err != nil {
		t.Fatal(err)
	}
	id := created.Value.KeyID
	if p, err := h.Validate(ctx, created.Value.Token); err != nil || p.ID != id || p.OrganizationID != "org-a" {
		t.Fatalf("a new key validates: %+v, %v", p, err)
	}
	steps := []struct {
		name        string
		org, keyID  string
		wantVersion int64
		wantCode    string
	}{
		{name: "revoking ends the key", org: "org-a", keyID: id, wantVersion: 2},
		{name: "revoking twice changes nothing", org: "org-a", keyID: id, wantVersion: 2},
		{name: "another tenant's key is missing", org: "org-b", keyID: id, wantCode: "not_found"},
		{name: "a missing key", org: "org-a", keyID: "01900000-0000-7000-8000-000000000009", wantCode: "not_found"},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			res, err := h.RevokeAPIKey(ctx, keyMeta(s.org), identitycmd.RevokeAPIKey{KeyID: s.keyID})
			if errs.CodeOf(err) != s.wantCode {
				t.Fatalf("want %q, got %v", s.wantCode, err)
			}
			if err != nil {
				return
			}
			if res.Value.State != domain.KeyRevoked || res.Value.KeyID != id || res.Value.Token != "" || res.Position.Version != s.wantVersion {
				t.Fatalf("revoked %+v at %v", res.Value, res.Position)
			}
		})
	}
	if _, err := h.Validate(ctx, created.Value.Token); errs.KindOf(err) != errs.KindAuthenticationRequired {
		t.Fatalf("a revoked key fails validation at once: %v", err)
	}
	if heads, _ := store.Heads(ctx, id); heads[id] != 2 {
		t.Fatalf("heads %v", heads)
	}
}
