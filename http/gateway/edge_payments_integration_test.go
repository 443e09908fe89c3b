package gateway_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/platform/backend/internal/apptest"
	gatewaymod "github.com/platform/backend/internal/modules/gateway"
	"github.com/platform/backend/internal/testenv"
	"github.com/platform/backend/providers/fakekit"
	stripefake "github.com/platform/backend/providers/payments/stripe/fake"
)

type paid struct {
	Operation          string         `json:"operation"`
	Object             map[string]any `json:"object"`
	IdempotentReplayed bool           `json:"idempotent_replayed"`
	ConnectionID       string         `json:"connection_id"`
	Sandbox            bool           `json:"sandbox"`
	RequestID          string         `json:"request_id"`
}

func invoke(t *testing.T, h *apptest.Harness, token, op string, params map[string]any, headers ...string) apptest.Response {
	t.Helper()
	return h.Do(t, "gateway", http.MethodPost, "/api/payments/processor", token, map[string]any{"operation": op, "params": params}, headers...)
}

// TestPaymentsInvoke: payments.processor.invoke runs the seed's operations
// on Stripe (the sandbox's fake for an organization without a connection,
// its own otherwise, charged as BYOK), metered one call per attempt; the
// caller's Idempotency-Key is the gateway's (the first answer replayed with
// no second call and no second usage event, changed parameters 422, one in
// flight 409, two organizations' equal keys apart) and reaches Stripe scoped
// to the organization; Stripe's refusals and faults answered in its short
// tokens, never its text.
func TestPaymentsInvoke(t *testing.T) {
	own := mustStripe(t, "sk_test_byok_payments")
	h := startEdge(t, edgeOptions{gateway: func(g *gatewaymod.Config) {
		g.Edge.BaseURLs = map[string]string{"payments_provider_a": own.URL()}
	}})
	fake := apptest.Provided[*gatewaymod.EdgeSandbox](h).Stripe

	res := invoke(t, h, "", "customers.create", map[string]any{"email": "buyer@example.com", "metadata": map[string]any{"order": 7}},
		"Idempotency-Key", "cust-1")
	apptest.Must(t, res, http.StatusOK, "customers.create")
	var first paid
	res.JSON(t, &first)
	if !first.Sandbox || first.ConnectionID != "sandbox:payments_provider_a" || !strings.HasPrefix(first.Object["id"].(string), "cus_") {
		t.Fatalf("answered %s", res.Body)
	}
	rec := fake.Requests()[len(fake.Requests())-1]
	if rec.IdempotencyKey == "" || rec.IdempotencyKey == "cust-1" || !strings.Contains(string(rec.Body), "metadata[order]=7") {
		t.Fatalf("stripe got key %q body %q", rec.IdempotencyKey, rec.Body)
	}
	// The retry is the gateway's replay (issue 18: it was Stripe's, and a
	// second usage event): the first answer's bytes, no call to Stripe, no
	// usage event.
	calls := len(fake.Requests())
	again := invoke(t, h, "", "customers.create", map[string]any{"email": "buyer@example.com", "metadata": map[string]any{"order": 7}},
		"Idempotency-Key", "cust-1")
	apptest.Must(t, again, http.StatusOK, "the retry")
	if again.Header.Get("Idempotent-Replayed") != "true" || string(again.Body) != string(res.Body) || len(fake.Requests()) != calls {
		t.Fatalf("the retry was not the first answer replayed (%d calls to Stripe, was %d): %s", len(fake.Requests()), calls, again.Body)
	}
	apptest.ExpectProblem(t, invoke(t, h, "", "customers.create", map[string]any{"email": "changed@example.com"}, "Idempotency-Key", "cust-1"),
		http.StatusUnprocessableEntity, "idempotency_key_reused")
	if len(fake.Requests()) != calls {
		t.Fatal("a changed request under the key reached Stripe")
	}
	// Another organization's equal key is its own.
	_, other := h.NewOrganization(t, "Other", testenv.UniqueName("other"), apptest.DefaultScopes...)
	apptest.Must(t, invoke(t, h, other, "customers.create", map[string]any{"email": "someone@example.com"}, "Idempotency-Key", "cust-1"),
		http.StatusOK, "another organization's key")
	// In flight: 409 while the first runs.
	gate := fakekit.NewGate()
	fake.Next(1, fakekit.Fault{Kind: fakekit.Hold, Gate: gate})
	done := make(chan apptest.Response, 1)
	go func() {
		done <- invoke(t, h, "", "products.create", map[string]any{"name": "Hat"}, "Idempotency-Key", "prod-1")
	}()
	<-gate.Entered()
	inFlight := invoke(t, h, "", "products.create", map[string]any{"name": "Hat"}, "Idempotency-Key", "prod-1")
	apptest.ExpectProblem(t, inFlight, http.StatusConflict, "request_in_progress")
	gate.Open()
	apptest.Must(t, <-done, http.StatusOK, "the held call")

	// Refusals in Stripe's tokens.
	declined := invoke(t, h, "", "payment_intents.create", map[string]any{"amount": 500, "currency": "usd", "confirm": true,
		"payment_method": "pm_card_chargeDeclined"})
	p := apptest.ExpectProblem(t, declined, http.StatusUnprocessableEntity, "payment_declined")
	if !strings.Contains(string(declined.Body), `"decline_code":"generic_decline"`) || p.Detail == "" {
		t.Fatalf("declined: %s", declined.Body)
	}
	apptest.ExpectProblem(t, invoke(t, h, "", "customers.retrieve", map[string]any{"id": "cus_missing"}), http.StatusNotFound, "not_found")
	apptest.ExpectProblem(t, invoke(t, h, "", "customers.retrieve", map[string]any{"id": "../../v1/charges"}), http.StatusUnprocessableEntity,
		"invalid_input")
	apptest.ExpectProblem(t, invoke(t, h, "", "charges.create", map[string]any{}), http.StatusUnprocessableEntity, "invalid_input")
	fake.Next(1, fakekit.Fault{Kind: fakekit.ServerError})
	apptest.ExpectProblem(t, invoke(t, h, "", "customers.create", map[string]any{"email": "x@example.com"}), http.StatusBadGateway, "provider_error")
	fake.Next(1, fakekit.Fault{Kind: fakekit.RateLimit, RetryAfter: 3 * time.Second})
	limited := invoke(t, h, "", "customers.create", map[string]any{"email": "x@example.com"})
	apptest.ExpectProblem(t, limited, http.StatusTooManyRequests, "provider_rate_limited")
	if limited.Header.Get("Retry-After") != "3" {
		t.Fatalf("Retry-After %q", limited.Header.Get("Retry-After"))
	}
	fake.Next(1, fakekit.Fault{Kind: fakekit.Malformed})
	apptest.ExpectProblem(t, invoke(t, h, "", "customers.create", map[string]any{"email": "x@example.com"}), http.StatusBadGateway, "provider_error")

	// The organization's own Stripe account: BYOK, its key to its account.
	connID, _ := createConnection(t, h, "", map[string]any{"provider": "payments_provider_a", "name": "Own Stripe",
		"credentials": map[string]any{"secret_key": "sk_test_byok_payments"}})
	mine := invoke(t, h, "", "customers.create", map[string]any{"email": "mine@example.com"})
	apptest.Must(t, mine, http.StatusOK, "own connection")
	var m paid
	mine.JSON(t, &m)
	if m.ConnectionID != connID || m.Sandbox || len(own.Requests()) != 1 {
		t.Fatalf("own connection answered %s (%d calls to the own account)", mine.Body, len(own.Requests()))
	}
	outcomes := usageOf(t, h, h.OrgID, "payments.processor.invoke")
	want := "ok,ok,invalid_request,invalid_request,invalid_request,provider_error,rate_limited,provider_error,ok"
	if strings.Join(outcomes, ",") != want {
		t.Fatalf("usage outcomes %v, want %s", outcomes, want)
	}
	events := usageEvents(t, h, "", 9)
	if ev := events[0]; ev["byok"] != true || ev["connection_id"] != connID || ev["units"].(map[string]any)["calls"] != float64(1) ||
		ev["model"] != "customers.create" {
		t.Fatalf("the own call's usage event %v", ev)
	}
	for _, ev := range events {
		if strings.Contains(ev["error"].(string), "Your card") || strings.Contains(ev["error"].(string), "No such") {
			t.Fatalf("a provider's text was kept: %v", ev)
		}
	}
}

func mustStripe(t *testing.T, keys ...string) *stripefake.Server {
	t.Helper()
	srv := stripefake.Start(stripefake.Config{APIKeys: keys})
	t.Cleanup(func() { srv.Close() })
	return srv
}
