package identity_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/platform/backend/internal/apptest"
)

// TestAuthorityBoundaries: the edges of what organization roles and keys
// reach. Each case was a way past them once (review of the identity
// service): platform scopes through a tenant's key, another member's
// cross-organization export, an admin stripping an owner, the platform
// bypass offered to a tenant's session.
func TestAuthorityBoundaries(t *testing.T) {
	h := apptest.Start(t, apptest.Options{})
	owner := iatRegister(t, h, "bound")
	_, adminEmail, adminPassword := iatCreateUser(t, h, owner.Access, "admin")
	guestID, guestEmail, guestPassword := iatCreateUser(t, h, owner.Access, "guest")
	admin := iatLoginEventually(t, h, adminEmail, adminPassword)
	guest := iatLoginEventually(t, h, guestEmail, guestPassword)
	apptest.Eventually(t, 15*time.Second, "the owner in the accounts read model", func() bool {
		return h.Do(t, "identity", http.MethodGet, "/api/users/"+owner.UserID, guest.AccessToken, nil).Status == http.StatusOK
	})

	t.Run("a tenant cannot mint a key with platform scopes", func(t *testing.T) {
		for _, scope := range []string{"projections:replay", "projections:read", "privacy:maintain"} {
			res := h.Do(t, "identity", http.MethodPost, "/api/api-keys", owner.Access,
				map[string]any{"name": "ops", "service": "ops", "scopes": []string{scope}})
			p := apptest.ExpectProblem(t, res, http.StatusUnprocessableEntity, "invalid_input")
			if len(p.Errors) == 0 || p.Errors[0].Pointer != "/scopes/0" {
				t.Fatalf("%s: %s", scope, res.Body)
			}
		}
		// Nor does an owner's session replay or list projections.
		apptest.ExpectProblem(t, h.Do(t, "ops", http.MethodPost, "/api/projections/status/replay", owner.Access, nil),
			http.StatusForbidden, "permission_denied")
		apptest.ExpectProblem(t, h.Do(t, "ops", http.MethodGet, "/api/projections", owner.Access, nil),
			http.StatusForbidden, "permission_denied")
		// An operator key of the administration organization may.
		apptest.Must(t, h.Do(t, "ops", http.MethodGet, "/api/projections", h.OperatorKey(t), nil), http.StatusOK, "operator lists projections")
	})

	t.Run("exports are the user's, its home admins' or the platform's", func(t *testing.T) {
		apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodGet, "/api/users/"+owner.UserID+"/export", guest.AccessToken, nil),
			http.StatusForbidden, "permission_denied")
		apptest.Must(t, h.Do(t, "identity", http.MethodGet, "/api/users/"+guestID+"/export", guest.AccessToken, nil), http.StatusOK, "own export")
		apptest.Must(t, h.Do(t, "identity", http.MethodGet, "/api/users/"+guestID+"/export", admin.AccessToken, nil), http.StatusOK, "home admin export")
	})

	t.Run("permission management follows the ladder", func(t *testing.T) {
		apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodPut, "/api/users/"+owner.UserID+"/permission-overrides", admin.AccessToken,
			map[string]any{"grant": []string{}, "deny": []string{"*.*:*"}}), http.StatusForbidden, "permission_denied")
		apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodPut, "/api/role-bundles/super_admin", admin.AccessToken,
			map[string]any{"permissions": []string{}}), http.StatusForbidden, "permission_denied")
		apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodPut, "/api/role-bundles/admin", admin.AccessToken,
			map[string]any{"permissions": []string{"*.*:read"}}), http.StatusForbidden, "permission_denied")
		// Below its own rank an admin manages, within what it holds itself.
		apptest.Must(t, h.Do(t, "identity", http.MethodPut, "/api/users/"+guestID+"/permission-overrides", admin.AccessToken,
			map[string]any{"grant": []string{}, "deny": []string{"status.status:read"}}), http.StatusOK, "admin denies a guest")
		apptest.Must(t, h.Do(t, "identity", http.MethodPut, "/api/role-bundles/member", admin.AccessToken,
			map[string]any{"permissions": []string{"*.*:read"}}), http.StatusOK, "admin narrows the member bundle")
	})

	t.Run("a deny override applies to the next validation", func(t *testing.T) {
		status, p := iatValidate(t, h, guest.AccessToken)
		if status != http.StatusOK || contains(p.Permissions, "status.status:read") || !contains(p.Permissions, "app_platform_auth.users:read") {
			t.Fatalf("guest after the deny: %d %v", status, p.Permissions)
		}
		apptest.ExpectProblem(t, h.Do(t, "status", http.MethodGet, "/api/incidents", guest.AccessToken, nil), http.StatusForbidden, "permission_denied")
	})

	t.Run("a bound key holds only what its binding allows", func(t *testing.T) {
		res := h.Do(t, "identity", http.MethodPost, "/api/api-keys", owner.Access, map[string]any{"name": "bound", "service": "status",
			"scopes": []string{"status:read", "status:write"}, "resourceBindings": []map[string]any{{"resourceType": "workspace",
				"resourceId": owner.OrgID, "accessLevel": "read", "allowedScopes": []string{"status:read"}}}})
		apptest.Must(t, res, http.StatusCreated, "bound key")
		var key struct {
			Token string `json:"token"`
		}
		res.JSON(t, &key)
		apptest.Must(t, h.Do(t, "status", http.MethodGet, "/api/incidents", key.Token, nil), http.StatusOK, "bound key reads")
		apptest.ExpectProblem(t, h.Do(t, "status", http.MethodPost, "/api/incidents", key.Token,
			map[string]any{"title": "Errors", "message": "Investigating", "severity": "minor"}), http.StatusForbidden, "permission_denied")
	})

	t.Run("only owners delete the organization", func(t *testing.T) {
		apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodDelete, "/api/organizations/"+owner.OrgID, admin.AccessToken, nil),
			http.StatusForbidden, "permission_denied")
	})
}

// TestServiceTokenIssuing: an operator key issues a service token that the
// internal routes accept as that service; a tenant cannot issue one.
func TestServiceTokenIssuing(t *testing.T) {
	h := apptest.Start(t, apptest.Options{})
	owner := iatRegister(t, h, "svctok")
	apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodPost, "/api/internal/service-tokens", owner.Access,
		map[string]any{"service": "payments"}), http.StatusForbidden, "permission_denied")
	p := apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodPost, "/api/internal/service-tokens", h.OperatorKey(t),
		map[string]any{"service": "Payments!", "ttlSeconds": 5}), http.StatusUnprocessableEntity, "invalid_input")
	if len(p.Errors) != 2 {
		t.Fatalf("want both members named: %+v", p.Errors)
	}
	res := h.Do(t, "identity", http.MethodPost, "/api/internal/service-tokens", h.OperatorKey(t), map[string]any{"service": "payments"})
	apptest.Must(t, res, http.StatusCreated, "issue")
	var tok struct {
		Token     string `json:"token"`
		Service   string `json:"service"`
		ExpiresIn int    `json:"expires_in"`
	}
	res.JSON(t, &tok)
	if tok.Service != "payments" || tok.ExpiresIn != 600 || res.Header.Get("Cache-Control") != "no-store" {
		t.Fatalf("issued %s", res.Body)
	}
	// The token is a payments service identity: provision-from-checkout
	// accepts it (schema errors, not authentication ones, for an empty body).
	apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodPost, "/api/internal/provision-from-checkout", tok.Token, map[string]any{}),
		http.StatusUnprocessableEntity, "invalid_input")
	apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodPost, "/api/internal/provision-from-checkout", owner.Access, map[string]any{}),
		http.StatusForbidden, "permission_denied")
}
