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
)

// defaultScopes are a new key's scopes: an operator's or a tenant's.
func defaultScopes(administration bool) string {
	if administration {
		return OperatorScopes
	}
	return TenantScopes
}

// scopes prints the scopes a new key gets by default, comma-separated:
// scripts compare them with a kept key's (scripts/demo.sh makes the demo
// keys again when the platform gained scopes since).
func scopes(args []string) error {
	fs := flag.NewFlagSet("scopes", flag.ContinueOnError)
	admin := fs.Bool("administration", true, "an operator key's (the administration organization's); false: a tenant's")
	if err := fs.Parse(args); err != nil {
		return err
	}
	_, err := fmt.Println(defaultScopes(*admin))
	return err
}

// key makes another API key of an existing organization, as its user,
// straight on the event store (like bootstrap): the way back in when the
// keys at hand lack scopes the platform has gained. It prints what
// bootstrap prints.
func key(args []string) error {
	fs := flag.NewFlagSet("key", flag.ContinueOnError)
	org := fs.String("org", "", "the organization's id (required)")
	user := fs.String("user", "", "the id of the organization's user the key acts for (required)")
	admin := fs.Bool("administration", true, "default scopes of an operator key; false: a tenant's")
	list := fs.String("scopes", "", "comma-separated scopes (default: see --administration)")
	name := fs.String("name", "platformctl", "the key's name")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *org == "" || *user == "" {
		return fmt.Errorf("--org and --user are required")
	}
	if *list == "" {
		*list = defaultScopes(*admin)
	}
	ctx := context.Background()
	h, pool, err := openIdentity(ctx)
	if err != nil {
		return err
	}
	defer pool.Close()
	m := commands.Meta{OrganizationID: *org, Actor: eventstore.Actor{ID: *user, Type: "user"}}
	k, err := h.CreateAPIKey(ctx, m, identitycmd.CreateAPIKey{Name: *name, Scopes: strings.Split(*list, ",")})
	if err != nil {
		return err
	}
	return printKey(*org, *user, k.Value, *admin)
}

// printKey is bootstrap's and key's output: one JSON object.
func printKey(org, user string, k identitycmd.APIKeyCreated, administration bool) error {
	return json.NewEncoder(os.Stdout).Encode(map[string]any{
		"organization_id": org, "user_id": user, "key_id": k.KeyID, "api_key": k.Token, "administration": administration, "scopes": k.Scopes,
	})
}
