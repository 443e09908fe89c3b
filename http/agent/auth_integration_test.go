package agent_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/platform/backend/commands"
	identitycmd "github.com/platform/backend/commands/identity"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/internal/apptest"
)

// TestCredentialsValidatedByIdentity: the agent keeps no signing secret; a
// credential is identity's to validate on every call: none or a forged one
// is 401, a key revoked a moment ago is 401 at once, an operator key of the
// administration organization is validated like any other; a key without
// the agent's scopes is 403 naming the permission.
func TestCredentialsValidatedByIdentity(t *testing.T) {
	h := apptest.Start(t, apptest.Options{})
	apptest.ExpectProblem(t, h.Do(t, "agent", http.MethodGet, "/api/flows", "-", nil), http.StatusUnauthorized, "authentication_required")
	apptest.ExpectProblem(t, h.Do(t, "agent", http.MethodGet, "/api/flows", "eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.", nil),
		http.StatusUnauthorized, "authentication_required")
	member := newPerson(t, h, h.OrgID, "member")
	call(t, h, http.MethodGet, "/api/flows", member.Key, nil, http.StatusOK, nil)
	if _, err := h.Identity().RevokeAPIKey(context.Background(), commands.Meta{OrganizationID: h.OrgID,
		Actor: eventstore.Actor{ID: "apptest", Type: "system"}}, identitycmd.RevokeAPIKey{KeyID: apptest.KeyID(member.Key)}); err != nil {
		t.Fatal(err)
	}
	apptest.ExpectProblem(t, h.Do(t, "agent", http.MethodGet, "/api/flows", member.Key, nil), http.StatusUnauthorized, "authentication_required")
	call(t, h, http.MethodGet, "/api/flows", h.OperatorKey(t), nil, http.StatusOK, nil)
	_, statusOnly := h.NewOrganization(t, "Status only", "status-only", "status:read")
	p := apptest.ExpectProblem(t, h.Do(t, "agent", http.MethodGet, "/api/flows", statusOnly, nil), http.StatusForbidden, "permission_denied")
	if p.Detail == "" {
		t.Fatalf("problem %+v", p)
	}
}
