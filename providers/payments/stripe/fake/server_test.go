package fake_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/platform/backend/providers/fakekit"
	"github.com/platform/backend/providers/payments/stripe/fake"
)

func start(t *testing.T, cfg fake.Config) *fake.Server {
	t.Helper()
	f := fake.Start(cfg)
	t.Cleanup(func() { f.Close() })
	return f
}

// send makes a raw call and returns the status and Stripe's error object.
func send(t *testing.T, f *fake.Server, method, path, contentType, body string, header map[string]string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(method, f.URL()+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var m struct {
		Error map[string]any `json:"error"`
	}
	_ = json.Unmarshal(b, &m)
	if resp.Header.Get("Request-Id") == "" {
		t.Errorf("%s %s: no Request-Id", method, path)
	}
	return resp.StatusCode, m.Error
}

const form = "application/x-www-form-urlencoded"

var bearer = map[string]string{"Authorization": "Bearer " + fake.DefaultAPIKey}

func TestTheFakeAnswersLikeStripe(t *testing.T) {
	f := start(t, fake.Config{})
	tests := []struct {
		name, method, path, contentType, body string
		header                                map[string]string
		status                                int
		errType, code                         string
	}{
		{"no key", "POST", "/v1/customers", form, "email=a%40b.c", nil, 401, "invalid_request_error", ""},
		{"unknown key", "POST", "/v1/customers", form, "", map[string]string{"Authorization": "Bearer sk_test_nobody_knows"}, 401, "invalid_request_error", ""},
		{"basic auth is not the fake's", "POST", "/v1/customers", form, "", map[string]string{"Authorization": "Basic c2tfdGVzdDo="}, 401, "invalid_request_error", ""},
		{"unrecognized URL", "GET", "/v1/charges", "", "", bearer, 404, "invalid_request_error", ""},
		{"method not in the table", "DELETE", "/v1/customers/cus_1", "", "", bearer, 404, "invalid_request_error", ""},
		{"JSON body", "POST", "/v1/customers", "application/json", `{"email":"a@b.c"}`, bearer, 400, "invalid_request_error", ""},
		{"contradicting form", "POST", "/v1/customers", form, "metadata=1&metadata[a]=2", bearer, 400, "invalid_request_error", ""},
		{"unknown connected account", "POST", "/v1/customers", form, "", map[string]string{"Authorization": "Bearer " + fake.DefaultAPIKey, "Stripe-Account": "acct_x"}, 403, "invalid_request_error", "account_invalid"},
		{"key too long", "POST", "/v1/customers", form, "", map[string]string{"Authorization": "Bearer " + fake.DefaultAPIKey, "Idempotency-Key": strings.Repeat("k", 256)}, 400, "invalid_request_error", ""},
		{"ok", "POST", "/v1/customers", form, "email=a%40b.c", bearer, 200, "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			status, e := send(t, f, tc.method, tc.path, tc.contentType, tc.body, tc.header)
			if status != tc.status || (tc.errType != "" && (e["type"] != tc.errType || e["message"] == "")) || (tc.code != "" && e["code"] != tc.code) {
				t.Fatalf("%d %v", status, e)
			}
		})
	}
	reqs := f.Requests()
	if len(reqs) != len(tests) {
		t.Fatalf("%d recorded, want every call (%d)", len(reqs), len(tests))
	}
	if reqs[0].Status != 401 || reqs[len(reqs)-1].Operation != "customers.create" {
		t.Fatalf("records %+v", reqs)
	}
}

func TestGETIgnoresIdempotencyKeys(t *testing.T) {
	f := start(t, fake.Config{})
	h := map[string]string{"Authorization": "Bearer " + fake.DefaultAPIKey, "Idempotency-Key": "k"}
	send(t, f, "POST", "/v1/customers", form, "email=a%40b.c", h)
	// The same key on a GET is neither a conflict nor a replay.
	if status, e := send(t, f, "GET", "/v1/customers/cus_nope", "", "", h); status != 404 || e["code"] != "resource_missing" {
		t.Fatalf("%d %v", status, e)
	}
}

func TestScriptedFaultsComeInOrder(t *testing.T) {
	f := start(t, fake.Config{})
	f.Then(fakekit.Fault{}, fakekit.Fault{Kind: fakekit.ServerError}, fakekit.Fault{Kind: fakekit.Reject, Code: "expired_card"})
	f.Next(2, fakekit.Fault{Kind: fakekit.RateLimit, RetryAfter: 1500 * time.Millisecond})
	var got []int
	for range 6 {
		status, _ := send(t, f, "POST", "/v1/customers", form, "", bearer)
		got = append(got, status)
	}
	if want := []int{200, 500, 402, 429, 429, 200}; !slices.Equal(got, want) {
		t.Fatalf("statuses %v, want %v", got, want)
	}
	f.Next(1, fakekit.Fault{Kind: fakekit.ServerError})
	f.Reset()
	if status, _ := send(t, f, "POST", "/v1/customers", form, "", bearer); status != 200 {
		t.Fatalf("cleared fault still played: %d", status)
	}
}

func TestRateLimitSendsRetryAfterInWholeSeconds(t *testing.T) {
	f := start(t, fake.Config{})
	f.Next(1, fakekit.Fault{Kind: fakekit.RateLimit, RetryAfter: 1500 * time.Millisecond})
	req, _ := http.NewRequest("POST", f.URL()+"/v1/customers", nil)
	req.Header.Set("Authorization", "Bearer "+fake.DefaultAPIKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "2" || resp.Header.Get("Stripe-Should-Retry") != "true" {
		t.Fatalf("%d %v", resp.StatusCode, resp.Header)
	}
}

func TestCloseEndsAHangingCall(t *testing.T) {
	f := fake.Start(fake.Config{})
	f.Next(1, fakekit.Fault{Kind: fakekit.Hang})
	done := make(chan error, 1)
	go func() {
		req, _ := http.NewRequestWithContext(context.Background(), "POST", f.URL()+"/v1/customers", nil)
		req.Header.Set("Authorization", "Bearer "+fake.DefaultAPIKey)
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		done <- err
	}()
	for len(f.Requests()) == 0 {
		time.Sleep(5 * time.Millisecond)
	}
	f.Close()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("a hanging call got an answer")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Close left the call hanging")
	}
}

func TestLatencyIsAdded(t *testing.T) {
	f := start(t, fake.Config{Latency: 60 * time.Millisecond})
	began := time.Now()
	send(t, f, "POST", "/v1/customers", form, "", bearer)
	if d := time.Since(began); d < 60*time.Millisecond {
		t.Fatalf("answered in %v", d)
	}
}
