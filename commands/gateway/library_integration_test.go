package gateway_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/platform/backend/commands"
	gatewaycmd "github.com/platform/backend/commands/gateway"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/gateway/prices"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/internal/apptest"
	gatewaymod "github.com/platform/backend/internal/modules/gateway"
	"github.com/platform/backend/providers/ai"
)

// TestLibraryCallWithTheOrganizationsOwnKey: another context calls the
// gateway in-process (*gatewaycmd.Client, as the module provides it, here
// over a connection marked BYOK): the call is metered like an HTTP one, and
// the caps are charged only the organization's service fee on the rated
// cost; an unpriced model is refused before any provider call.
func TestLibraryCallWithTheOrganizationsOwnKey(t *testing.T) {
	h := apptest.Start(t, apptest.Options{})
	ctx := context.Background()
	handlers := apptest.Provided[*gatewaycmd.Handlers](h)
	sandbox := apptest.Provided[*gatewaymod.Sandbox](h)
	info, _ := ai.Lookup(ai.Provider1)
	own := gatewaycmd.StaticAI{ai.Provider1: {ID: "org-connection-1", Provider: sandbox.Provider(ai.Provider1), Info: info, BYOK: true}}
	client := gatewaycmd.NewClient(handlers, own)
	m := commands.Meta{OrganizationID: h.OrgID, Actor: eventstore.Actor{ID: "apptest", Type: "system"}}
	if _, err := handlers.UpdateByokFee(ctx, m, gatewaycmd.UpdateByokFee{ServiceFeeBps: 500}); err != nil {
		t.Fatal(err)
	}
	caller := gatewaycmd.Caller{OrganizationID: h.OrgID, PrincipalID: "publishing-worker", PrincipalType: "service", AppID: "publishing"}
	prompt := "write a caption"
	out, err := client.Complete(ctx, caller, gatewaycmd.CompletionInput{Prompt: &prompt})
	if err != nil {
		t.Fatal(err)
	}
	var providerCost, fee, cost int64
	var byok bool
	if err := h.App.Pool.QueryRow(ctx, `SELECT (payload->>'provider_cost_microcents')::bigint, (payload->>'service_fee_microcents')::bigint,
		(payload->>'cost_microcents')::bigint, (payload->>'byok')::boolean FROM es_events WHERE stream_id = $1`, "usage:"+out.RequestID).
		Scan(&providerCost, &fee, &cost, &byok); err != nil {
		t.Fatal(err)
	}
	if !byok || providerCost == 0 || fee != (providerCost*500+9999)/10000 || cost != fee {
		t.Fatalf("BYOK call: provider cost %d, fee %d, charged %d", providerCost, fee, cost)
	}
	calls := len(sandbox.Kit(ai.Provider1).Requests())
	_, err = client.Complete(ctx, caller, gatewaycmd.CompletionInput{Prompt: &prompt, Model: "a-model-without-a-price"})
	if e, ok := errs.As(err); !ok || e.Kind != errs.KindInvalidInput || e.Fields[0].Pointer != "/model" {
		t.Fatalf("unpriced model: %v", err)
	}
	if len(sandbox.Kit(ai.Provider1).Requests()) != calls {
		t.Fatal("an unpriced call reached the provider")
	}
}

// TestCapCheckFailsClosed: with the budget store unreachable a call is 503
// and the provider is never called (LiteLLM fails open).
func TestCapCheckFailsClosed(t *testing.T) {
	pool, err := pgxpool.New(context.Background(), "postgres://nobody@127.0.0.1:1/none?sslmode=disable&connect_timeout=1")
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	handlers := gatewaycmd.NewHandlers(eventstore.NewStore(pool, eventstore.Topics{Prefix: "t"}), pool, nil, gatewaycmd.Config{}, nil)
	called := false
	_, _, err = handlers.Metered(context.Background(), gatewaycmd.Call{Caller: gatewaycmd.Caller{OrganizationID: "o", PrincipalID: "u"},
		Action: "ai.completions", Provider: "ai_provider_1", Model: "gpt-4o-mini", Operation: prices.OpChat, Estimate: prices.Units{InputTokens: 10}},
		func(context.Context) gatewaycmd.Attempt { called = true; return gatewaycmd.Attempt{} })
	if errs.KindOf(err) != errs.KindUnavailable || called {
		t.Fatalf("database down: %v, provider called %v; want 503 and no call", err, called)
	}
}
