package identity_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/platform/backend/commands"
	identitycmd "github.com/platform/backend/commands/identity"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/eventstore"
)

// TestValidateFailsClosed: when the event store cannot answer, validation of
// every credential kind is 503 dependency_unavailable, never a pass and never
// a 401 that would look like a bad token; malformed tokens are 401 without
// touching the store.
func TestValidateFailsClosed(t *testing.T) {
	pool, err := pgxpool.New(context.Background(), "postgres://nobody@127.0.0.1:1/none?connect_timeout=1")
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	h := identitycmd.NewHandlers(eventstore.NewStore(pool, eventstore.Topics{}), nil, identitycmd.WithKeys(pool),
		identitycmd.WithDirectory(stubDirectory{}))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	id := "01900000-0000-7000-8000-000000000001"
	tests := []struct {
		token string
		want  errs.Kind
	}{
		{"pat_" + id + ".secret", errs.KindUnavailable},
		{"pk_" + id + ".secret", errs.KindUnavailable},
		{"pat_not-a-uuid.secret", errs.KindAuthenticationRequired},
		{"pat_" + id + ".", errs.KindAuthenticationRequired},
		{"prt_" + id + ".secret", errs.KindAuthenticationRequired}, // refresh tokens are not access tokens
		{"garbage", errs.KindAuthenticationRequired},
	}
	for _, tc := range tests {
		p, err := h.Validate(ctx, tc.token)
		if errs.KindOf(err) != tc.want || p.ID != "" {
			t.Errorf("Validate(%q) = %+v, %v; want kind %d", tc.token, p, err, tc.want)
		}
	}
	if _, err := h.Login(ctx, commands.Meta{}, identitycmd.Login{Email: "a@example.com", Password: "x"}); errs.KindOf(err) != errs.KindUnavailable {
		t.Errorf("login with the store down: %v", err)
	}
}

// stubDirectory answers nothing; sign-in reaches the (down) store first.
type stubDirectory struct{}

func (stubDirectory) OrganizationsOf(context.Context, string) ([]string, error) { return nil, nil }
func (stubDirectory) Tombstones(context.Context, time.Time, identitycmd.Tombstone, int) ([]identitycmd.Tombstone, error) {
	return nil, nil
}
func (stubDirectory) PurgeAudit(context.Context, time.Time, int) (int64, error) { return 0, nil }
