package delivery_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/platform/backend/providers/delivery"
)

func TestKindDecidesHealthRetryAndTerminal(t *testing.T) {
	tests := []struct {
		kind                       delivery.Kind
		hurts, retryable, terminal bool
	}{
		{delivery.ProviderFault, true, true, false},
		{delivery.RateLimited, false, true, false},
		{delivery.Rejected, false, false, true},
		{delivery.Unauthorized, false, false, true},
		{delivery.Invalid, false, false, true},
		{delivery.Canceled, false, false, false},
	}
	for _, tc := range tests {
		if tc.kind.HurtsProviderHealth() != tc.hurts || tc.kind.Retryable() != tc.retryable || tc.kind.Terminal() != tc.terminal {
			t.Errorf("%s: health %v retry %v terminal %v", tc.kind, tc.kind.HurtsProviderHealth(), tc.kind.Retryable(), tc.kind.Terminal())
		}
	}
}

func TestErrorTextAndKindOf(t *testing.T) {
	e := &delivery.Error{Provider: "postmark", Kind: delivery.Rejected, Reason: "inactive recipient", Code: "406", Status: 422}
	if e.Error() != "postmark: rejected: inactive recipient (code 406)" {
		t.Fatal(e.Error())
	}
	wrapped := fmt.Errorf("send: %w", e)
	if delivery.KindOf(wrapped) != delivery.Rejected || delivery.KindOf(nil) != "" || delivery.KindOf(errors.New("x")) != delivery.ProviderFault {
		t.Fatal("KindOf")
	}
	c := &delivery.Error{Provider: "p", Kind: delivery.Canceled, Reason: "caller canceled", Err: context.Canceled}
	if !errors.Is(c, context.Canceled) || strings.Contains(c.Error(), "context") {
		t.Fatalf("cause: %v", c)
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 3, 14, 12, 0, 0, 0, time.UTC)
	tests := map[string]time.Duration{
		"":                              0,
		"7":                             7 * time.Second,
		"0":                             0,
		"-3":                            0,
		"soon":                          0,
		"99999999999":                   24 * time.Hour,
		"Sat, 14 Mar 2026 12:00:30 GMT": 30 * time.Second,
		"Sat, 14 Mar 2026 11:59:00 GMT": 0,
	}
	for v, want := range tests {
		if got := delivery.ParseRetryAfter(v, now); got != want {
			t.Errorf("%q: %v, want %v", v, got, want)
		}
	}
}

func TestEndpointClassifiesTheWayThereAndBack(t *testing.T) {
	tests := []struct {
		name    string
		handler http.HandlerFunc
		status  int
		kind    delivery.Kind
		reason  string
	}{
		{name: "any status is an answer", handler: func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(503) }, status: 503},
		{name: "answer too large", handler: func(w http.ResponseWriter, r *http.Request) {
			w.Write([]byte(strings.Repeat("x", delivery.MaxAnswer+1)))
		}, kind: delivery.ProviderFault, reason: "answer too large"},
		{name: "connection dropped mid-answer", handler: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", "100")
			w.Write([]byte("{"))
			conn, _, _ := w.(http.Hijacker).Hijack()
			conn.Close()
		}, kind: delivery.ProviderFault, reason: "connection lost"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(tc.handler)
			defer srv.Close()
			ep := delivery.Endpoint{Provider: "p", Client: srv.Client(), Timeout: time.Second}
			ans, err := ep.PostJSON(context.Background(), srv.URL, http.Header{"X-A": {"1"}}, map[string]string{"a": "b"})
			if tc.kind == "" {
				if err != nil || ans.Status != tc.status {
					t.Fatalf("%+v %v", ans, err)
				}
				return
			}
			var de *delivery.Error
			if !errors.As(err, &de) || de.Kind != tc.kind || de.Reason != tc.reason {
				t.Fatalf("got %+v", err)
			}
		})
	}
}

func TestAnswerFailByStatus(t *testing.T) {
	tests := map[int]delivery.Kind{401: delivery.Unauthorized, 403: delivery.Unauthorized, 429: delivery.RateLimited,
		500: delivery.ProviderFault, 502: delivery.ProviderFault, 408: delivery.ProviderFault, 404: delivery.ProviderFault,
		400: delivery.Rejected, 422: delivery.Rejected, 302: delivery.ProviderFault}
	for status, want := range tests {
		a := &delivery.Answer{Status: status, Header: http.Header{"Retry-After": {"5"}}}
		e := a.Fail("p", time.Now())
		if e.Kind != want || e.Status != status {
			t.Errorf("%d: %s", status, e.Kind)
		}
		if status == 429 && e.RetryAfter != 5*time.Second {
			t.Errorf("retry after %v", e.RetryAfter)
		}
	}
}

func TestWebhookErrorsMatchByReason(t *testing.T) {
	err := fmt.Errorf("receive: %w", &delivery.WebhookError{Provider: "resend", Reason: delivery.Stale, Detail: "svix-timestamp"})
	if !errors.Is(err, delivery.ErrWebhookStale) || errors.Is(err, delivery.ErrWebhookBadAuth) {
		t.Fatal("Is")
	}
	if !delivery.SecretEqual("a", "a") || delivery.SecretEqual("a", "ab") || delivery.SecretEqual("", "a") {
		t.Fatal("SecretEqual")
	}
}
