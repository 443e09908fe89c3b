package e2e

import (
	"fmt"
	"net/http"
	"strconv"
	"testing"
	"time"
)

// TestValidationDownFailsClosed: a status-only platformd validates
// credentials through another platformd's identity service (AUTH_BASE_URL).
// While that one runs, the key works; once it is killed, the same calls
// answer 503 dependency_unavailable with Retry-After: never 200, never 401;
// and they work again when it is back.
func TestValidationDownFailsClosed(t *testing.T) {
	s := NewStack(t)
	identity := s.StartServer(ServerOptions{Name: "platformd-identity"})
	statusOnly := s.StartServer(ServerOptions{Name: "platformd-status", Services: []string{"status"},
		Env: []string{"AUTH_BASE_URL=" + identity.URL("identity")}})
	status := statusOnly.URL("status")
	incidentEvents := func() int64 {
		return queryInt(t, s.Pool(), `SELECT count(*) FROM es_events WHERE stream_type='status.incident'`)
	}
	create := func() Response {
		return do(t, Req{Method: http.MethodPost, URL: status + "/api/incidents", Key: s.APIKey,
			Body: map[string]any{"title": "Checkout errors", "message": "Investigating", "severity": "major"}})
	}
	list := func() Response {
		return do(t, Req{Method: http.MethodGet, URL: status + "/api/incidents", Key: s.APIKey})
	}

	// Validation up: the key works, a wrong key is refused.
	expect(t, "create with the key", create(), http.StatusCreated)
	expect(t, "list with the key", list(), http.StatusOK)
	expectProblem(t, "create with a wrong key", do(t, Req{Method: http.MethodPost, URL: status + "/api/incidents", Key: "pk_00000000-0000-0000-0000-000000000000.wrong",
		Body: map[string]any{"title": "x", "message": "y", "severity": "minor"}}), http.StatusUnauthorized, "authentication_required")
	before := incidentEvents()

	// Validation down: fail closed.
	identity.Kill9()
	for i := range 5 {
		for what, call := range map[string]func() Response{"create": create, "list": list} {
			res := call()
			expectProblem(t, what+" while identity is down (#"+strconv.Itoa(i+1)+")", res, http.StatusServiceUnavailable, "dependency_unavailable")
			ra := res.Header.Get("Retry-After")
			if n, err := strconv.Atoi(ra); err != nil || n < 1 {
				t.Errorf("%s while identity is down: Retry-After %q, want a positive number of seconds", what, ra)
			}
		}
	}
	// The public page needs no credential and keeps serving.
	expect(t, "public status page while identity is down", do(t, Req{Method: http.MethodGet, URL: status + "/api/status"}), http.StatusOK)
	if n := incidentEvents(); n != before {
		t.Errorf("%d incidents were created while validation was down", n-before)
	}

	// Validation back: the key works again.
	identity.Start()
	eventually(t, 10*time.Second, "the key to work again", func() error {
		if res := create(); res.Status != http.StatusCreated {
			return fmt.Errorf("create: %s", res)
		}
		return nil
	})
	expect(t, "list after identity is back", list(), http.StatusOK)
}
