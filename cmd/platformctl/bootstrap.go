package main

import (
	"context"
	"flag"
	"os"
	"strings"

	"github.com/platform/backend/commands"
	identitycmd "github.com/platform/backend/commands/identity"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/internal/app"
	"github.com/platform/backend/internal/module"
)

// Default key scopes, from the modules' declarations. An operator key (of
// the administration organization) holds the platform scopes besides a
// tenant's; a tenant organization's key gets only tenant scopes, since
// platform scopes in it would never apply.
var (
	OperatorScopes = strings.Join(module.OperatorScopes(app.Modules()), ",")
	TenantScopes   = strings.Join(module.TenantScopes(app.Modules()), ",")
)

// bootstrap creates the first organization (by default the platform
// administration organization), its owner and an API key through the
// identity commands, straight on the event store: the first credential
// cannot come from an API that needs one. The owner can sign in (POST /login)
// when a password is given (--password or PLATFORM_BOOTSTRAP_PASSWORD).
func bootstrap(args []string) error {
	fs := flag.NewFlagSet("bootstrap", flag.ContinueOnError)
	name := fs.String("org-name", "Demo Organization", "organization name")
	slug := fs.String("slug", "demo", "organization slug")
	email := fs.String("email", "owner@demo.example", "owner email")
	password := fs.String("password", os.Getenv("PLATFORM_BOOTSTRAP_PASSWORD"), "owner password (optional; 10+ characters)")
	admin := fs.Bool("administration", true, "make it the platform administration organization (its owner is platform_super_admin)")
	scopes := fs.String("scopes", "", "comma-separated scopes of the key (default: an operator's, or with --administration=false a tenant's)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *scopes == "" {
		*scopes = defaultScopes(*admin)
	}
	ctx := context.Background()
	h, pool, err := openIdentity(ctx)
	if err != nil {
		return err
	}
	defer pool.Close()
	system := commands.Meta{Actor: eventstore.Actor{ID: "platformctl", Type: "system"}}
	out, err := h.Bootstrap(ctx, system, identitycmd.Bootstrap{OrganizationName: *name, Slug: *slug, Email: *email,
		Password: *password, Administration: *admin})
	if err != nil {
		return err
	}
	m := commands.Meta{OrganizationID: out.Organization.OrganizationID, Actor: eventstore.Actor{ID: out.User.UserID, Type: "user"}}
	key, err := h.CreateAPIKey(ctx, m, identitycmd.CreateAPIKey{Name: "bootstrap", Scopes: strings.Split(*scopes, ",")})
	if err != nil {
		return err
	}
	return printKey(out.Organization.OrganizationID, out.User.UserID, key.Value, out.Organization.Administration)
}
