package gateway_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/platform/backend/internal/apptest"
	"github.com/platform/backend/internal/testenv"
)

// TestProvisionByIdentityOnly: organization.provision takes only the
// identity service's service identity (runtime authorization), is
// idempotent per organization, and the in-process path (a reactor on
// identity's organization events) provisions every new organization.
func TestProvisionByIdentityOnly(t *testing.T) {
	h := start(t)
	ctx := context.Background()
	identity, err := h.Access().Keys().Issue(ctx, "identity", 0)
	if err != nil {
		t.Fatal(err)
	}
	payments, err := h.Access().Keys().Issue(ctx, "payments", 0)
	if err != nil {
		t.Fatal(err)
	}
	body := map[string]any{"organization_id": "org-from-identity", "name": "Acme", "slug": "acme", "billing_email": "billing@acme.test"}
	apptest.ExpectProblem(t, post(t, h, "/api/organizations/provision", payments, body), http.StatusForbidden, "permission_denied")
	apptest.ExpectProblem(t, post(t, h, "/api/organizations/provision", "", body), http.StatusForbidden, "permission_denied")
	apptest.ExpectProblem(t, post(t, h, "/api/organizations/provision", h.OperatorKey(t), body), http.StatusForbidden, "permission_denied")
	first := post(t, h, "/api/organizations/provision", identity, body)
	apptest.Must(t, first, http.StatusOK, "provision")
	again := post(t, h, "/api/organizations/provision", identity, body)
	apptest.Must(t, again, http.StatusOK, "provision again")
	if string(first.Body) != string(again.Body) {
		t.Fatalf("a repeat changed the organization: %s then %s", first.Body, again.Body)
	}
	if n := h.Count(t, `SELECT count(*) FROM es_events WHERE stream_id = 'org:org-from-identity'`); n != 1 {
		t.Fatalf("%d provisioning events, want 1", n)
	}

	// In process: identity's new organizations are provisioned by the reactor.
	apptest.Eventually(t, 30*time.Second, "the harness organization provisioned", func() bool {
		var o struct {
			Provisioned bool   `json:"provisioned"`
			Slug        string `json:"slug"`
		}
		get(t, h, "/api/organization", "").JSON(t, &o)
		return o.Provisioned && o.Slug != ""
	})
	_, other := h.NewOrganization(t, "Second", testenv.UniqueName("second"), apptest.DefaultScopes...)
	apptest.Eventually(t, 30*time.Second, "a new organization provisioned", func() bool {
		var o struct {
			Provisioned bool `json:"provisioned"`
		}
		get(t, h, "/api/organization", other).JSON(t, &o)
		return o.Provisioned
	})
}
