package stripe_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/platform/backend/providers/payments/stripe"
	"github.com/platform/backend/providers/payments/stripe/fake"
)

// startFake runs a fake for the test.
func startFake(t *testing.T, cfg fake.Config) *fake.Server {
	t.Helper()
	f := fake.Start(cfg)
	t.Cleanup(func() { f.Close() })
	return f
}

// clientFor is an adapter pointed at the fake with its default key;
// change adjusts the configuration.
func clientFor(t *testing.T, f *fake.Server, change ...func(*stripe.Config)) *stripe.Client {
	t.Helper()
	cfg := stripe.Config{BaseURL: f.URL(), SecretKey: fake.DefaultAPIKey, Timeout: 5 * time.Second}
	for _, ch := range change {
		ch(&cfg)
	}
	c, err := stripe.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// object invokes an operation that must succeed and decodes its answer.
func object(t *testing.T, c *stripe.Client, op string, params map[string]any) map[string]any {
	t.Helper()
	resp, err := c.Invoke(context.Background(), stripe.Request{Operation: op, Params: params})
	if err != nil {
		t.Fatalf("%s: %v", op, err)
	}
	return decode(t, resp.Body)
}

func decode(t *testing.T, body []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatalf("answer is not a JSON object: %v", err)
	}
	return m
}

// stripeError is err as an *stripe.Error, or the test fails.
func stripeError(t *testing.T, err error) *stripe.Error {
	t.Helper()
	var e *stripe.Error
	if !errors.As(err, &e) {
		t.Fatalf("want *stripe.Error, got %T %v", err, err)
	}
	return e
}

func lastRequest(t *testing.T, f *fake.Server) fake.Request {
	t.Helper()
	reqs := f.Requests()
	if len(reqs) == 0 {
		t.Fatal("the fake received nothing")
	}
	return reqs[len(reqs)-1]
}

func idOf(m map[string]any) string {
	s, _ := m["id"].(string)
	return s
}
