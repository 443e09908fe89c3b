package identity_test

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/platform/backend/commands"
	identitycmd "github.com/platform/backend/commands/identity"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	domain "github.com/platform/backend/domain/identity"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/internal/apptest"
)

// actProcess is one process's validation: its own store and head watch
// on the shared database, as platformd builds them.
func actProcess(t *testing.T, pool *pgxpool.Pool, bound time.Duration) (*identitycmd.Handlers, *eventstore.HeadWatch) {
	t.Helper()
	store := eventstore.NewStore(pool, eventstore.Topics{})
	store.NotifyHeads(identitycmd.WatchedStreamTypes...)
	w := eventstore.NewHeadWatch(store, eventstore.HeadWatchConfig{Bound: bound}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = w.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	apptest.Eventually(t, 10*time.Second, "the head watch to listen", w.Listening)
	return identitycmd.NewHandlers(store, nil, identitycmd.WithHeads(w)), w
}

// TestValidationAnswerAcrossProcesses: two processes keep a key's answer
// (validated, heads from their watches' memory); the first revokes it. The
// first refuses the key at once, the second for every validation it starts
// later than the head watch's bound after the revocation returned.
func TestValidationAnswerAcrossProcesses(t *testing.T) {
	pool, _ := apptest.Infra(t, "answers", []func(context.Context, *pgxpool.Pool) error{eventstore.Migrate},
		func(eventstore.KafkaConfig) []string { return nil })
	const bound = 100 * time.Millisecond
	a, _ := actProcess(t, pool, bound)
	b, watchB := actProcess(t, pool, bound)
	ctx := context.Background()
	seed := eventstore.NewStore(pool, eventstore.Topics{})
	seed.NotifyHeads(identitycmd.WatchedStreamTypes...)
	for _, s := range []struct {
		typ, id string
		change  event.Change
	}{
		{domain.StreamOrganization, "org-a", event.New(domain.OrganizationCreated, domain.OrganizationCreatedV1{OrganizationID: "org-a", Name: "sealed", Slug: "org-a", CreatedAt: t0})},
		{domain.StreamOrganization, "org-a", event.New(domain.MemberAdded, domain.MemberV1{OrganizationID: "org-a", UserID: "user-1", Role: domain.RoleOwner, At: t0})},
		{domain.StreamUser, "user-1", event.New(domain.UserCreated, domain.UserCreatedV1{UserID: "user-1", OrganizationID: "org-a", CreatedAt: t0})},
	} {
		if _, err := commands.Run(ctx, seed, commands.Meta{OrganizationID: "org-a", Actor: eventstore.Actor{ID: "system", Type: "system"}}, s.typ, s.id,
			func([]event.Recorded) ([]event.Change, struct{}, error) {
				return []event.Change{s.change}, struct{}{}, nil
			}); err != nil {
			t.Fatal(err)
		}
	}
	key, err := a.CreateAPIKey(ctx, keyMeta("org-a"), identitycmd.CreateAPIKey{Name: "ci", Service: "status", Scopes: []string{"status:read"}})
	if err != nil {
		t.Fatal(err)
	}
	token := key.Value.Token
	// Both processes keep the answer, and the second reads its heads from
	// memory (the path a kept answer takes).
	apptest.Eventually(t, 10*time.Second, "the second process to validate from memory", func() bool {
		for _, h := range []*identitycmd.Handlers{a, b} {
			if _, err := h.Validate(ctx, token); err != nil {
				t.Fatal(err)
			}
		}
		before, _ := watchB.Reads()
		if _, err := b.Validate(ctx, token); err != nil {
			t.Fatal(err)
		}
		after, _ := watchB.Reads()
		return after > before
	})

	if _, err := a.RevokeAPIKey(ctx, keyMeta("org-a"), identitycmd.RevokeAPIKey{KeyID: key.Value.KeyID}); err != nil {
		t.Fatal(err)
	}
	revoked := time.Now()
	if _, err := a.Validate(ctx, token); errs.KindOf(err) != errs.KindAuthenticationRequired {
		t.Fatalf("the revoking process, at once: %v", err)
	}
	var late, refused int
	var lastAccepted time.Duration = -1
	for time.Since(revoked) < bound+300*time.Millisecond {
		sent := time.Now()
		_, err := b.Validate(ctx, token)
		switch {
		case err == nil:
			lastAccepted = sent.Sub(revoked)
			if lastAccepted > bound {
				late++
			}
		case errs.KindOf(err) == errs.KindAuthenticationRequired:
			refused++
		default:
			t.Fatal(err)
		}
	}
	t.Logf("the other process accepted the key last %s after the revocation returned (bound %s); %d refusals", lastAccepted, bound, refused)
	if late > 0 || refused == 0 {
		t.Fatalf("%d validations started past the bound were accepted (%d refused)", late, refused)
	}
}
