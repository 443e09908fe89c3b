package identity

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/principal"
	httpapi "github.com/platform/backend/http"
)

// TestValidateAnswersTheEncodedPrincipal: /validate's body is the
// principal's JSON and a newline (what httpapi.WriteJSON writes), with
// Content-Type, Content-Length and Cache-Control: no-store, for every
// answer: the same principal again (its body kept), and the same
// credential's principal after any member changed, in place or not (a new
// body). A refused credential is a 401 problem.
func TestValidateAnswersTheEncodedPrincipal(t *testing.T) {
	current := principal.Principal{ID: "key-1", Type: "api_key", OrganizationID: "org-1", Role: "member",
		Scopes: []string{"status:read"}, Permissions: []string{"status.status:read"}, ActingRole: "admin"}
	v := httpapi.ValidatorFunc(func(_ context.Context, token string) (principal.Principal, error) {
		if token != "pk_good" {
			return principal.Principal{}, errs.AuthenticationRequired("invalid credential")
		}
		return current, nil
	})
	deps := httpapi.Deps{Limiter: httpapi.NewLimiter(httpapi.RateLimitConfig{}), Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	h, err := httpapi.NewHandler(httpapi.Service{Name: "identity", Exact: ValidatePart(v, deps).Exact}, deps)
	if err != nil {
		t.Fatal(err)
	}
	validate := func(token string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodPost, "/validate", nil)
		req.Header.Set("Authorization", "Bearer "+token)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}
	check := func(step string) {
		t.Helper()
		rec := validate("pk_good")
		want, err := json.Marshal(current)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, '\n')
		hd := rec.Header()
		if rec.Code != http.StatusOK || rec.Body.String() != string(want) || hd.Get("Content-Type") != "application/json" ||
			hd.Get("Cache-Control") != "no-store" || hd.Get("Content-Length") != strconv.Itoa(len(want)) {
			t.Fatalf("%s: %d %v %s; want %s", step, rec.Code, hd, rec.Body, want)
		}
	}
	check("first answer")
	check("the same principal again")
	current.Permissions[0] = "status.status:write" // the same slice, changed in place
	check("a permission changed in place")
	current.Permissions = append([]string{"status.status:poll"}, current.Permissions...)
	check("a permission added")
	current.ActingRole = "owner"
	check("the acting role changed")
	current.Scopes = []string{}
	check("no scopes: [] (not null)")
	current.Scopes = nil
	check("no scopes: null")
	if rec := validate("pk_bad"); rec.Code != http.StatusUnauthorized || rec.Header().Get("Content-Type") != "application/problem+json" {
		t.Fatalf("a bad credential: %d %s", rec.Code, rec.Body)
	}
	if rec := validate(""); rec.Code != http.StatusUnauthorized {
		t.Fatalf("no credential: %d %s", rec.Code, rec.Body)
	}
}
