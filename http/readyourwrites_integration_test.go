package httpapi_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/platform/backend/internal/apptest"
	"github.com/platform/backend/internal/testenv"
)

// TestMinPositionOfAnotherTenant: X-Platform-Min-Position naming another
// organization's stream answers exactly like one naming a stream that does
// not exist (same status, at once), whether or not the other stream has
// reached the version. Before, an existing version answered 200 at once and
// a later one 503 after 3 s: a probe of another tenant's streams.
func TestMinPositionOfAnotherTenant(t *testing.T) {
	h := apptest.Start(t, apptest.Options{})
	_, other := h.NewOrganization(t, "Other Org", testenv.UniqueName("other"), apptest.DefaultScopes...)
	id, pos := h.CreateIncident(t, "")
	// The owner's own position is waited for: the read model has it now.
	apptest.Must(t, h.Do(t, "status", http.MethodGet, "/api/incidents?incidentId="+id, "", nil, "X-Platform-Min-Position", pos), http.StatusOK, "own position")

	missing := uuid.NewString()
	tests := []struct {
		name, position string
	}{
		{"another tenant's stream at an existing version", id + "@1"},
		{"another tenant's stream past its version", id + "@99"},
		{"a missing stream", missing + "@1"},
		{"a missing stream at a high version", missing + "@99"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			res := h.Do(t, "status", http.MethodGet, "/api/incidents?status=all", other, nil, "X-Platform-Min-Position", tc.position)
			elapsed := time.Since(start)
			apptest.Must(t, res, http.StatusOK, "other organization's list")
			if elapsed > time.Second {
				t.Fatalf("answered after %s: a position outside the caller's organization must not be waited for", elapsed)
			}
			if strings.TrimSpace(string(res.Body)) != `{"incidents":[]}` {
				t.Fatalf("the other organization sees incidents: %s", res.Body)
			}
		})
	}
	// Public routes have no organization: no tenant's stream is waited for.
	start := time.Now()
	apptest.Must(t, h.Do(t, "status", http.MethodGet, "/api/status", "-", nil, "X-Platform-Min-Position", id+"@99"), http.StatusOK, "public page")
	if elapsed := time.Since(start); elapsed > time.Second {
		t.Fatalf("the public page waited %s for a tenant's stream", elapsed)
	}
}

// TestMinPositionOfAnotherContext: a command may answer positions of
// several contexts (suggestion drafts and what they cost); a read model
// never applies a stream of a context it does not read, so such a position
// is not waited for: answered at once, not 503 after 3 s. Its own positions
// in the same list are still waited for.
func TestMinPositionOfAnotherContext(t *testing.T) {
	h := apptest.Start(t, apptest.Options{})
	res := h.Do(t, "contacts", http.MethodPost, "/api/contacts", "", map[string]any{"firstName": "Ada", "email": "ada@example.com"})
	apptest.Must(t, res, http.StatusCreated, "create contact")
	contact := res.Header.Get("X-Platform-Position")
	id, incident := h.CreateIncident(t, "")
	for _, position := range []string{contact, contact + ", " + incident} {
		start := time.Now()
		res := h.Do(t, "status", http.MethodGet, "/api/incidents?status=all", "", nil, "X-Platform-Min-Position", position)
		apptest.Must(t, res, http.StatusOK, "incidents read at "+position)
		if elapsed := time.Since(start); elapsed > 2*time.Second {
			t.Fatalf("%s: answered after %s: the status read model waited for a contacts stream", position, elapsed)
		}
		if position != contact && !strings.Contains(string(res.Body), id) {
			t.Fatalf("%s: the incident is missing: %s", position, res.Body)
		}
	}
}
