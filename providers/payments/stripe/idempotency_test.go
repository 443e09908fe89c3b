package stripe_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/platform/backend/providers/fakekit"
	"github.com/platform/backend/providers/outcome"
	"github.com/platform/backend/providers/payments/stripe"
	"github.com/platform/backend/providers/payments/stripe/fake"
)

func charge(amount int) map[string]any {
	return map[string]any{"amount": amount, "currency": "eur", "metadata": map[string]any{"order": "42"}}
}

func TestSameKeySameParamsReplaysTheFirstResult(t *testing.T) {
	f := startFake(t, fake.Config{})
	c := clientFor(t, f)
	req := stripe.Request{Operation: "payment_intents.create", Params: charge(2000), IdempotencyKey: "order-42"}
	first, err := c.Invoke(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	again, err := c.Invoke(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if first.IdempotentReplayed || !again.IdempotentReplayed {
		t.Fatalf("replayed: first %v, again %v", first.IdempotentReplayed, again.IdempotentReplayed)
	}
	if !bytes.Equal(first.Body, again.Body) || first.Status != again.Status {
		t.Fatalf("replay differs:\n%s\n%s", first.Body, again.Body)
	}
	if first.RequestID == again.RequestID {
		t.Fatal("a replay is a new request with its own Request-Id")
	}
	if n := f.Count("payment_intent"); n != 1 {
		t.Fatalf("%d payment intents, want 1", n)
	}
}

func TestSameKeyOtherParamsOrEndpointIsAConflict(t *testing.T) {
	f := startFake(t, fake.Config{})
	c := clientFor(t, f)
	ctx := context.Background()
	if _, err := c.Invoke(ctx, stripe.Request{Operation: "payment_intents.create", Params: charge(2000), IdempotencyKey: "order-42"}); err != nil {
		t.Fatal(err)
	}
	tests := map[string]stripe.Request{
		"other params":   {Operation: "payment_intents.create", Params: charge(2500), IdempotencyKey: "order-42"},
		"other endpoint": {Operation: "customers.create", Params: map[string]any{"email": "a@example.com"}, IdempotencyKey: "order-42"},
	}
	for name, req := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := c.Invoke(ctx, req)
			e := stripeError(t, err)
			if e.Kind != stripe.IdempotencyConflict || e.Status != 400 || e.Type != "idempotency_error" || e.Retryable() {
				t.Fatalf("%+v", e)
			}
		})
	}
	if n := f.Count("payment_intent"); n != 1 {
		t.Fatalf("%d payment intents, want 1", n)
	}
}

// The first request holds at a gate in the fake with its key registered,
// so the second provably arrives while the first is in flight.
func TestSameKeyWhileTheFirstIsInFlightIs409(t *testing.T) {
	f := startFake(t, fake.Config{})
	c := clientFor(t, f)
	ctx := context.Background()
	gate := fakekit.NewGate()
	f.Next(1, fakekit.Fault{Kind: fakekit.Hold, Gate: gate})
	req := stripe.Request{Operation: "payment_intents.create", Params: charge(2000), IdempotencyKey: "order-42"}

	type result struct {
		resp *stripe.Response
		err  error
	}
	firstDone := make(chan result, 1)
	go func() {
		resp, err := c.Invoke(ctx, req)
		firstDone <- result{resp, err}
	}()
	<-gate.Entered()

	_, err := c.Invoke(ctx, req)
	e := stripeError(t, err)
	if e.Kind != stripe.IdempotencyConflict || e.Status != 409 || e.Type != "idempotency_error" || !e.Retryable() {
		t.Fatalf("second: %+v", e)
	}

	gate.Open()
	first := <-firstDone
	if first.err != nil {
		t.Fatal(first.err)
	}
	third, err := c.Invoke(ctx, req)
	if err != nil || !third.IdempotentReplayed || !bytes.Equal(third.Body, first.resp.Body) {
		t.Fatalf("after the first finished: %v %+v", err, third)
	}
	if n := f.Count("payment_intent"); n != 1 {
		t.Fatalf("%d payment intents, want 1", n)
	}
}

func TestKeysAreScopedPerAPIKeyAndConnectedAccount(t *testing.T) {
	const other = "sk_test_fake_other_platform"
	f := startFake(t, fake.Config{APIKeys: []string{fake.DefaultAPIKey, other}})
	c := clientFor(t, f)
	c2 := clientFor(t, f, func(cfg *stripe.Config) { cfg.SecretKey = other })
	ctx := context.Background()
	acct := idOf(object(t, c, "accounts.create", map[string]any{"type": "standard"}))

	req := stripe.Request{Operation: "customers.create", Params: map[string]any{"email": "a@example.com"}, IdempotencyKey: "same"}
	inAccount := req
	inAccount.Params = map[string]any{"email": "a@example.com", "stripe_account": acct}
	var ids []string
	for _, call := range []struct {
		c   *stripe.Client
		req stripe.Request
	}{{c, req}, {c2, req}, {c, inAccount}} {
		resp, err := call.c.Invoke(ctx, call.req)
		if err != nil {
			t.Fatal(err)
		}
		if resp.IdempotentReplayed {
			t.Fatal("replayed across scopes")
		}
		ids = append(ids, idOf(decode(t, resp.Body)))
	}
	if ids[0] == ids[1] || ids[0] == ids[2] || ids[1] == ids[2] {
		t.Fatalf("one object across scopes: %v", ids)
	}
}

// Like Stripe, a request refused on its parameters stores nothing under its
// key (the corrected request may use it); one that began executing stores
// its result, a 500 included.
func TestWhatIsStoredUnderAKey(t *testing.T) {
	f := startFake(t, fake.Config{})
	c := clientFor(t, f)
	ctx := context.Background()

	_, err := c.Invoke(ctx, stripe.Request{Operation: "payment_intents.create", Params: map[string]any{"currency": "eur"}, IdempotencyKey: "fix-me"})
	if e := stripeError(t, err); e.Kind != outcome.Rejected || e.Code != "parameter_missing" || e.Param != "amount" {
		t.Fatalf("%+v", e)
	}
	if _, err := c.Invoke(ctx, stripe.Request{Operation: "payment_intents.create", Params: charge(100), IdempotencyKey: "fix-me"}); err != nil {
		t.Fatalf("corrected request under the same key: %v", err)
	}

	f.Next(1, fakekit.Fault{Kind: fakekit.ServerError})
	req := stripe.Request{Operation: "payment_intents.create", Params: charge(300), IdempotencyKey: "boom"}
	_, err = c.Invoke(ctx, req)
	if e := stripeError(t, err); e.Kind != outcome.ProviderFault || e.Replayed || !e.Retryable() {
		t.Fatalf("first: %+v", e)
	}
	_, err = c.Invoke(ctx, req)
	if e := stripeError(t, err); e.Kind != outcome.ProviderFault || e.Status != 500 || !e.Replayed || e.Retryable() {
		t.Fatalf("replayed 500: %+v", e)
	}

	f.Next(1, fakekit.Fault{Kind: fakekit.RateLimit})
	limited := stripe.Request{Operation: "customers.create", IdempotencyKey: "limited"}
	if _, err := c.Invoke(ctx, limited); outcome.Of(err) != outcome.RateLimited {
		t.Fatalf("%v", err)
	}
	if resp, err := c.Invoke(ctx, limited); err != nil || resp.IdempotentReplayed {
		t.Fatalf("after a 429 the key is free: %v %+v", err, resp)
	}
}
