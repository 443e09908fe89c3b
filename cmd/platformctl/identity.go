package main

import (
	"context"
	"fmt"
	"os"

	"github.com/jackc/pgx/v5/pgxpool"

	identitycmd "github.com/platform/backend/commands/identity"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/internal/app"
)

// openIdentity opens the identity commands straight on DATABASE_URL's
// event store (migrated), for the commands that cannot go through an API
// that needs a credential: bootstrap, key, privacy-maintenance. The caller
// closes the pool.
func openIdentity(ctx context.Context) (*identitycmd.Handlers, *pgxpool.Pool, error) {
	url := os.Getenv("DATABASE_URL")
	if url == "" {
		return nil, nil, fmt.Errorf("DATABASE_URL is required")
	}
	pool, err := app.OpenPool(ctx, url)
	if err != nil {
		return nil, nil, err
	}
	for _, m := range []func(context.Context, *pgxpool.Pool) error{eventstore.Migrate, identitycmd.Migrate} {
		if err := m(ctx, pool); err != nil {
			pool.Close()
			return nil, nil, err
		}
	}
	h := identitycmd.NewHandlers(eventstore.NewStore(pool, eventstore.Topics{Prefix: os.Getenv("PLATFORM_TOPIC_PREFIX")}), nil,
		identitycmd.WithKeys(pool))
	return h, pool, nil
}
