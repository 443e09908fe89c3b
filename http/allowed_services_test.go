package httpapi_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/identity"
	httpapi "github.com/platform/backend/http"
)

// An action with allowedServices accepts only service identities of those
// services. An API key or a session whose target service has the same name
// is not the calling service and is refused.
func TestAllowedServicesAcceptOnlyServiceIdentities(t *testing.T) {
	principals := map[string]identity.Principal{
		"svc-payments":  {ID: "payments", Type: "service", Service: "payments"},
		"svc-notify":    {ID: "notifications", Type: "service", Service: "notifications"},
		"key-payments":  {ID: "k1", Type: "api_key", OrganizationID: "org", Service: "payments", Permissions: []string{"*.*:*"}},
		"user-payments": {ID: "u1", Type: "user", OrganizationID: "org", Service: "payments", Permissions: []string{"*.*:*"}},
	}
	svc := httpapi.Service{Name: "test", Actions: []httpapi.Action{{
		Name: "test.internal.run", Method: http.MethodPost, Path: "/internal", AuthorizationMode: httpapi.AuthRuntime,
		AllowedServices: []string{"payments"}, Summary: "internal route",
		OutputSchema: json.RawMessage(`{"type":"object","required":["ok"],"properties":{"ok":{"type":"boolean"}}}`),
		Handle: func(context.Context, *httpapi.Call) (httpapi.Reply, error) {
			return httpapi.Reply{Body: map[string]bool{"ok": true}}, nil
		},
	}}}
	h, err := httpapi.NewHandler(svc, httpapi.Deps{
		Validator: httpapi.ValidatorFunc(func(_ context.Context, token string) (identity.Principal, error) {
			if p, ok := principals[token]; ok {
				return p, nil
			}
			return identity.Principal{}, errs.AuthenticationRequired("invalid credential")
		}),
		Limiter: httpapi.NewLimiter(httpapi.RateLimitConfig{}),
		Log:     slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		token string
		want  int
	}{
		{"svc-payments", http.StatusOK},
		{"svc-notify", http.StatusForbidden},
		{"key-payments", http.StatusForbidden},
		{"user-payments", http.StatusForbidden},
		{"bogus", http.StatusUnauthorized},
	} {
		t.Run(tc.token, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodPost, "/internal", nil)
			req.Header.Set("Authorization", "Bearer "+tc.token)
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != tc.want {
				t.Fatalf("status %d, want %d: %s", rec.Code, tc.want, rec.Body)
			}
		})
	}
}
