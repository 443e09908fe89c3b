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
	"github.com/platform/backend/providers/outcome"
)

func TestErrorTextAndKindOf(t *testing.T) {
	e := &delivery.Error{Provider: "postmark", Kind: outcome.Rejected, Reason: "inactive recipient", Code: "406", Status: 422}
	if e.Error() != "postmark: rejected: inactive recipient (code 406)" {
		t.Fatal(e.Error())
	}
	wrapped := fmt.Errorf("send: %w", e)
	if outcome.Of(wrapped) != outcome.Rejected || outcome.Of(nil) != "" || outcome.Of(errors.New("x")) != outcome.ProviderFault {
		t.Fatal("KindOf")
	}
	c := &delivery.Error{Provider: "p", Kind: outcome.Canceled, Reason: "caller canceled", Err: context.Canceled}
	if !errors.Is(c, context.Canceled) || strings.Contains(c.Error(), "context") {
		t.Fatalf("cause: %v", c)
	}
}

func TestEndpointClassifiesTheWayThereAndBack(t *testing.T) {
	tests := []struct {
		name    string
		handler http.HandlerFunc
		status  int
		kind    outcome.Kind
		reason  string
	}{
		{name: "any status is an answer", handler: func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(503) }, status: 503},
		{name: "answer too large", handler: func(w http.ResponseWriter, r *http.Request) {
			w.Write([]byte(strings.Repeat("x", delivery.MaxAnswer+1)))
		}, kind: outcome.ProviderFault, reason: "answer too large"},
		{name: "connection dropped mid-answer", handler: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", "100")
			w.Write([]byte("{"))
			conn, _, _ := w.(http.Hijacker).Hijack()
			conn.Close()
		}, kind: outcome.ProviderFault, reason: "connection lost"},
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
	tests := map[int]outcome.Kind{401: outcome.Unauthorized, 403: outcome.Unauthorized, 429: outcome.RateLimited,
		500: outcome.ProviderFault, 502: outcome.ProviderFault, 408: outcome.ProviderFault, 404: outcome.ProviderFault,
		400: outcome.Rejected, 422: outcome.Rejected, 302: outcome.ProviderFault}
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
