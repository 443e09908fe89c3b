package stripe_test

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/platform/backend/providers/fakekit"
	"github.com/platform/backend/providers/outcome"
	"github.com/platform/backend/providers/payments/stripe"
	"github.com/platform/backend/providers/payments/stripe/fake"
)

// Each way a call can fail against the fake, with the kind and details the
// gateway reads.
func TestErrorKinds(t *testing.T) {
	type want struct {
		kind                              outcome.Kind
		status                            int
		typ, code, decline, param         string
		retryable, timedOut, maybeApplied bool
		retryAfter                        time.Duration
	}
	tests := []struct {
		name   string
		fault  fakekit.Fault
		cfg    func(*stripe.Config)
		op     string
		params map[string]any
		want   want
	}{
		{name: "5xx", fault: fakekit.Fault{Kind: fakekit.ServerError}, op: "customers.create",
			want: want{kind: outcome.ProviderFault, status: 500, typ: "api_error", retryable: true}},
		{name: "429 with Retry-After", fault: fakekit.Fault{Kind: fakekit.RateLimit, RetryAfter: 7 * time.Second}, op: "customers.create",
			want: want{kind: outcome.RateLimited, status: 429, typ: "invalid_request_error", code: "rate_limit", retryable: true, retryAfter: 7 * time.Second}},
		{name: "no answer within the timeout", fault: fakekit.Fault{Kind: fakekit.Hang}, op: "customers.create",
			cfg:  func(c *stripe.Config) { c.Timeout = 150 * time.Millisecond },
			want: want{kind: outcome.ProviderFault, retryable: true, timedOut: true, maybeApplied: true}},
		{name: "GET without an answer applied nothing", fault: fakekit.Fault{Kind: fakekit.Hang}, op: "customers.retrieve", params: map[string]any{"id": "cus_1"},
			cfg:  func(c *stripe.Config) { c.Timeout = 150 * time.Millisecond },
			want: want{kind: outcome.ProviderFault, retryable: true, timedOut: true}},
		{name: "malformed answer", fault: fakekit.Fault{Kind: fakekit.Malformed}, op: "customers.create",
			want: want{kind: outcome.ProviderFault, status: 200, retryable: true, maybeApplied: true}},
		{name: "card declined", fault: fakekit.Fault{Kind: fakekit.Reject}, op: "payment_intents.create", params: charge(2000),
			want: want{kind: outcome.Rejected, status: 402, typ: "card_error", code: "card_declined", decline: "generic_decline"}},
		{name: "test card declined for funds", op: "payment_intents.create",
			params: map[string]any{"amount": 2000, "currency": "eur", "payment_method": "pm_card_chargeDeclinedInsufficientFunds", "confirm": true},
			want:   want{kind: outcome.Rejected, status: 402, typ: "card_error", code: "card_declined", decline: "insufficient_funds"}},
		{name: "missing object", op: "customers.retrieve", params: map[string]any{"id": "cus_nope"},
			want: want{kind: outcome.Rejected, status: 404, typ: "invalid_request_error", code: "resource_missing", param: "customer"}},
		{name: "missing parameter", op: "payment_intents.create", params: map[string]any{"currency": "eur"},
			want: want{kind: outcome.Rejected, status: 400, typ: "invalid_request_error", code: "parameter_missing", param: "amount"}},
		{name: "wrong state", op: "checkout.sessions.create", params: map[string]any{"mode": "rent"},
			want: want{kind: outcome.Rejected, status: 400, typ: "invalid_request_error", code: "parameter_invalid", param: "mode"}},
		{name: "wrong secret key", op: "customers.create", cfg: func(c *stripe.Config) { c.SecretKey = "sk_test_revoked_0000" },
			want: want{kind: outcome.Unauthorized, status: 401, typ: "invalid_request_error"}},
		{name: "no access to the connected account", op: "customers.create", params: map[string]any{"stripe_account": "acct_someone_else"},
			want: want{kind: outcome.Unauthorized, status: 403, typ: "invalid_request_error", code: "account_invalid"}},
		{name: "base URL that is not Stripe's API", op: "customers.create", cfg: func(c *stripe.Config) { c.BaseURL += "/nope" },
			want: want{kind: outcome.ProviderFault, status: 404, typ: "invalid_request_error"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := startFake(t, fake.Config{})
			if tc.fault.Kind != "" {
				f.Next(1, tc.fault)
			}
			var change []func(*stripe.Config)
			if tc.cfg != nil {
				change = append(change, tc.cfg)
			}
			c := clientFor(t, f, change...)
			_, err := c.Invoke(context.Background(), stripe.Request{Operation: tc.op, Params: tc.params, IdempotencyKey: "k1"})
			e := stripeError(t, err)
			got := want{kind: e.Kind, status: e.Status, typ: e.Type, code: e.Code, decline: e.DeclineCode, param: e.Param,
				retryable: e.Retryable(), timedOut: e.TimedOut, maybeApplied: e.MaybeApplied, retryAfter: e.RetryAfter}
			if got != tc.want {
				t.Fatalf("got  %+v\nwant %+v", got, tc.want)
			}
			if e.Operation != tc.op || e.Reason == "" {
				t.Errorf("operation %q reason %q", e.Operation, e.Reason)
			}
			if e.Status != 0 && !strings.HasPrefix(e.RequestID, "req_") {
				t.Errorf("request id %q", e.RequestID)
			}
			// A few words of ours, never Stripe's text.
			for _, upstream := range []string{"Your card", "No such", "Missing required", "Invalid API Key", "does not have access", "Unrecognized", "<html>", "unknown error"} {
				if strings.Contains(err.Error(), upstream) {
					t.Errorf("error text carries upstream text: %q", err.Error())
				}
			}
		})
	}
}

func TestTheCallersCancelIsNeverAProviderFault(t *testing.T) {
	t.Run("cancel while Stripe holds the call", func(t *testing.T) {
		f := startFake(t, fake.Config{})
		c := clientFor(t, f)
		gate := fakekit.NewGate()
		f.Next(1, fakekit.Fault{Kind: fakekit.Hold, Gate: gate})
		ctx, cancel := context.WithCancel(context.Background())
		go func() { <-gate.Entered(); cancel() }()
		_, err := c.Invoke(ctx, stripe.Request{Operation: "payment_intents.create", Params: charge(100), IdempotencyKey: "k"})
		e := stripeError(t, err)
		if e.Kind != outcome.Canceled || !errors.Is(err, context.Canceled) || !e.MaybeApplied || e.Retryable() {
			t.Fatalf("%+v", e)
		}
	})
	t.Run("the caller's deadline before the adapter's timeout", func(t *testing.T) {
		f := startFake(t, fake.Config{})
		c := clientFor(t, f) // Timeout 5s
		f.Next(1, fakekit.Fault{Kind: fakekit.Hang})
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		_, err := c.Invoke(ctx, stripe.Request{Operation: "customers.create"})
		e := stripeError(t, err)
		if e.Kind != outcome.Canceled || e.TimedOut || !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("%+v", e)
		}
	})
	t.Run("already canceled: nothing sent", func(t *testing.T) {
		f := startFake(t, fake.Config{})
		c := clientFor(t, f)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := c.Invoke(ctx, stripe.Request{Operation: "customers.create"})
		if outcome.Of(err) != outcome.Canceled || len(f.Requests()) != 0 {
			t.Fatalf("%v, %d requests", err, len(f.Requests()))
		}
	})
}

func TestUnreachableStripeIsAProviderFaultThatAppliedNothing(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	c, err := stripe.New(stripe.Config{BaseURL: "http://" + addr, SecretKey: "sk_test_x", Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Invoke(context.Background(), stripe.Request{Operation: "refunds.create", Params: map[string]any{"payment_intent": "pi_1"}})
	e := stripeError(t, err)
	if e.Kind != outcome.ProviderFault || e.MaybeApplied || e.TimedOut || e.Status != 0 || !e.Retryable() {
		t.Fatalf("%+v", e)
	}
}

func TestKindOf(t *testing.T) {
	if outcome.Of(nil) != "" || outcome.Of(errors.New("x")) != outcome.ProviderFault ||
		outcome.Of(&stripe.Error{Kind: outcome.RateLimited}) != outcome.RateLimited {
		t.Fatal("KindOf")
	}
}
