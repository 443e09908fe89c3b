package identity_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/platform/backend/commands"
	identitycmd "github.com/platform/backend/commands/identity"
	domain "github.com/platform/backend/domain/identity"
	"github.com/platform/backend/eventstore"
	httpapi "github.com/platform/backend/http"
	"github.com/platform/backend/internal/app"
	"github.com/platform/backend/internal/apptest"
	"github.com/platform/backend/internal/testenv"
	identityview "github.com/platform/backend/projections/identity"
)

// Helpers of this file are prefixed iat (identity accounts test).

type iatAccount struct {
	OrgID, UserID, Email, Password, Access, Refresh string
}

type iatSession struct {
	SessionID      string `json:"session_id"`
	UserID         string `json:"user_id"`
	OrganizationID string `json:"organization_id"`
	Role           string `json:"role"`
	AccessToken    string `json:"access_token"`
	RefreshToken   string `json:"refresh_token"`
}

type iatPrincipal struct {
	ID             string   `json:"principal_id"`
	Type           string   `json:"principal_type"`
	OrganizationID string   `json:"organization_id"`
	Role           string   `json:"role"`
	Scopes         []string `json:"scopes"`
	Permissions    []string `json:"permissions"`
	UserID         string   `json:"user_id"`
	SessionID      string   `json:"session_id"`
	PlatformRole   string   `json:"platform_role"`
}

func iatEmail(prefix string) string { return testenv.UniqueName(prefix) + "@example.test" }

func iatSlug(prefix string) string {
	return strings.ToLower(regexp.MustCompile(`[^a-z0-9]+`).ReplaceAllString(testenv.UniqueName(prefix), "-"))
}

// iatRegister signs up a developer workspace: the confirmation token that
// POST /register emails is minted in-process (no email, so tests that count
// a user's emails see only their own), then POST /register/confirm.
// TestSignupDoesNotTellAccounts goes through the email.
func iatRegister(t *testing.T, h *apptest.Harness, prefix string) iatAccount {
	t.Helper()
	a := iatAccount{Email: iatEmail(prefix), Password: "correct horse " + prefix}
	token, _, err := h.Access().SignupToken(context.Background(), identitycmd.Register{Email: a.Email, Password: a.Password,
		Name: "Person " + prefix, OrganizationName: "Org " + prefix, OrganizationSlug: iatSlug(prefix),
		DeveloperWorkspace: true, CreateOrganization: true})
	if err != nil {
		t.Fatal(err)
	}
	res := h.Do(t, "identity", http.MethodPost, "/register/confirm", "-", map[string]any{"token": token, "returnRefreshToken": true})
	apptest.Must(t, res, http.StatusCreated, "register "+prefix)
	var body struct {
		Organization struct {
			OrganizationID     string `json:"organization_id"`
			DeveloperWorkspace bool   `json:"developer_workspace"`
		} `json:"organization"`
		User    struct{ UserID, Role string } `json:"user"`
		Session iatSession                    `json:"session"`
	}
	res.JSON(t, &body)
	if body.Session.Role != "owner" || !body.Organization.DeveloperWorkspace || body.Session.OrganizationID != body.Organization.OrganizationID {
		t.Fatalf("register answer: %s", res.Body)
	}
	if !strings.Contains(res.Header.Get("Set-Cookie"), "HttpOnly") {
		t.Fatalf("the refresh cookie must be HttpOnly: %q", res.Header.Get("Set-Cookie"))
	}
	a.OrgID, a.UserID, a.Access, a.Refresh = body.Organization.OrganizationID, body.Session.UserID, body.Session.AccessToken, body.Session.RefreshToken
	return a
}

func iatValidate(t *testing.T, h *apptest.Harness, token string) (int, iatPrincipal) {
	t.Helper()
	res := h.Do(t, "identity", http.MethodPost, "/validate", token, nil)
	var p iatPrincipal
	if res.Status == http.StatusOK {
		res.JSON(t, &p)
	}
	return res.Status, p
}

func iatLogin(t *testing.T, h *apptest.Harness, email, password string, extra map[string]any) apptest.Response {
	t.Helper()
	body := map[string]any{"email": email, "password": password, "returnRefreshToken": true}
	for k, v := range extra {
		body[k] = v
	}
	return h.Do(t, "identity", http.MethodPost, "/login", "-", body)
}

// iatLoginEventually signs in once the new user is in the accounts read
// model (sign-in finds users by email there, then checks the write side).
func iatLoginEventually(t *testing.T, h *apptest.Harness, email, password string) iatSession {
	t.Helper()
	var s iatSession
	apptest.Eventually(t, 15*time.Second, "sign-in of "+email, func() bool {
		res := iatLogin(t, h, email, password, nil)
		if res.Status != http.StatusOK {
			return false
		}
		res.JSON(t, &s)
		return true
	})
	// Sign-in reads the write side; the tests after it read the accounts
	// read model, so wait until it shows the user too.
	apptest.Eventually(t, 15*time.Second, "the user in the accounts read model", func() bool {
		return h.Do(t, "identity", http.MethodGet, "/api/users/"+s.UserID, s.AccessToken, nil).Status == http.StatusOK
	})
	return s
}

// iatDescriptor is one action descriptor as /api/actions lists it.
type iatDescriptor struct {
	Name                 string         `json:"name"`
	Method               string         `json:"method"`
	Path                 string         `json:"path"`
	Summary              string         `json:"summary"`
	InputSchema          map[string]any `json:"inputSchema"`
	ReadOnly             bool           `json:"readOnly"`
	Destructive          bool           `json:"destructive"`
	RequiresConfirmation bool           `json:"requiresConfirmation"`
	AgentAccess          string         `json:"agentAccess"`
}

// iatDescriptors lists the identity service's action descriptors by name.
func iatDescriptors(t *testing.T, h *apptest.Harness) map[string]iatDescriptor {
	t.Helper()
	res := h.Do(t, "identity", http.MethodGet, "/api/actions", "-", nil)
	apptest.Must(t, res, http.StatusOK, "actions")
	var body struct {
		Actions []iatDescriptor `json:"actions"`
	}
	res.JSON(t, &body)
	out := make(map[string]iatDescriptor, len(body.Actions))
	for _, a := range body.Actions {
		out[a.Name] = a
	}
	return out
}

// iatSettle waits until the accounts read model holds a command's answer.
func iatSettle(t *testing.T, h *apptest.Harness, res apptest.Response) {
	t.Helper()
	pos, err := eventstore.ParsePositions(res.Header.Get(httpapi.HeaderPosition))
	if err != nil {
		t.Fatalf("answer without a position: %v", err)
	}
	if err := h.App.Reader.WaitFor(context.Background(), identityview.Name, pos...); err != nil {
		t.Fatal(err)
	}
}

// iatCreateUser: an admin adds a user with a password to its organization.
// The answer names no user (it must not tell a new address from one with an
// account elsewhere), so the id comes from the email's claim, in-process.
func iatCreateUser(t *testing.T, h *apptest.Harness, token, role string) (string, string, string) {
	t.Helper()
	email, password := iatEmail("user"), "a long enough password"
	res := h.Do(t, "identity", http.MethodPost, "/api/users", token, map[string]any{"email": email, "password": password, "role": role, "name": "Ada"})
	apptest.Must(t, res, http.StatusAccepted, "create user")
	var u struct {
		Status string `json:"status"`
		Role   string `json:"role"`
	}
	res.JSON(t, &u)
	if u.Role != role || u.Status != "accepted" {
		t.Fatalf("created user: %s", res.Body)
	}
	return iatUserID(t, h, email), email, password
}

// iatUserID finds the account that holds an email (write side).
func iatUserID(t *testing.T, h *apptest.Harness, email string) string {
	t.Helper()
	hash, err := h.Identity().Keys().EmailHash(context.Background(), email)
	if err != nil {
		t.Fatal(err)
	}
	id, err := h.App.Store.Holder(context.Background(), domain.UniqueEmail, hash)
	if err != nil || id == "" {
		t.Fatalf("no account holds %s: %v", email, err)
	}
	return id
}

// TestSessionsValidateRolesAndLogout: a role change is visible to /validate
// at once; wrong passwords are 401; logout kills the session's tokens;
// logout everywhere kills every session; refresh rotates and detects reuse.
func TestSessionsValidateRolesAndLogout(t *testing.T) {
	h := apptest.Start(t, apptest.Options{})
	owner := iatRegister(t, h, "owner")

	status, p := iatValidate(t, h, owner.Access)
	if status != http.StatusOK || p.Type != "user" || p.Role != "owner" || p.OrganizationID != owner.OrgID || p.UserID != owner.UserID || p.SessionID == "" {
		t.Fatalf("validate owner: %d %+v", status, p)
	}

	userID, email, password := iatCreateUser(t, h, owner.Access, "member")
	member := iatLoginEventually(t, h, email, password)
	if member.UserID != userID || member.Role != "member" || member.OrganizationID != owner.OrgID {
		t.Fatalf("member session: %+v", member)
	}

	t.Run("wrong password and unknown email are 401", func(t *testing.T) {
		apptest.ExpectProblem(t, iatLogin(t, h, email, "not the password", nil), http.StatusUnauthorized, "authentication_required")
		apptest.ExpectProblem(t, iatLogin(t, h, "nobody-"+email, password, nil), http.StatusUnauthorized, "authentication_required")
		apptest.ExpectProblem(t, iatLogin(t, h, strings.ToUpper(email), "x", nil), http.StatusUnauthorized, "authentication_required")
		// The email compares case-insensitively.
		apptest.Must(t, iatLogin(t, h, strings.ToUpper(email), password, nil), http.StatusOK, "login with an upper-case email")
	})

	t.Run("role change applies to validate at once", func(t *testing.T) {
		if _, p := iatValidate(t, h, member.AccessToken); p.Role != "member" || contains(p.Permissions, "app_platform_auth.users:manage") {
			t.Fatalf("before: %+v", p)
		}
		// A member cannot promote itself.
		apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodPut, "/api/organizations/"+owner.OrgID+"/members/"+userID, member.AccessToken,
			map[string]any{"role": "admin"}), http.StatusForbidden, "permission_denied")
		res := h.Do(t, "identity", http.MethodPut, "/api/organizations/"+owner.OrgID+"/members/"+userID, owner.Access, map[string]any{"role": "admin"})
		apptest.Must(t, res, http.StatusOK, "promote")
		// No wait, no refresh: the next validation carries the new role.
		status, p := iatValidate(t, h, member.AccessToken)
		if status != http.StatusOK || p.Role != "admin" || !contains(p.Permissions, "app_platform_auth.users:manage") {
			t.Fatalf("after promotion: %d %+v", status, p)
		}
		apptest.Must(t, h.Do(t, "identity", http.MethodPut, "/api/organizations/"+owner.OrgID+"/members/"+userID, owner.Access,
			map[string]any{"role": "guest"}), http.StatusOK, "demote")
		if _, p := iatValidate(t, h, member.AccessToken); p.Role != "guest" {
			t.Fatalf("after demotion: %+v", p)
		}
		// The admin (now guest) lost members:write on the very next request.
		apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodPut, "/api/organizations/"+owner.OrgID+"/members/"+owner.UserID, member.AccessToken,
			map[string]any{"role": "guest"}), http.StatusForbidden, "permission_denied")
		// The last owner cannot be demoted.
		apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodPut, "/api/organizations/"+owner.OrgID+"/members/"+owner.UserID, owner.Access,
			map[string]any{"role": "admin"}), http.StatusConflict, "last_owner")
	})

	t.Run("logout kills the session's tokens", func(t *testing.T) {
		s := iatLoginEventually(t, h, email, password)
		if status, _ := iatValidate(t, h, s.AccessToken); status != http.StatusOK {
			t.Fatalf("fresh session: %d", status)
		}
		res := h.Do(t, "identity", http.MethodPost, "/logout", s.AccessToken, nil)
		apptest.Must(t, res, http.StatusOK, "logout")
		if !strings.Contains(res.Header.Get("Set-Cookie"), "Max-Age=0") {
			t.Fatalf("logout clears the cookie: %q", res.Header.Get("Set-Cookie"))
		}
		apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodPost, "/validate", s.AccessToken, nil), http.StatusUnauthorized, "authentication_required")
		apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodPost, "/refresh", "-", map[string]any{"refreshToken": s.RefreshToken}),
			http.StatusUnauthorized, "authentication_required")
		// Other services see it too (they validate through identity).
		apptest.ExpectProblem(t, h.Do(t, "status", http.MethodGet, "/api/incidents", s.AccessToken, nil), http.StatusUnauthorized, "authentication_required")
		// The other session of the user is untouched.
		if status, _ := iatValidate(t, h, member.AccessToken); status != http.StatusOK {
			t.Fatalf("logout ended another session: %d", status)
		}
	})

	t.Run("refresh rotates; a reused refresh token ends the session", func(t *testing.T) {
		s := iatLoginEventually(t, h, email, password)
		cookie := "platform_refresh=" + s.RefreshToken
		// Cookie-backed refresh needs the X-Platform-Auth header (CSRF guard).
		apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodPost, "/refresh", "-", nil, "Cookie", cookie), http.StatusUnauthorized, "authentication_required")
		res := h.Do(t, "identity", http.MethodPost, "/refresh", "-", nil, "Cookie", cookie, "X-Platform-Auth", "1")
		apptest.Must(t, res, http.StatusOK, "refresh")
		var next iatSession
		res.JSON(t, &next)
		if next.AccessToken == s.AccessToken || next.SessionID != s.SessionID || next.RefreshToken != "" {
			t.Fatalf("refresh answer (cookie flow returns no refresh token in the body): %s", res.Body)
		}
		if !strings.Contains(res.Header.Get("Set-Cookie"), "platform_refresh=prt_") {
			t.Fatalf("refresh sets the rotated cookie: %q", res.Header.Get("Set-Cookie"))
		}
		if status, _ := iatValidate(t, h, s.AccessToken); status != http.StatusUnauthorized {
			t.Fatalf("the old access token after rotation: %d", status)
		}
		if status, _ := iatValidate(t, h, next.AccessToken); status != http.StatusOK {
			t.Fatalf("the new access token: %d", status)
		}
		// The old refresh token again: theft is assumed, the session ends.
		apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodPost, "/refresh", "-", map[string]any{"refreshToken": s.RefreshToken}),
			http.StatusUnauthorized, "authentication_required")
		if status, _ := iatValidate(t, h, next.AccessToken); status != http.StatusUnauthorized {
			t.Fatalf("after refresh-token reuse the session must be ended: %d", status)
		}
	})

	t.Run("settings redirects signed-in browsers", func(t *testing.T) {
		s := iatLoginEventually(t, h, email, password)
		client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		req, _ := http.NewRequest(http.MethodGet, h.URLs["identity"]+"/settings", nil)
		req.Header.Set("Cookie", "platform_refresh="+s.RefreshToken)
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusFound || resp.Header.Get("Location") != "/security/user" {
			t.Fatalf("settings: %d %q", resp.StatusCode, resp.Header.Get("Location"))
		}
		apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodGet, "/settings", "-", nil), http.StatusUnauthorized, "authentication_required")
	})

	t.Run("logout everywhere kills every session", func(t *testing.T) {
		a := iatLoginEventually(t, h, email, password)
		b := iatLoginEventually(t, h, email, password)
		apptest.Must(t, h.Do(t, "identity", http.MethodPost, "/logout-everywhere", a.AccessToken, nil), http.StatusOK, "logout everywhere")
		for _, tok := range []string{a.AccessToken, b.AccessToken, member.AccessToken} {
			if status, _ := iatValidate(t, h, tok); status != http.StatusUnauthorized {
				t.Fatalf("a session survived logout everywhere: %d", status)
			}
		}
		apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodPost, "/refresh", "-", map[string]any{"refreshToken": b.RefreshToken}),
			http.StatusUnauthorized, "authentication_required")
		// The owner's sessions are someone else's: untouched.
		if status, _ := iatValidate(t, h, owner.Access); status != http.StatusOK {
			t.Fatalf("another user's session ended: %d", status)
		}
		// Signing in again works.
		iatLoginEventually(t, h, email, password)
	})

	t.Run("a soft-deleted user cannot sign in and its sessions stop", func(t *testing.T) {
		s := iatLoginEventually(t, h, email, password)
		apptest.Must(t, h.Do(t, "identity", http.MethodDelete, "/api/users/"+userID, owner.Access, nil), http.StatusOK, "soft delete user")
		if status, _ := iatValidate(t, h, s.AccessToken); status != http.StatusUnauthorized {
			t.Fatalf("session of a deleted user: %d", status)
		}
		apptest.ExpectProblem(t, iatLogin(t, h, email, password, nil), http.StatusUnauthorized, "authentication_required")
		apptest.Must(t, h.Do(t, "identity", http.MethodPost, "/api/users/"+userID+"/restore", owner.Access, nil), http.StatusOK, "restore user")
		iatLoginEventually(t, h, email, password)
	})
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// TestActiveOrganizationChoice: a user with two memberships signs in to the
// home organization by default, to another with organizationId, and never
// to an organization it does not belong to.
func TestActiveOrganizationChoice(t *testing.T) {
	h := apptest.Start(t, apptest.Options{})
	a := iatRegister(t, h, "multi")
	other := iatRegister(t, h, "other")
	res := h.Do(t, "identity", http.MethodPost, "/api/organizations", a.Access, map[string]any{"name": "Second", "slug": iatSlug("second")})
	apptest.Must(t, res, http.StatusCreated, "create second organization")
	// Default and service-scoped sign-in choose among the memberships the
	// accounts read model lists: let it see the second one.
	iatSettle(t, h, res)
	var second struct {
		OrganizationID string `json:"organization_id"`
	}
	res.JSON(t, &second)
	// API keys cannot create organizations: there would be no owner.
	apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodPost, "/api/organizations", "", map[string]any{"name": "X", "slug": iatSlug("x")}),
		http.StatusForbidden, "permission_denied")

	s := iatLoginEventually(t, h, a.Email, a.Password)
	if s.OrganizationID != a.OrgID {
		t.Fatalf("default sign-in went to %s, want the home organization %s", s.OrganizationID, a.OrgID)
	}
	res = iatLogin(t, h, a.Email, a.Password, map[string]any{"organizationId": second.OrganizationID})
	apptest.Must(t, res, http.StatusOK, "sign in to the second organization")
	var s2 iatSession
	res.JSON(t, &s2)
	if _, p := iatValidate(t, h, s2.AccessToken); p.OrganizationID != second.OrganizationID || p.Role != "owner" {
		t.Fatalf("second organization session: %+v", p)
	}
	apptest.ExpectProblem(t, iatLogin(t, h, a.Email, a.Password, map[string]any{"organizationId": other.OrgID}), http.StatusForbidden, "permission_denied")

	// First-party service-scoped sign-in: the one membership whose
	// organization may use the service; none, or several, are refused.
	apptest.ExpectProblem(t, iatLogin(t, h, a.Email, a.Password, map[string]any{"service": "no_such_service"}), http.StatusForbidden, "permission_denied")
	apptest.ExpectProblem(t, iatLogin(t, h, a.Email, a.Password, map[string]any{"service": "status"}), http.StatusConflict, "organization_required")
	iatLoginEventually(t, h, other.Email, other.Password) // other is in the read model
	res = iatLogin(t, h, other.Email, other.Password, map[string]any{"service": "status"})
	apptest.Must(t, res, http.StatusOK, "service-scoped sign-in with one membership")
	var s3 iatSession
	res.JSON(t, &s3)
	if s3.OrganizationID != other.OrgID {
		t.Fatalf("service-scoped sign-in chose %s, want %s", s3.OrganizationID, other.OrgID)
	}
}

// TestOrganizationIsolation: every read and write route with another
// tenant's id answers 404, as for a missing id.
func TestOrganizationIsolation(t *testing.T) {
	h := apptest.Start(t, apptest.Options{})
	a := iatRegister(t, h, "tenant-a")
	b := iatRegister(t, h, "tenant-b")
	bUser, _, _ := iatCreateUser(t, h, b.Access, "member")
	// Wait until b's data is projected, so a 404 cannot come from lag. The
	// organization and the user are different streams, on partitions of
	// their own: each is waited for.
	apptest.Eventually(t, 15*time.Second, "b's user and organization in the read model", func() bool {
		return h.Do(t, "identity", http.MethodGet, "/api/users/"+bUser, b.Access, nil).Status == http.StatusOK &&
			h.Do(t, "identity", http.MethodGet, "/api/organizations/"+b.OrgID, b.Access, nil).Status == http.StatusOK
	})

	missing := "01900000-0000-7000-8000-000000000000"
	for _, id := range []string{b.OrgID, missing} {
		for _, r := range []struct{ method, path string }{
			{http.MethodGet, "/api/organizations/" + id},
			{http.MethodGet, "/api/organizations/" + id + "/export"},
			{http.MethodGet, "/api/organizations/" + id + "/members"},
			{http.MethodDelete, "/api/organizations/" + id},
			{http.MethodPost, "/api/organizations/" + id + "/restore"},
			{http.MethodDelete, "/api/organizations/" + id + "/permanent?confirm=true"},
			{http.MethodPut, "/api/organizations/" + id + "/members/" + bUser},
			{http.MethodDelete, "/api/organizations/" + id + "/members/" + bUser},
		} {
			var body any
			if r.method == http.MethodPut {
				body = map[string]any{"role": "guest"}
			}
			apptest.ExpectProblem(t, h.Do(t, "identity", r.method, r.path, a.Access, body), http.StatusNotFound, "not_found")
		}
	}
	for _, id := range []string{bUser, b.UserID, missing} {
		for _, r := range []struct{ method, path string }{
			{http.MethodGet, "/api/users/" + id},
			{http.MethodGet, "/api/users/" + id + "/export"},
			{http.MethodDelete, "/api/users/" + id},
			{http.MethodPost, "/api/users/" + id + "/restore"},
			{http.MethodDelete, "/api/users/" + id + "/permanent?confirm=true"},
		} {
			apptest.ExpectProblem(t, h.Do(t, "identity", r.method, r.path, a.Access, nil), http.StatusNotFound, "not_found")
		}
	}
	// Nothing of b changed.
	apptest.Must(t, h.Do(t, "identity", http.MethodGet, "/api/organizations/"+b.OrgID, b.Access, nil), http.StatusOK, "b still there")
	if status, p := iatValidate(t, h, b.Access); status != http.StatusOK || p.Role != "owner" {
		t.Fatalf("b's owner: %d %+v", status, p)
	}
}

// TestPermanentDeletionAndExport: exports hold no secret; permanent delete
// needs confirmation, a prior soft delete, and never takes the
// administration organization; afterwards get and export are 404.
func TestPermanentDeletionAndExport(t *testing.T) {
	h := apptest.Start(t, apptest.Options{})
	a := iatRegister(t, h, "deleter")
	userID, email, password := iatCreateUser(t, h, a.Access, "member")
	s := iatLoginEventually(t, h, email, password)
	mfa := secEnroll(t, h, s.AccessToken) // an MFA secret and backup codes exist; neither may reach an export

	t.Run("exports hold no secret", func(t *testing.T) {
		var orgExport, userExport apptest.Response
		apptest.Eventually(t, 15*time.Second, "the member in the organization export", func() bool {
			orgExport = h.Do(t, "identity", http.MethodGet, "/api/organizations/"+a.OrgID+"/export", a.Access, nil)
			return orgExport.Status == http.StatusOK && bytes.Contains(orgExport.Body, []byte(email))
		})
		apptest.Eventually(t, 15*time.Second, "the sessions in the user export", func() bool {
			userExport = h.Do(t, "identity", http.MethodGet, "/api/users/"+userID+"/export", a.Access, nil)
			return userExport.Status == http.StatusOK && bytes.Contains(userExport.Body, []byte(`"session_id"`))
		})
		if !bytes.Contains(userExport.Body, []byte(email)) || !bytes.Contains(userExport.Body, []byte(`"Ada"`)) {
			t.Fatalf("the user export must carry the user's own data: %s", userExport.Body)
		}
		secret := regexp.MustCompile(`(?i)argon2|password|hash|secret|token|pat_|prt_|pk_|enc:v1:|mfa|backup|reset|invitation`)
		for name, body := range map[string][]byte{"organization": orgExport.Body, "user": userExport.Body} {
			if m := secret.Find(body); m != nil {
				t.Errorf("%s export contains %q: %s", name, m, body)
			}
			for _, v := range append([]string{mfa.Secret}, mfa.BackupCodes...) {
				if bytes.Contains(bytes.ToUpper(body), []byte(strings.ToUpper(v))) {
					t.Errorf("%s export contains the MFA secret or a backup code", name)
				}
			}
		}
	})

	t.Run("permanent user deletion needs confirmation", func(t *testing.T) {
		apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodDelete, "/api/users/"+userID+"/permanent", a.Access, nil), http.StatusUnprocessableEntity, "invalid_input")
		apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodDelete, "/api/users/"+userID+"/permanent?confirm=false", a.Access, nil), http.StatusUnprocessableEntity, "invalid_input")
		res := h.Do(t, "identity", http.MethodDelete, "/api/users/"+userID+"/permanent?confirm=true", a.Access, nil)
		apptest.Must(t, res, http.StatusOK, "erase user")
		pos := res.Header.Get("X-Platform-Position")
		apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodGet, "/api/users/"+userID, a.Access, nil, "X-Platform-Min-Position", pos), http.StatusNotFound, "not_found")
		apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodGet, "/api/users/"+userID+"/export", a.Access, nil, "X-Platform-Min-Position", pos), http.StatusNotFound, "not_found")
		apptest.ExpectProblem(t, iatLogin(t, h, email, password, nil), http.StatusUnauthorized, "authentication_required")
		// The email is free again.
		res = h.Do(t, "identity", http.MethodPost, "/api/users", a.Access, map[string]any{"email": email, "role": "member"})
		apptest.Must(t, res, http.StatusAccepted, "reuse the erased user's email")
		apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodPost, "/api/users", a.Access, map[string]any{"email": strings.ToUpper(email)}),
			http.StatusConflict, "email_taken")
	})

	t.Run("organization: soft delete first, then permanent", func(t *testing.T) {
		org := "/api/organizations/" + a.OrgID
		apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodDelete, org+"/permanent?confirm=true", a.Access, nil), http.StatusConflict, "not_soft_deleted")
		res := h.Do(t, "identity", http.MethodDelete, org, a.Access, nil)
		apptest.Must(t, res, http.StatusOK, "soft delete organization")
		pos := res.Header.Get("X-Platform-Position")
		// Recoverable: the owner still sees it, deleted, and can restore it.
		got := h.Do(t, "identity", http.MethodGet, org, a.Access, nil, "X-Platform-Min-Position", pos)
		apptest.Must(t, got, http.StatusOK, "get soft-deleted organization")
		if !bytes.Contains(got.Body, []byte(`"state":"deleted"`)) {
			t.Fatalf("soft-deleted organization: %s", got.Body)
		}
		apptest.Must(t, h.Do(t, "identity", http.MethodPost, org+"/restore", a.Access, nil), http.StatusOK, "restore organization")
		apptest.Must(t, h.Do(t, "identity", http.MethodDelete, org, a.Access, nil), http.StatusOK, "soft delete again")
		res = h.Do(t, "identity", http.MethodDelete, org+"/permanent?confirm=true", a.Access, nil)
		apptest.Must(t, res, http.StatusOK, "permanent delete")
		pos = res.Header.Get("X-Platform-Position")
		// The owner's session is gone with the organization; a platform-wide
		// reader would see 404 too: read the model with the write position.
		if status, _ := iatValidate(t, h, a.Access); status != http.StatusUnauthorized {
			t.Fatalf("session in an erased organization: %d", status)
		}
		if err := h.App.Reader.WaitFor(context.Background(), "identity_accounts", iatPosition(t, pos)...); err != nil {
			t.Fatal(err)
		}
		if _, err := apptest.Provided[*identityview.Queries](h).Organization(context.Background(), a.OrgID); err == nil {
			t.Fatal("an erased organization is still readable")
		}
		if _, err := apptest.Provided[*identityview.Queries](h).ExportOrganization(context.Background(), a.OrgID, time.Now()); err == nil {
			t.Fatal("an erased organization still exports")
		}
	})

	t.Run("the administration organization is never deleted", func(t *testing.T) {
		system := commands.Meta{Actor: eventstore.Actor{ID: "test", Type: "system"}}
		adminEmail, adminPassword := iatEmail("root"), "platform root password"
		boot, err := h.Identity().Bootstrap(context.Background(), system, identitycmd.Bootstrap{OrganizationName: "Platform",
			Slug: iatSlug("platform"), Email: adminEmail, Password: adminPassword, Administration: true})
		if err != nil {
			t.Fatal(err)
		}
		root := iatLoginEventually(t, h, adminEmail, adminPassword)
		if _, p := iatValidate(t, h, root.AccessToken); p.PlatformRole != "platform_super_admin" {
			t.Fatalf("the administration owner: %+v", p)
		}
		org := "/api/organizations/" + boot.Organization.OrganizationID
		apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodDelete, org, root.AccessToken, nil), http.StatusConflict, "administration_organization")
		apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodDelete, org+"/permanent?confirm=true", root.AccessToken, nil), http.StatusConflict, "administration_organization")
		// A second administration organization is refused by its claim.
		_, err = h.Identity().CreateOrganization(context.Background(), system, identitycmd.CreateOrganization{Name: "Other", Slug: iatSlug("plat"), Administration: true})
		if err == nil || !strings.Contains(err.Error(), "administration_organization_taken") {
			t.Fatalf("second administration organization: %v", err)
		}
		// Platform-wide bypass: the platform super admin sees other tenants.
		b := iatRegister(t, h, "customer")
		apptest.Eventually(t, 15*time.Second, "platform admin reads another tenant", func() bool {
			return h.Do(t, "identity", http.MethodGet, "/api/organizations/"+b.OrgID, root.AccessToken, nil).Status == http.StatusOK
		})
	})
}

func iatPosition(t *testing.T, s string) eventstore.Positions {
	t.Helper()
	p, err := eventstore.ParsePositions(s)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestSlugAvailability: reasons in the seed's order; a duplicate slug is 409.
func TestSlugAvailability(t *testing.T) {
	h := apptest.Start(t, apptest.Options{})
	a := iatRegister(t, h, "slugs")
	taken := iatSlug("taken")
	apptest.Must(t, h.Do(t, "identity", http.MethodPost, "/api/organizations", a.Access, map[string]any{"name": "T", "slug": taken}), http.StatusCreated, "create")
	for _, tc := range []struct{ slug, reason string }{
		{"", "empty"}, {"a", "invalid"}, {"Bad_Slug", "invalid"}, {"-abc", "invalid"}, {strings.Repeat("a", 49), "invalid"},
		{"www", "reserved"}, {"api", "reserved"}, {"admin", "reserved"}, {taken, "taken"}, {iatSlug("free"), "available"},
	} {
		res := h.Do(t, "identity", http.MethodGet, "/api/internal/organizations/slug-availability?slug="+tc.slug, a.Access, nil)
		apptest.Must(t, res, http.StatusOK, "slug "+tc.slug)
		var out struct {
			Available bool   `json:"available"`
			Slug      string `json:"slug"`
			Reason    string `json:"reason"`
		}
		res.JSON(t, &out)
		if out.Reason != tc.reason || out.Available != (tc.reason == "available") || out.Slug != tc.slug {
			t.Errorf("slug %q: %s, want reason %s", tc.slug, res.Body, tc.reason)
		}
	}
	apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodPost, "/api/organizations", a.Access, map[string]any{"name": "T2", "slug": taken}),
		http.StatusConflict, "slug_taken")
	apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodPost, "/register", "-", map[string]any{"email": iatEmail("late"), "password": "long enough pw",
		"organizationSlug": taken, "createOrganization": true, "developerWorkspace": true}), http.StatusConflict, "slug_taken")
	apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodPost, "/api/organizations", a.Access, map[string]any{"name": "R", "slug": "www"}),
		http.StatusUnprocessableEntity, "invalid_input")
	// A sign-up with an email that has an account is answered like any
	// other (202: the email tells its owner), and holds nothing.
	dupSlug := iatSlug("dup")
	apptest.Must(t, h.Do(t, "identity", http.MethodPost, "/register", "-", map[string]any{"email": a.Email, "password": "long enough pw",
		"organizationSlug": dupSlug, "createOrganization": true}), http.StatusAccepted, "sign-up with a taken email")
	res := h.Do(t, "identity", http.MethodGet, "/api/internal/organizations/slug-availability?slug="+dupSlug, a.Access, nil)
	if !bytes.Contains(res.Body, []byte(`"reason":"available"`)) {
		t.Fatalf("a refused sign-up must not hold its slug: %s", res.Body)
	}
}

// TestErasedPersonalDataStaysErasedAfterReplay: a permanently deleted user's
// email and name are in no read-model table after a full rebuild from the
// log, nor readable in the log itself (the topic and the outbox hold only
// sealed values whose key is destroyed).
func TestErasedPersonalDataStaysErasedAfterReplay(t *testing.T) {
	h := apptest.Start(t, apptest.Options{})
	ctx := context.Background()
	a := iatRegister(t, h, "replay")
	marker := "zq" + strings.ReplaceAll(testenv.UniqueName("x"), "-", "")
	email, name := marker+"@erase.example", "Name"+marker
	res := h.Do(t, "identity", http.MethodPost, "/api/users", a.Access, map[string]any{"email": email, "name": name, "password": "erase me please", "role": "member"})
	apptest.Must(t, res, http.StatusAccepted, "create user")
	u := struct{ UserID string }{iatUserID(t, h, email)}
	s := iatLoginEventually(t, h, email, "erase me please") // waits for the read model too
	apptest.Must(t, h.Do(t, "identity", http.MethodGet, "/api/users/"+u.UserID, s.AccessToken, nil), http.StatusOK, "the user sees itself")

	// Users may erase themselves (confirmation in the request).
	res = h.Do(t, "identity", http.MethodDelete, "/api/users/"+u.UserID+"/permanent", s.AccessToken, map[string]any{"confirm": true})
	apptest.Must(t, res, http.StatusOK, "self erasure")
	if err := h.App.Reader.WaitFor(ctx, "identity_accounts", iatPosition(t, res.Header.Get("X-Platform-Position"))...); err != nil {
		t.Fatal(err)
	}
	// The row stays as the destroyed marker; no key is left in it.
	if n := h.Count(t, `SELECT count(*) FROM identity_data_keys WHERE subject_id=$1 AND data_key IS NOT NULL`, u.UserID); n != 0 {
		t.Fatal("the user's data key survived erasure")
	}

	// Rebuild the accounts read model from offset zero.
	apptest.Must(t, h.Do(t, "ops", http.MethodPost, "/api/projections/identity_accounts/replay", h.OperatorKey(t), nil), http.StatusAccepted, "replay")
	apptest.Eventually(t, 60*time.Second, "generation 2 of identity_accounts to become active", func() bool {
		return h.Count(t, `SELECT count(*) FROM proj_generations WHERE projection='identity_accounts' AND generation=2 AND state='active'`) == 1
	})
	if n := h.Count(t, `SELECT count(*) FROM identity_users_g2 WHERE user_id=$1 AND state='erased' AND email='' AND name='' AND email_hash IS NULL`, u.UserID); n != 1 {
		t.Fatal("after the rebuild the erased user must be a bare tombstone")
	}
	apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodGet, "/api/users/"+u.UserID, a.Access, nil), http.StatusNotFound, "not_found")
	// Scan every identity table of both generations, the history (audit)
	// table, the outbox and the topic for the email and the name.
	apptest.Eventually(t, 20*time.Second, "history to apply the erasure", func() bool {
		return h.Count(t, `SELECT count(*) FROM history_events_g1 WHERE stream_id=$1 AND event_type=$2`, u.UserID, domain.UserPermanentlyDeleted) == 1
	})
	for _, table := range []string{"identity_organizations", "identity_users", "identity_memberships", "identity_sessions"} {
		for _, g := range []string{"_g1", "_g2"} {
			if n := h.Count(t, fmt.Sprintf(`SELECT count(*) FROM %s%s t WHERE t::text ILIKE '%%'||$1||'%%'`, table, g), marker); n != 0 {
				t.Errorf("%s%s holds the erased personal data", table, g)
			}
		}
	}
	for _, q := range []string{`SELECT count(*) FROM history_events_g1 t WHERE t::text ILIKE '%'||$1||'%'`,
		`SELECT count(*) FROM es_events WHERE payload::text ILIKE '%'||$1||'%'`,
		`SELECT count(*) FROM es_idempotency WHERE result::text ILIKE '%'||$1||'%'`,
		`SELECT count(*) FROM es_unique WHERE value ILIKE '%'||$1||'%'`} {
		if n := h.Count(t, q, marker); n != 0 {
			t.Errorf("%s: the erased personal data is readable", q)
		}
	}
	topic := h.Config.Kafka.Topics.ForContext("identity")
	msgs := apptest.ReadTopic(t, h.Config.Kafka.Brokers, topic, 30*time.Second)
	seen := false
	for _, m := range msgs {
		if bytes.Contains(bytes.ToLower(m.Value), []byte(marker)) {
			t.Fatalf("the topic holds the personal data in clear at offset %d", m.Offset)
		}
		if bytes.Contains(m.Value, []byte(u.UserID)) && bytes.Contains(m.Value, []byte(domain.UserCreated)) {
			seen = bytes.Contains(m.Value, []byte(domain.SealedPrefix))
		}
	}
	if !seen {
		t.Fatal("the user's created event with its sealed data was not found on the topic (the scan proves nothing)")
	}
}

// TestPrivacyMaintenance: with an injected clock, tombstones older than 30
// days and audit records older than 365 days are purged, in batches of 100;
// younger ones stay.
func TestPrivacyMaintenance(t *testing.T) {
	h := apptest.Start(t, apptest.Options{})
	ctx := context.Background()
	a := iatRegister(t, h, "privacy")
	system := domain.Actor{PlatformRole: domain.RolePlatformSuperAdmin}
	m := commands.Meta{OrganizationID: a.OrgID, Actor: eventstore.Actor{ID: "test", Type: "system"}}
	platform := domain.Principal{ID: "test", Type: "user", PlatformRole: domain.RolePlatformSuperAdmin}
	const n = 105 // more than one batch
	var ids []string
	for i := range n {
		u, err := h.Identity().CreateUser(ctx, m, system, identitycmd.CreateUser{Email: fmt.Sprintf("p%03d-%s", i, iatEmail("purge")), Role: "member"})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, u.Value.UserID)
		if _, err := h.Identity().DeleteUser(ctx, m, platform, u.Value.UserID); err != nil {
			t.Fatal(err)
		}
	}
	deletedAt := time.Now().UTC()
	apptest.Eventually(t, 30*time.Second, "tombstones in the read model", func() bool {
		return h.Count(t, `SELECT count(*) FROM identity_users_g1 WHERE state='deleted'`) == n
	})
	apptest.Eventually(t, 30*time.Second, "history to catch up", func() bool {
		return h.Count(t, `SELECT count(*) FROM history_events_g1`) == h.Count(t, `SELECT count(*) FROM es_events`)
	})
	audit := h.Count(t, `SELECT count(*) FROM history_events_g1`)

	rep, err := h.Identity().PurgeExpired(ctx, deletedAt.Add(29*24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if rep.TombstonesPurged != 0 || rep.AuditPurged != 0 {
		t.Fatalf("day 29 purged something: %+v", rep)
	}
	rep, err = h.Identity().PurgeExpired(ctx, deletedAt.Add(31*24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if rep.TombstonesPurged != n || rep.AuditPurged != 0 || rep.Batches < 2 {
		t.Fatalf("day 31: %+v, want %d tombstones in at least 2 batches and no audit record", rep, n)
	}
	for _, id := range ids[:3] {
		u, err := h.Identity().Store().Load(ctx, id)
		if err != nil || u[len(u)-1].Type != domain.UserPermanentlyDeleted || u[len(u)-1].IdempotencyKey != "privacy:purge:user:"+id {
			t.Fatalf("user %s was not purged by a keyed command: %v", id, err)
		}
	}
	// Idempotent: a second run (another leader) purges nothing again.
	rep, err = h.Identity().PurgeExpired(ctx, deletedAt.Add(31*24*time.Hour))
	if err != nil || rep.TombstonesPurged != 0 {
		t.Fatalf("second run: %+v %v", rep, err)
	}
	if got := h.Count(t, `SELECT count(*) FROM history_events_g1`); got < audit {
		t.Fatalf("audit records younger than 365 days were purged: %d of %d left", got, audit)
	}
	apptest.Eventually(t, 30*time.Second, "history to catch up", func() bool {
		return h.Count(t, `SELECT count(*) FROM history_events_g1`) == h.Count(t, `SELECT count(*) FROM es_events`)
	})
	rep, err = h.Identity().PurgeExpired(ctx, time.Now().UTC().Add(366*24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if rep.AuditPurged < 100 || h.Count(t, `SELECT count(*) FROM history_events_g1`) != 0 {
		t.Fatalf("day 366: %+v, %d audit records left", rep, h.Count(t, `SELECT count(*) FROM history_events_g1`))
	}
}

// TestBrowserContract: CORS for first-party origins (preflight with the
// platform headers), none for others; the session channel pages.
func TestBrowserContract(t *testing.T) {
	h := apptest.Start(t, apptest.Options{NoWorkers: true})
	preflight := func(origin string) *http.Response {
		req, _ := http.NewRequest(http.MethodOptions, h.URLs["identity"]+"/refresh", nil)
		req.Header.Set("Origin", origin)
		req.Header.Set("Access-Control-Request-Method", "POST")
		req.Header.Set("Access-Control-Request-Headers", "x-platform-auth, x-app-id")
		resp, err := h.Client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	ok := preflight("http://localhost:5173")
	allow := ok.Header.Get("Access-Control-Allow-Headers")
	if ok.StatusCode != http.StatusNoContent || ok.Header.Get("Access-Control-Allow-Origin") != "http://localhost:5173" ||
		!strings.Contains(allow, "X-Platform-Auth") || !strings.Contains(allow, "X-App-ID") || ok.Header.Get("Access-Control-Allow-Credentials") != "true" {
		t.Fatalf("first-party preflight: %d %v", ok.StatusCode, ok.Header)
	}
	if bad := preflight("https://evil.example"); bad.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Fatalf("a foreign origin got CORS: %v", bad.Header)
	}
	for _, path := range []string{"/session/channel", "/session/broadcast-logout"} {
		res := h.Do(t, "identity", http.MethodGet, path, "-", nil)
		apptest.Must(t, res, http.StatusOK, path)
		csp := res.Header.Get("Content-Security-Policy")
		if !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") || !bytes.Contains(res.Body, []byte("BroadcastChannel")) ||
			!strings.Contains(csp, "frame-ancestors 'self' http://localhost:*") || !strings.Contains(csp, "script-src 'nonce-") {
			t.Fatalf("%s: %v %s", path, res.Header, res.Body)
		}
	}
}

func TestOriginPatterns(t *testing.T) {
	p := &httpapi.CORSPolicy{Origins: []string{"https://app.example.com", "https://*.preview.example.com", "http://localhost:*"}}
	for origin, want := range map[string]bool{
		"https://app.example.com": true, "https://pr-12.preview.example.com": true, "https://a.b.preview.example.com": true,
		"https://preview.example.com": false, "http://app.example.com": false, "https://app.example.com:8443": false,
		"http://localhost:3000": true, "https://evil.example": false, "https://evilpreview.example.com": false, "null": false,
	} {
		if got := p.Allows(origin); got != want {
			t.Errorf("Allows(%q) = %v, want %v", origin, got, want)
		}
	}
}

// TestIdentityAccountDescriptors: every accounts and sessions operation is an
// action descriptor following seed 000's rules, and OpenAPI lists it.
func TestIdentityAccountDescriptors(t *testing.T) {
	h := apptest.Start(t, apptest.Options{NoWorkers: true})
	actions := iatDescriptors(t, h)
	for _, a := range actions {
		if a.ReadOnly != (a.AgentAccess == "auto") || a.ReadOnly == a.RequiresConfirmation {
			t.Errorf("%s: readOnly %v agentAccess %s requiresConfirmation %v", a.Name, a.ReadOnly, a.AgentAccess, a.RequiresConfirmation)
		}
	}
	want := map[string]bool{ // name -> destructive
		"app_platform_auth.sessions.login": false, "app_platform_auth.sessions.refresh": false, "app_platform_auth.sessions.logout": false,
		"app_platform_auth.sessions.logout_everywhere": false, "app_platform_auth.users.register": false,
		"app_platform_auth.organizations.create": false, "app_platform_auth.organizations.get": false,
		"app_platform_auth.organizations.export": false, "app_platform_auth.organizations.delete": false,
		"app_platform_auth.organizations.restore": false, "app_platform_auth.organizations.delete_permanently": true,
		"app_platform_auth.organizations.members.list": false, "app_platform_auth.organizations.members.update": false,
		"app_platform_auth.organizations.members.remove": false, "app_platform_auth.organizations.slug_availability": false,
		"app_platform_auth.users.create": false, "app_platform_auth.users.get": false, "app_platform_auth.users.export": false,
		"app_platform_auth.users.delete": false, "app_platform_auth.users.restore": false, "app_platform_auth.users.delete_permanently": true,
		"app_platform_auth.privacy.maintenance.run": false,
	}
	for name, destructive := range want {
		a, ok := actions[name]
		if !ok {
			t.Errorf("action %s is not served", name)
			continue
		}
		if a.Destructive != destructive {
			t.Errorf("%s: destructive %v, want %v", name, a.Destructive, destructive)
		}
	}
	doc := h.Do(t, "identity", http.MethodGet, "/api/openapi.json", "-", nil)
	apptest.Must(t, doc, http.StatusOK, "openapi")
	for _, p := range []string{`"/login"`, `"/api/organizations/{orgId}/permanent"`, `"/api/internal/organizations/slug-availability"`} {
		if !bytes.Contains(doc.Body, []byte(p)) {
			t.Errorf("OpenAPI lacks %s", p)
		}
	}
}

// TestCredentialAttemptLimit: sign-in attempts from one address run out
// (429 rate_limited with Retry-After) while other routes still answer.
func TestCredentialAttemptLimit(t *testing.T) {
	h := apptest.Start(t, apptest.Options{Configure: func(c *app.Config) {
		c.RateLimit.AttemptsPerMinute, c.RateLimit.AttemptsBurst = 1, 3
	}})
	for range 3 {
		apptest.ExpectProblem(t, iatLogin(t, h, iatEmail("guess"), "wrong password", nil), http.StatusUnauthorized, "authentication_required")
	}
	res := iatLogin(t, h, iatEmail("guess"), "wrong password", nil)
	apptest.ExpectProblem(t, res, http.StatusTooManyRequests, "rate_limited")
	if res.Header.Get("Retry-After") == "" {
		t.Fatal("429 without Retry-After")
	}
	apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodGet, "/magic-link/consume?token=ml_x", "-", nil), http.StatusTooManyRequests, "rate_limited")
	apptest.Must(t, h.Do(t, "identity", http.MethodGet, "/api/internal/organizations/slug-availability?slug=free-slug", "", nil), http.StatusOK, "other routes")
}

// TestValidateIgnoresOtherStreamKinds: a token naming another kind of
// stream (a key id under the session prefix, a session id under the key
// prefix, an organization id) is an unknown credential, and does not break
// the real credential afterwards (the validation cache is keyed by kind).
func TestValidateIgnoresOtherStreamKinds(t *testing.T) {
	h := apptest.Start(t, apptest.Options{})
	a := iatRegister(t, h, "poison")
	keyID, _, _ := strings.Cut(strings.TrimPrefix(h.APIKey, "pk_"), ".")
	sessionID, _, _ := strings.Cut(strings.TrimPrefix(a.Access, "pat_"), ".")
	for _, bogus := range []string{"pat_" + keyID + ".x", "pk_" + sessionID + ".x", "pk_" + a.OrgID + ".x", "pk_" + a.UserID + ".x"} {
		if status, _ := iatValidate(t, h, bogus); status != http.StatusUnauthorized {
			t.Fatalf("%s: status %d, want 401", bogus, status)
		}
	}
	if status, p := iatValidate(t, h, h.APIKey); status != http.StatusOK || p.Type != "api_key" {
		t.Fatalf("the real key after the bogus ones: %d %+v", status, p)
	}
	if status, p := iatValidate(t, h, a.Access); status != http.StatusOK || p.UserID != a.UserID {
		t.Fatalf("the real session after the bogus ones: %d %+v", status, p)
	}
}
