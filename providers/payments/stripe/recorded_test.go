package stripe_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/platform/backend/providers/outcome"
	"github.com/platform/backend/providers/payments/stripe"
)

// answering serves one recorded answer, and counts the calls.
func answering(t *testing.T, status int, header http.Header, body []byte) (*stripe.Client, *int) {
	t.Helper()
	calls := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls++
		for k, v := range header {
			w.Header()[k] = v
		}
		w.WriteHeader(status)
		_, _ = w.Write(body)
	}))
	t.Cleanup(srv.Close)
	c, err := stripe.New(stripe.Config{BaseURL: srv.URL, SecretKey: "sk_test_recorded", Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return c, &calls
}

func readTestdata(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestRecordedAnswerComesBackByteForByte(t *testing.T) {
	body := readTestdata(t, "payment_intent_succeeded.json")
	c, _ := answering(t, 200, http.Header{"Request-Id": {"req_Lq3vZ8yB1xW0aT"}, "Idempotent-Replayed": {"true"},
		"Content-Type": {"application/json"}}, body)
	resp, err := c.Invoke(context.Background(), stripe.Request{Operation: "payment_intents.retrieve",
		Params: map[string]any{"id": "pi_3QxKb2LkdIwHu7ix1pV3mT9c"}})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(resp.Body, body) || resp.RequestID != "req_Lq3vZ8yB1xW0aT" || !resp.IdempotentReplayed || resp.Status != 200 {
		t.Fatalf("%+v", resp)
	}
}

func TestRecordedErrorsAreClassified(t *testing.T) {
	tests := []struct {
		file   string
		status int
		kind   outcome.Kind
		check  func(*stripe.Error) bool
	}{
		{"error_card_declined.json", 402, outcome.Rejected, func(e *stripe.Error) bool {
			return e.Type == "card_error" && e.Code == "card_declined" && e.DeclineCode == "insufficient_funds" && e.Reason == "card declined"
		}},
		{"error_idempotency_params.json", 400, stripe.IdempotencyConflict, func(e *stripe.Error) bool {
			return e.Type == "idempotency_error" && !e.Retryable()
		}},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			c, _ := answering(t, tc.status, http.Header{"Request-Id": {"req_Qm1sT4uV7wX9yZ"}}, readTestdata(t, tc.file))
			_, err := c.Invoke(context.Background(), stripe.Request{Operation: "payment_intents.create", Params: charge(2000)})
			e := stripeError(t, err)
			if e.Kind != tc.kind || e.Status != tc.status || e.RequestID != "req_Qm1sT4uV7wX9yZ" || !tc.check(e) {
				t.Fatalf("%+v", e)
			}
			if strings.Contains(err.Error(), "insufficient funds") || strings.Contains(err.Error(), "Keys for") {
				t.Fatalf("upstream text in %q", err.Error())
			}
		})
	}
}

// Answers the fake does not give, built by hand.
func TestAnswersOnlyAStrangeServerGives(t *testing.T) {
	future := time.Now().Add(90 * time.Second).UTC().Format(http.TimeFormat)
	tests := []struct {
		name   string
		status int
		header http.Header
		body   string
		check  func(*stripe.Error) bool
	}{
		{"Retry-After as a date", 429, http.Header{"Retry-After": {future}}, `{"error":{"type":"invalid_request_error","code":"lock_timeout"}}`,
			func(e *stripe.Error) bool {
				return e.Kind == outcome.RateLimited && e.RetryAfter > 80*time.Second && e.RetryAfter <= 90*time.Second && e.Code == "lock_timeout"
			}},
		{"Stripe-Should-Retry false wins", 500, http.Header{"Stripe-Should-Retry": {"false"}}, `{"error":{"type":"api_error"}}`,
			func(e *stripe.Error) bool { return e.Kind == outcome.ProviderFault && !e.Retryable() }},
		{"Stripe-Should-Retry true on a 409", 409, http.Header{"Stripe-Should-Retry": {"true"}}, `{"error":{"type":"idempotency_error"}}`,
			func(e *stripe.Error) bool { return e.Kind == stripe.IdempotencyConflict && e.Retryable() }},
		{"403 of a restricted key", 403, nil, `{"error":{"type":"invalid_request_error","code":"secret_key_required"}}`,
			func(e *stripe.Error) bool { return e.Kind == outcome.Unauthorized && e.Code == "secret_key_required" }},
		{"424 external dependency", 424, nil, `{"error":{"type":"api_error"}}`,
			func(e *stripe.Error) bool { return e.Kind == outcome.ProviderFault && e.Retryable() }},
		{"402 without a card", 402, nil, `{"error":{"type":"invalid_request_error","code":"balance_insufficient"}}`,
			func(e *stripe.Error) bool { return e.Kind == outcome.Rejected && e.Reason == "request failed" }},
		{"error body not JSON", 503, nil, `<html>maintenance</html>`,
			func(e *stripe.Error) bool { return e.Kind == outcome.ProviderFault && e.Type == "" && e.Retryable() }},
		{"redirect", 302, http.Header{"Location": {"https://elsewhere.example/"}}, ``,
			func(e *stripe.Error) bool { return e.Kind == outcome.ProviderFault && e.Reason == "unexpected answer" }},
		{"2xx JSON array", 200, nil, `[{"id":"cus_1"}]`,
			func(e *stripe.Error) bool {
				return e.Kind == outcome.ProviderFault && e.Reason == "malformed answer" && e.MaybeApplied
			}},
		{"2xx truncated object", 200, nil, `{"id":"cus_1",`,
			func(e *stripe.Error) bool { return e.Kind == outcome.ProviderFault && e.Reason == "malformed answer" }},
		{"answer too large", 200, nil, `{"pad":"` + strings.Repeat("x", 8<<20) + `"}`,
			func(e *stripe.Error) bool { return e.Kind == outcome.ProviderFault && e.Reason == "answer too large" }},
		{"fields that are not tokens are dropped", 400, nil, `{"error":{"type":"invalid_request_error","code":"bad code <script>","param":"a b"}}`,
			func(e *stripe.Error) bool { return e.Kind == outcome.Rejected && e.Code == "" && e.Param == "" }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, calls := answering(t, tc.status, tc.header, []byte(tc.body))
			_, err := c.Invoke(context.Background(), stripe.Request{Operation: "customers.create"})
			if e := stripeError(t, err); !tc.check(e) {
				t.Fatalf("%+v", e)
			}
			if *calls != 1 {
				t.Fatalf("%d calls: the adapter never retries by itself", *calls)
			}
		})
	}
}
