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
	"github.com/platform/backend/providers/fakekit"
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

// TestKeyedLibraryCalls: the in-process client honours an idempotency key
// as the HTTP call actions do: the same image call under its key answers
// the kept answer (the same bytes) with no second provider call and no
// second charge; another request under the key is refused; a failed call
// frees its key (the next try calls); FirstKept finds the earlier call
// kept for the same request only.
func TestKeyedLibraryCalls(t *testing.T) {
	h := apptest.Start(t, apptest.Options{})
	ctx := context.Background()
	client := apptest.Provided[*gatewaycmd.Client](h)
	kit := apptest.Provided[*gatewaymod.Sandbox](h).Kit(ai.Provider1)
	caller := gatewaycmd.Caller{OrganizationID: h.OrgID, PrincipalID: "studio-worker", PrincipalType: "service", AppID: "studio"}
	charged := func() int64 {
		return h.Count(t, `SELECT count(*) FROM es_events WHERE event_type = 'gateway.usage.recorded' AND organization_id = $1
			AND (payload->>'provider_cost_microcents')::bigint > 0`, h.OrgID)
	}
	in := gatewaycmd.ImageInput{Prompt: "a red rocket", Provider: string(ai.Provider1), IdempotencyKey: "job:studio.generate:g1:attempt:1:s1"}
	first, err := client.GenerateImage(ctx, caller, in)
	if err != nil || len(first.Images) != 1 || len(first.Images[0].Data) == 0 {
		t.Fatalf("first call: %+v %v", first, err)
	}
	again, err := client.GenerateImage(ctx, caller, in)
	if err != nil || string(again.Images[0].Data) != string(first.Images[0].Data) || again.RequestID != first.RequestID {
		t.Fatalf("the repeat: %v", err)
	}
	if n := len(kit.Requests()); n != 1 || charged() != 1 {
		t.Fatalf("%d provider calls, %d charged, want 1 each", n, charged())
	}
	other := in
	other.Prompt = "a blue rocket"
	if _, err := client.GenerateImage(ctx, caller, other); errs.KindOf(err) != errs.KindIdempotencyMismatch {
		t.Fatalf("another request under the key: %v", err)
	}
	kept := gatewaycmd.KeyedRequest{Key: in.IdempotencyKey, Hash: gatewaycmd.RequestFingerprint("ai.images", gatewaycmd.ImageInput{
		Prompt: in.Prompt, Provider: in.Provider})}
	if i, err := client.FirstKept(ctx, h.OrgID, []gatewaycmd.KeyedRequest{{Key: "none", Hash: kept.Hash}, {Key: kept.Key, Hash: "other"}, kept}); err != nil || i != 2 {
		t.Fatalf("FirstKept %d %v, want 2", i, err)
	}

	kit.Next(1, fakekit.Fault{Kind: fakekit.ServerError})
	failing := gatewaycmd.ImageInput{Prompt: "a green rocket", Provider: string(ai.Provider1), IdempotencyKey: "job:studio.generate:g2:attempt:1:s1"}
	if _, err := client.GenerateImage(ctx, caller, failing); err == nil {
		t.Fatal("the scripted failure passed")
	}
	if _, err := client.GenerateImage(ctx, caller, failing); err != nil {
		t.Fatalf("after a failure the key is free: %v", err)
	}
	if n := len(kit.Requests()); n != 3 || charged() != 2 {
		t.Fatalf("%d provider calls, %d charged, want 3 and 2", n, charged())
	}
}
