package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/platform/backend/commands"
	identitycmd "github.com/platform/backend/commands/identity"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/internal/app"
)

// DefaultScopes are what the demo key of `make run` holds.
const DefaultScopes = "status:read,status:write,status:poll,history:read,projections:read,projections:replay,api_keys:write"

// bootstrap creates an organization, its owner and an API key through the
// identity commands, straight on the event store: the first credential
// cannot come from an API that needs one.
func bootstrap(args []string) error {
	fs := flag.NewFlagSet("bootstrap", flag.ContinueOnError)
	name := fs.String("org-name", "Demo Organization", "organization name")
	slug := fs.String("slug", "demo", "organization slug")
	email := fs.String("email", "owner@demo.example", "owner email")
	scopes := fs.String("scopes", DefaultScopes, "comma-separated scopes of the key")
	if err := fs.Parse(args); err != nil {
		return err
	}
	url := os.Getenv("DATABASE_URL")
	if url == "" {
		return fmt.Errorf("DATABASE_URL is required")
	}
	ctx := context.Background()
	pool, err := app.OpenPool(ctx, url)
	if err != nil {
		return err
	}
	defer pool.Close()
	if err := eventstore.Migrate(ctx, pool); err != nil {
		return err
	}
	h := identitycmd.NewHandlers(eventstore.NewStore(pool, eventstore.Topics{Prefix: os.Getenv("PLATFORM_TOPIC_PREFIX")}), nil)
	system := commands.Meta{Actor: eventstore.Actor{ID: "platformctl", Type: "system"}}
	org, err := h.CreateOrganization(ctx, system, identitycmd.CreateOrganization{Name: *name, Slug: *slug})
	if err != nil {
		return err
	}
	m := commands.Meta{OrganizationID: org.Value.OrganizationID, Actor: system.Actor}
	user, err := h.CreateUser(ctx, m, identitycmd.CreateUser{Email: *email, Role: "owner"})
	if err != nil {
		return err
	}
	m.Actor = eventstore.Actor{ID: user.Value.UserID, Type: "user"}
	key, err := h.CreateAPIKey(ctx, m, identitycmd.CreateAPIKey{Name: "bootstrap", Scopes: strings.Split(*scopes, ",")})
	if err != nil {
		return err
	}
	return json.NewEncoder(os.Stdout).Encode(map[string]any{
		"organization_id": org.Value.OrganizationID, "user_id": user.Value.UserID, "key_id": key.Value.KeyID, "api_key": key.Value.Token,
	})
}
