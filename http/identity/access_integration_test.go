package identity_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"maps"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/platform/backend/commands"
	identitycmd "github.com/platform/backend/commands/identity"
	domain "github.com/platform/backend/domain/identity"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/internal/app"
	"github.com/platform/backend/internal/apptest"
	"github.com/platform/backend/internal/module"
	identitymod "github.com/platform/backend/internal/modules/identity"
	"github.com/platform/backend/internal/testenv"
	"github.com/platform/backend/providers/email"
	"github.com/platform/backend/providers/email/smtptest"
)

const accApps = "https://apps.platform.test"

// accHarness starts a platform whose email goes to a local SMTP server.
func accHarness(t *testing.T) (*apptest.Harness, *smtptest.Server) {
	t.Helper()
	smtp := smtptest.Start(t)
	h := apptest.Start(t, apptest.Options{Configure: func(c *app.Config) {
		module.SectionOf[*identitymod.Config](c.Modules).SMTP = email.SMTP{Addr: smtp.Addr, From: "noreply@platform.test", Timeout: 5 * time.Second}
		module.SectionOf[*identitymod.Config](c.Modules).AppsBaseURL = accApps
		module.SectionOf[*identitymod.Config](c.Modules).PublicURL = "https://id.platform.test"
	}})
	return h, smtp
}

// accKey makes a key of an organization through the bootstrap path.
func accKey(t *testing.T, h *apptest.Harness, org string, scopes ...string) (string, string) {
	t.Helper()
	m := commands.Meta{OrganizationID: org, Actor: eventstore.Actor{ID: "test", Type: "system"}}
	k, err := h.Identity().CreateAPIKey(context.Background(), m, identitycmd.CreateAPIKey{Name: "limited", Scopes: scopes})
	if err != nil {
		t.Fatal(err)
	}
	return k.Value.KeyID, k.Value.Token
}

func accServiceToken(t *testing.T, h *apptest.Harness, service string) string {
	t.Helper()
	tok, err := h.Access().Keys().Issue(context.Background(), service, 0)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func accCount(t *testing.T, h *apptest.Harness, sql string, args ...any) int64 {
	t.Helper()
	var n int64
	if err := h.App.Pool.QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return n
}

type accOptions struct {
	AppID  string `json:"appId"`
	Scopes []struct {
		Scope      string `json:"scope"`
		Permission string `json:"permission"`
	} `json:"scopes"`
	Resources []struct {
		ResourceType string   `json:"resourceType"`
		Aliases      []string `json:"aliases"`
		Resources    []struct {
			ResourceID    string   `json:"resourceId"`
			AccessLevel   string   `json:"accessLevel"`
			AllowedScopes []string `json:"allowedScopes"`
		} `json:"resources"`
	} `json:"resources"`
}

func accScopes(o accOptions) []string {
	var out []string
	for _, s := range o.Scopes {
		out = append(out, s.Scope)
	}
	return out
}

func accPlatformAdmin() domain.Principal {
	return domain.Principal{ID: "platform-admin", Type: "user", UserID: "platform-admin", OrganizationID: "administration",
		Role: domain.RoleOwner, PlatformRole: domain.RolePlatformAdmin, Permissions: domain.PlatformPermissions}
}

// TestAPIKeyOptionsDriveCreateAndUpdate: options offer only what the caller
// holds, collapse resource-type duplicates, and creation and update accept
// nothing else.
func TestAPIKeyOptionsDriveCreateAndUpdate(t *testing.T) {
	h, _ := accHarness(t)
	ctx := context.Background()
	_, limited := accKey(t, h, h.OrgID, "api_keys:write", "status:read", "workspace:read")

	res := h.Do(t, "identity", http.MethodGet, "/api/api-keys/options?appId=status", limited, nil)
	apptest.Must(t, res, http.StatusOK, "options status")
	var opts accOptions
	res.JSON(t, &opts)
	if got := accScopes(opts); !slices.Equal(got, []string{"status:read"}) {
		t.Fatalf("status options offer %v, want only status:read: %s", got, res.Body)
	}
	if len(opts.Resources) != 1 || opts.Resources[0].ResourceType != "workspace" ||
		!slices.Equal(opts.Resources[0].Aliases, []string{"workspace", "status_page"}) ||
		len(opts.Resources[0].Resources) != 1 || opts.Resources[0].Resources[0].ResourceID != h.OrgID ||
		opts.Resources[0].Resources[0].AccessLevel != "read" {
		t.Fatalf("status resources: %s", res.Body)
	}

	t.Run("application the organization may not use", func(t *testing.T) {
		// The design service is a default one: the platform takes it away
		// first (the next case grants it again).
		if _, err := h.Access().SetServiceAccess(ctx, commands.Meta{OrganizationID: h.OrgID,
			Actor: eventstore.Actor{ID: "platform-admin", Type: "user"}}, accPlatformAdmin(), h.OrgID, "design", false); err != nil {
			t.Fatal(err)
		}
		apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodGet, "/api/api-keys/options?appId=design", limited, nil), http.StatusForbidden, "permission_denied")
	})
	t.Run("resource-type duplicates collapse", func(t *testing.T) {
		m := commands.Meta{Actor: eventstore.Actor{ID: "test", Type: "system"}}
		if _, err := h.Access().GrantService(ctx, m, h.OrgID, "design", domain.AccessGranted); err != nil {
			t.Fatal(err)
		}
		res := h.Do(t, "identity", http.MethodGet, "/api/api-keys/options?appId=design", limited, nil)
		apptest.Must(t, res, http.StatusOK, "options design")
		var o accOptions
		res.JSON(t, &o)
		if got := accScopes(o); !slices.Equal(got, []string{"workspace:read"}) {
			t.Fatalf("design scopes %v", got)
		}
		if len(o.Resources) != 1 || !slices.Equal(o.Resources[0].Aliases, []string{"workspace", "design_workspace", "brand_kit_space"}) {
			t.Fatalf("three names of one resource type must collapse into one selector: %s", res.Body)
		}
	})
	t.Run("developer-portal id is not an app id", func(t *testing.T) {
		p := apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodGet, "/api/api-keys/options?appId=dapp_123", limited, nil),
			http.StatusUnprocessableEntity, "invalid_input")
		if len(p.Errors) != 1 || p.Errors[0].Pointer != "/appId" || !strings.Contains(p.Errors[0].Detail, "dapp_") {
			t.Fatalf("errors %+v", p.Errors)
		}
	})

	t.Run("a scope the options do not offer is refused", func(t *testing.T) {
		before := h.Events(t, "identity")
		p := apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodPost, "/api/api-keys", limited,
			map[string]any{"name": "escalate", "service": "status", "scopes": []string{"status:read", "status:write"}}),
			http.StatusUnprocessableEntity, "invalid_input")
		if len(p.Errors) != 1 || p.Errors[0].Pointer != "/scopes/1" || !strings.Contains(p.Errors[0].Detail, "status:write") {
			t.Fatalf("errors %+v", p.Errors)
		}
		// Without a service the target is inferred, and the same check holds.
		apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodPost, "/api/api-keys", limited,
			map[string]any{"name": "escalate", "scopes": []string{"status:poll"}}), http.StatusUnprocessableEntity, "invalid_input")
		p = apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodPost, "/api/api-keys", limited,
			map[string]any{"name": "b", "service": "status", "scopes": []string{"status:read"},
				"resourceBindings": []map[string]any{{"resourceType": "status_page", "resourceId": h.OrgID, "accessLevel": "admin"}}}),
			http.StatusUnprocessableEntity, "invalid_input")
		if len(p.Errors) != 1 || p.Errors[0].Pointer != "/resourceBindings/0/accessLevel" {
			t.Fatalf("errors %+v", p.Errors)
		}
		p = apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodPost, "/api/api-keys", limited,
			map[string]any{"name": "b", "service": "status", "scopes": []string{"status:read"},
				"resourceBindings": []map[string]any{{"resourceType": "workspace", "resourceId": "someone-elses", "accessLevel": "read"}}}),
			http.StatusUnprocessableEntity, "invalid_input")
		if p.Errors[0].Pointer != "/resourceBindings/0/resourceId" {
			t.Fatalf("errors %+v", p.Errors)
		}
		apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodPost, "/api/api-keys", limited,
			map[string]any{"name": "b", "service": "dapp_123", "scopes": []string{"status:read"}}), http.StatusUnprocessableEntity, "invalid_input")
		if after := h.Events(t, "identity"); after != before {
			t.Fatalf("refused creations appended %d events", after-before)
		}
	})

	var created struct {
		KeyID            string                   `json:"key_id"`
		Token            string                   `json:"token"`
		Service          string                   `json:"service"`
		State            string                   `json:"state"`
		Scopes           []string                 `json:"scopes"`
		ResourceBindings []domain.ResourceBinding `json:"resource_bindings"`
	}
	res = h.Do(t, "identity", http.MethodPost, "/api/api-keys", limited, map[string]any{"name": "bound", "service": "status",
		"scopes": []string{"status:read"}, "resourceBindings": []map[string]any{{"resourceType": "status_page", "resourceId": h.OrgID, "accessLevel": "read"}}})
	apptest.Must(t, res, http.StatusCreated, "create offered key")
	res.JSON(t, &created)
	if created.Service != "status" || created.State != "active" || !strings.HasPrefix(created.Token, "pk_"+created.KeyID+".") ||
		len(created.ResourceBindings) != 1 || created.ResourceBindings[0].ResourceType != "workspace" ||
		!slices.Equal(created.ResourceBindings[0].AllowedScopes, []string{"status:read"}) {
		t.Fatalf("created %s", res.Body)
	}
	if strings.Contains(string(res.Body), "secret_hash") {
		t.Fatalf("the answer leaks the hash: %s", res.Body)
	}
	apptest.Must(t, h.Do(t, "status", http.MethodGet, "/api/incidents", created.Token, nil), http.StatusOK, "the new key validates")

	t.Run("update repeats the calculation", func(t *testing.T) {
		p := apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodPatch, "/api/api-keys/"+created.KeyID, limited,
			map[string]any{"scopes": []string{"status:write"}}), http.StatusUnprocessableEntity, "invalid_input")
		if p.Errors[0].Pointer != "/scopes/0" {
			t.Fatalf("errors %+v", p.Errors)
		}
		res := h.Do(t, "identity", http.MethodPatch, "/api/api-keys/"+created.KeyID, limited,
			map[string]any{"name": "renamed", "scopes": []string{"status:read"}, "resourceBindings": []any{}})
		apptest.Must(t, res, http.StatusOK, "update")
		if !strings.Contains(string(res.Body), `"resource_bindings":[]`) || !strings.Contains(string(res.Body), `"name":"renamed"`) {
			t.Fatalf("update answer %s", res.Body)
		}
		list := h.Do(t, "identity", http.MethodGet, "/api/api-keys?state=active", limited, nil, "X-Platform-Min-Position", res.Header.Get("X-Platform-Position"))
		apptest.Must(t, list, http.StatusOK, "list")
		if !strings.Contains(string(list.Body), created.KeyID) || !strings.Contains(string(list.Body), `"renamed"`) ||
			strings.Contains(string(list.Body), "secret") || strings.Contains(string(list.Body), created.Token) {
			t.Fatalf("list %s", list.Body)
		}
	})

	t.Run("foreign keys are not found", func(t *testing.T) {
		_, foreign := h.NewOrganization(t, "Elsewhere", testenv.UniqueName("elsewhere"), apptest.DefaultScopes...)
		apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodPatch, "/api/api-keys/"+created.KeyID, foreign,
			map[string]any{"scopes": []string{"status:read"}}), http.StatusNotFound, "not_found")
		apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodDelete, "/api/api-keys/"+created.KeyID, foreign, nil), http.StatusNotFound, "not_found")
	})

	t.Run("a suspended workspace cannot mutate keys", func(t *testing.T) {
		apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodPut, "/api/organizations/"+h.OrgID+"/workspace-status", "",
			map[string]any{"status": "suspended"}), http.StatusForbidden, "permission_denied")
		m := commands.Meta{Actor: eventstore.Actor{ID: "platform-admin", Type: "user"}}
		if _, err := h.Access().SetWorkspaceStatus(ctx, m, domain.Principal{Type: "api_key", OrganizationID: h.OrgID, Permissions: []string{"*.*:*"}},
			h.OrgID, domain.WorkspaceStateSuspended, "abuse"); err == nil {
			t.Fatal("a key of the organization suspended its own workspace")
		}
		if _, err := h.Access().SetWorkspaceStatus(ctx, m, accPlatformAdmin(), h.OrgID, domain.WorkspaceStateSuspended, "abuse"); err != nil {
			t.Fatal(err)
		}
		before := h.Events(t, "identity")
		apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodPost, "/api/api-keys", limited,
			map[string]any{"name": "x", "service": "status", "scopes": []string{"status:read"}}), http.StatusConflict, "workspace_suspended")
		apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodPatch, "/api/api-keys/"+created.KeyID, limited,
			map[string]any{"scopes": []string{"status:read"}}), http.StatusConflict, "workspace_suspended")
		apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodDelete, "/api/api-keys/"+created.KeyID, limited, nil), http.StatusConflict, "workspace_suspended")
		if after := h.Events(t, "identity"); after != before {
			t.Fatalf("a suspended workspace appended %d events", after-before)
		}
		// Reading still works, and reinstating lets it change keys again.
		apptest.Must(t, h.Do(t, "identity", http.MethodGet, "/api/api-keys/options?appId=status", limited, nil), http.StatusOK, "options while suspended")
		if _, err := h.Access().SetWorkspaceStatus(ctx, m, accPlatformAdmin(), h.OrgID, domain.WorkspaceActive, ""); err != nil {
			t.Fatal(err)
		}
		res := h.Do(t, "identity", http.MethodDelete, "/api/api-keys/"+created.KeyID, limited, nil)
		apptest.Must(t, res, http.StatusOK, "revoke after reinstatement")
		apptest.ExpectProblem(t, h.Do(t, "status", http.MethodGet, "/api/incidents", created.Token, nil), http.StatusUnauthorized, "authentication_required")
	})
}

type accProvisioned struct {
	OrgID     string    `json:"orgId"`
	UserID    string    `json:"userId"`
	Created   bool      `json:"created"`
	LoginURL  string    `json:"loginUrl"`
	ExpiresAt time.Time `json:"expiresAt"`
}

type accSession struct {
	ConfirmationRequired bool `json:"confirmationRequired"`
	Session              struct {
		AccessToken    string `json:"access_token"`
		UserID         string `json:"user_id"`
		OrganizationID string `json:"organization_id"`
	} `json:"session"`
}

// accConsume follows a magic link's path on the identity listener.
func accConsume(t *testing.T, h *apptest.Harness, method, link string, headers ...string) apptest.Response {
	t.Helper()
	u, err := url.Parse(link)
	if err != nil {
		t.Fatal(err)
	}
	if method == http.MethodPost {
		return h.Do(t, "identity", method, u.Path, "-", map[string]string{"token": u.Query().Get("token")}, headers...)
	}
	return h.Do(t, "identity", method, u.Path+"?"+u.RawQuery, "-", nil, headers...)
}

var accLinkPattern = regexp.MustCompile(`https://id\.platform\.test/magic-link/consume\?token=[A-Za-z0-9_.%-]+`)

// TestProvisionFromCheckout: billing-plane service tokens only; one
// organization per email; created false the second time; the safety-net
// email once; magic links single use; permissions with sources; SSO
// handoff; preferences; foreign organizations invisible.
func TestProvisionFromCheckout(t *testing.T) {
	h, smtp := accHarness(t)
	payments := accServiceToken(t, h, "payments")
	mail := testenv.UniqueName("buyer") + "@example.com"
	body := map[string]any{"email": mail, "workspaceName": "Acme Studio", "appId": "design", "redirectUri": accApps + "/design/welcome",
		"mode": "count", "paidAppCount": 2, "appSlugs": []string{"design"}, "name": "Ada"}

	t.Run("only billing-plane service identities", func(t *testing.T) {
		apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodPost, "/api/internal/provision-from-checkout", "", body), http.StatusForbidden, "permission_denied")
		apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodPost, "/api/internal/provision-from-checkout", accServiceToken(t, h, "notifications"), body),
			http.StatusForbidden, "permission_denied")
		// A key whose target service is a billing-plane service is still not a service identity.
		k, err := h.Identity().CreateAPIKey(context.Background(), commands.Meta{OrganizationID: h.OrgID,
			Actor: eventstore.Actor{ID: "test", Type: "system"}}, identitycmd.CreateAPIKey{Name: "lookalike", Service: "payments", Scopes: []string{"status:read"}})
		if err != nil {
			t.Fatal(err)
		}
		lookalike := k.Value.Token
		apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodPost, "/api/internal/provision-from-checkout", lookalike, body), http.StatusForbidden, "permission_denied")
		// Tampered and foreign-signed tokens are not credentials at all.
		parts := strings.Split(payments, ".")
		claims, _ := base64.RawURLEncoding.DecodeString(parts[1])
		forged := parts[0] + "." + base64.RawURLEncoding.EncodeToString([]byte(strings.Replace(string(claims), `"payments"`, `"marketing_site"`, 1))) + "." + parts[2]
		apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodPost, "/api/internal/provision-from-checkout", forged, body), http.StatusUnauthorized, "authentication_required")
		if n := accCount(t, h, `SELECT count(*) FROM es_events WHERE stream_type=$1`, domain.StreamCheckout); n != 0 {
			t.Fatalf("refused calls provisioned %d checkouts", n)
		}
	})
	t.Run("redirect outside the service entrypoint", func(t *testing.T) {
		bad := map[string]any{}
		for k, v := range body {
			bad[k] = v
		}
		bad["redirectUri"] = "https://evil.example/design/welcome"
		p := apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodPost, "/api/internal/provision-from-checkout", payments, bad),
			http.StatusUnprocessableEntity, "invalid_input")
		if p.Errors[0].Pointer != "/redirectUri" {
			t.Fatalf("errors %+v", p.Errors)
		}
	})

	orgsBefore := accCount(t, h, `SELECT count(*) FROM es_events WHERE event_type=$1`, domain.OrganizationCreated)
	res := h.Do(t, "identity", http.MethodPost, "/api/internal/provision-from-checkout", payments, body)
	apptest.Must(t, res, http.StatusOK, "first provision")
	var first accProvisioned
	res.JSON(t, &first)
	if !first.Created || first.OrgID == "" || first.UserID == "" || !strings.HasPrefix(first.LoginURL, "https://id.platform.test/magic-link/consume?token=ml_") ||
		!first.ExpiresAt.After(time.Now()) {
		t.Fatalf("first provision %s", res.Body)
	}
	res = h.Do(t, "identity", http.MethodPost, "/api/internal/provision-from-checkout", accServiceToken(t, h, "marketing_site"), body)
	apptest.Must(t, res, http.StatusOK, "second provision")
	var second accProvisioned
	res.JSON(t, &second)
	if second.Created || second.OrgID != first.OrgID || second.UserID != first.UserID || second.LoginURL == first.LoginURL {
		t.Fatalf("second provision %s (first %+v)", res.Body, first)
	}
	if n := accCount(t, h, `SELECT count(*) FROM es_events WHERE event_type=$1`, domain.OrganizationCreated) - orgsBefore; n != 1 {
		t.Fatalf("%d organizations created for one email, want 1", n)
	}
	if n := accCount(t, h, `SELECT count(*) FROM es_events WHERE event_type=$1 AND payload->>'user_id'=$2`, domain.UserCreated, first.UserID); n != 1 {
		t.Fatalf("%d owners created, want 1", n)
	}
	// The owner is passwordless: the sealed password hash opens to "".
	var sealed string
	if err := h.App.Pool.QueryRow(context.Background(), `SELECT coalesce(payload->>'password_hash','') FROM es_events WHERE event_type=$1 AND stream_id=$2`,
		domain.UserCreated, first.UserID).Scan(&sealed); err != nil {
		t.Fatal(err)
	}
	if sealed != "" {
		clear, err := h.Identity().Keys().Open(context.Background(), first.UserID, sealed)
		if err != nil || clear != "" {
			t.Fatalf("the owner has a password hash (%q, %v)", clear, err)
		}
	}

	msgs := smtp.Messages()
	if len(msgs) != 1 || msgs[0].To[0] != mail {
		t.Fatalf("safety-net emails: %d (%+v), want exactly one to %s", len(msgs), msgs, mail)
	}
	safetyNet := strings.ReplaceAll(accLinkPattern.FindString(strings.ReplaceAll(msgs[0].Data, "=\r\n", "")), "&amp;", "&")
	if safetyNet == "" || safetyNet == first.LoginURL || safetyNet == second.LoginURL {
		t.Fatalf("no separate safety-net link in the email:\n%s", msgs[0].Data)
	}

	t.Run("magic links are single use", func(t *testing.T) {
		res := accConsume(t, h, http.MethodGet, second.LoginURL)
		apptest.Must(t, res, http.StatusOK, "trusted link")
		var s accSession
		res.JSON(t, &s)
		if s.ConfirmationRequired || !strings.HasPrefix(s.Session.AccessToken, "pat_") || s.Session.UserID != first.UserID ||
			s.Session.OrganizationID != first.OrgID || !strings.Contains(res.Header.Get("Set-Cookie"), "HttpOnly") {
			t.Fatalf("consume %s / %v", res.Body, res.Header)
		}
		apptest.ExpectProblem(t, accConsume(t, h, http.MethodGet, second.LoginURL), http.StatusConflict, "magic_link_used")
		apptest.ExpectProblem(t, accConsume(t, h, http.MethodPost, second.LoginURL), http.StatusConflict, "magic_link_used")

		// The emailed link keeps the interstitial: opening it uses nothing.
		for range 2 {
			res := accConsume(t, h, http.MethodGet, safetyNet)
			apptest.Must(t, res, http.StatusOK, "interstitial")
			var s accSession
			res.JSON(t, &s)
			if !s.ConfirmationRequired || s.Session.AccessToken != "" {
				t.Fatalf("an email link must ask first: %s", res.Body)
			}
		}
		page := accConsume(t, h, http.MethodGet, safetyNet, "Accept", "text/html")
		if page.Status != http.StatusOK || !strings.Contains(string(page.Body), `<form method="post" action="/magic-link/consume">`) {
			t.Fatalf("interstitial page %d %s", page.Status, page.Body)
		}
		// A form post without the interstitial's CSRF cookie and field (a
		// cross-site form) confirms nothing.
		su, _ := url.Parse(safetyNet)
		form := []byte("token=" + url.QueryEscape(su.Query().Get("token")) + "&csrf=guessed")
		apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodPost, "/magic-link/consume", "-", form,
			"Content-Type", "application/x-www-form-urlencoded"), http.StatusForbidden, "permission_denied")
		res = accConsume(t, h, http.MethodPost, safetyNet)
		apptest.Must(t, res, http.StatusOK, "confirm")
		res.JSON(t, &s)
		if !strings.HasPrefix(s.Session.AccessToken, "pat_") {
			t.Fatalf("confirm %s", res.Body)
		}
		apptest.ExpectProblem(t, accConsume(t, h, http.MethodPost, safetyNet), http.StatusConflict, "magic_link_used")
		apptest.ExpectProblem(t, accConsume(t, h, http.MethodGet, "https://id.platform.test/magic-link/consume?token=ml_nonsense"),
			http.StatusUnauthorized, "authentication_required")
	})

	res = accConsume(t, h, http.MethodGet, first.LoginURL)
	apptest.Must(t, res, http.StatusOK, "first login link is still unused")
	var owner accSession
	res.JSON(t, &owner)
	session := owner.Session.AccessToken

	t.Run("a user token is refused on the internal route", func(t *testing.T) {
		apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodPost, "/api/internal/provision-from-checkout", session, body), http.StatusForbidden, "permission_denied")
	})

	// An application the new organization is not granted, whatever the
	// first-party defaults become: a developer application of the harness
	// organization (its owner's grant only).
	const foreignApp, foreignPerm = "foreign_crm", "foreign_crm.boards:read"
	foreignEntry := accApps + "/foreign_crm"
	reg := h.Do(t, "identity", http.MethodPost, "/api/internal/developer-app-registrations", accServiceToken(t, h, "developer_portal"),
		map[string]any{"developerAppId": "dapp_foreign7", "appId": foreignApp, "name": "Foreign CRM", "organizationId": h.OrgID,
			"scopes": []string{"boards:read"}, "resourceTypes": []string{"board"}, "entrypointUrl": foreignEntry})
	apptest.Must(t, reg, http.StatusCreated, "register the foreign developer app")

	t.Run("entitlement and service access", func(t *testing.T) {
		res := h.Do(t, "identity", http.MethodGet, "/api/organizations/"+first.OrgID+"/service-access", session, nil)
		apptest.Must(t, res, http.StatusOK, "service access")
		var sa struct {
			Services []domain.ServiceGrant `json:"services"`
			Settings struct {
				AppEntitlement *domain.Entitlement `json:"appEntitlement"`
			} `json:"settings"`
		}
		res.JSON(t, &sa)
		e := sa.Settings.AppEntitlement
		if e == nil || e.Mode != "count" || e.PaidAppCount == nil || *e.PaidAppCount != 2 || !slices.Equal(e.AppSlugs, []string{"design"}) {
			t.Fatalf("entitlement %s", res.Body)
		}
		for _, want := range []string{"app_platform_auth", "dashboard", "status", "ops", "design"} {
			if !slices.ContainsFunc(sa.Services, func(g domain.ServiceGrant) bool {
				return g.AppID == want && g.Source == domain.AccessProvision
			}) {
				t.Fatalf("service %s not granted by provisioning: %s", want, res.Body)
			}
		}
		apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodGet, "/api/organizations/"+first.OrgID+"/service-access", "", nil), http.StatusNotFound, "not_found")
		apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodGet, "/api/organizations/"+h.OrgID+"/service-access", session, nil), http.StatusNotFound, "not_found")
	})

	t.Run("effective permissions show their sources", func(t *testing.T) {
		path := "/api/users/" + first.UserID + "/permissions"
		res := h.Do(t, "identity", http.MethodGet, path, session, nil)
		apptest.Must(t, res, http.StatusOK, "own permissions")
		var ev struct {
			Role                 string                   `json:"role"`
			EffectivePermissions []string                 `json:"effectivePermissions"`
			Entries              []domain.PermissionEntry `json:"entries"`
			Sources              struct {
				RoleBundles               []domain.RoleBundle   `json:"roleBundles"`
				OrganizationServiceAccess []domain.ServiceGrant `json:"organizationServiceAccess"`
			} `json:"sources"`
		}
		res.JSON(t, &ev)
		if ev.Role != "owner" || !slices.Contains(ev.EffectivePermissions, "status.status:poll") ||
			!slices.Contains(ev.EffectivePermissions, "design.workspace:read") || slices.Contains(ev.EffectivePermissions, foreignPerm) ||
			slices.ContainsFunc(ev.Entries, func(e domain.PermissionEntry) bool { return e.AppID == foreignApp }) {
			t.Fatalf("owner permissions (the owner's *.*:* must not reach %s, which the organization may not use) %s", foreignApp, res.Body)
		}
		entry := func(perm string) domain.PermissionEntry {
			for _, e := range ev.Entries {
				if e.Permission == perm {
					return e
				}
			}
			t.Fatalf("no entry for %s", perm)
			return domain.PermissionEntry{}
		}
		e := entry("status.status:poll")
		if !e.Allowed || !slices.ContainsFunc(e.Sources, func(s domain.Source) bool { return s.Type == "role_bundle" && s.ID == "owner" }) ||
			!slices.ContainsFunc(e.Sources, func(s domain.Source) bool { return s.Type == "organization_service_access" }) {
			t.Fatalf("sources of status.status:poll: %+v", e)
		}
		res = h.Do(t, "identity", http.MethodPut, "/api/users/"+first.UserID+"/permission-overrides", session,
			map[string]any{"grant": []string{}, "deny": []string{"status.status:poll"}})
		apptest.Must(t, res, http.StatusOK, "deny override")
		res = h.Do(t, "identity", http.MethodGet, path, session, nil)
		ev.Entries, ev.EffectivePermissions = nil, nil
		res.JSON(t, &ev)
		e = entry("status.status:poll")
		if slices.Contains(ev.EffectivePermissions, "status.status:poll") || e.Allowed ||
			!slices.ContainsFunc(e.Sources, func(s domain.Source) bool { return s.Type == "user_override" && s.Effect == "deny" }) {
			t.Fatalf("a deny wins and shows its source: %s", res.Body)
		}
		// Another organization sees neither the user nor their permissions.
		apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodGet, path, "", nil), http.StatusNotFound, "not_found")
		apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodPut, "/api/users/"+first.UserID+"/permission-overrides", "",
			map[string]any{"grant": []string{"*.*:*"}, "deny": []string{}}), http.StatusNotFound, "not_found")
		apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodGet, path+"?organizationId="+first.OrgID, "", nil), http.StatusNotFound, "not_found")
	})

	t.Run("SSO handoff", func(t *testing.T) {
		redirect := accApps + "/design/callback"
		res := h.Do(t, "identity", http.MethodPost, "/sso/handoff-code", session, map[string]any{"app_id": "design", "redirect_uri": redirect})
		apptest.Must(t, res, http.StatusOK, "handoff")
		var ho struct {
			CallbackURL string `json:"callback_url"`
		}
		res.JSON(t, &ho)
		u, err := url.Parse(ho.CallbackURL)
		if err != nil || !strings.HasPrefix(ho.CallbackURL, redirect+"?") || !strings.HasPrefix(u.Query().Get("code"), "sc_") {
			t.Fatalf("callback %s", res.Body)
		}
		if strings.Contains(string(res.Body), session) || strings.Contains(ho.CallbackURL, "pat_") || strings.Contains(ho.CallbackURL, "pk_") ||
			strings.Contains(ho.CallbackURL, "access_token") {
			t.Fatalf("the handoff carries a bearer token: %s", res.Body)
		}
		code := u.Query().Get("code")
		apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodGet, "/api/app-switcher/preferences", code, nil), http.StatusUnauthorized, "authentication_required")
		apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodPost, "/sso/exchange-code", "-",
			map[string]any{"code": code, "app_id": "status", "redirect_uri": redirect}), http.StatusUnauthorized, "authentication_required")
		ex := h.Do(t, "identity", http.MethodPost, "/sso/exchange-code", "-", map[string]any{"code": code, "app_id": "design", "redirect_uri": redirect})
		apptest.Must(t, ex, http.StatusOK, "exchange")
		if !strings.Contains(string(ex.Body), `"access_token":"pat_`) {
			t.Fatalf("exchange %s", ex.Body)
		}
		apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodPost, "/sso/exchange-code", "-",
			map[string]any{"code": code, "app_id": "design", "redirect_uri": redirect}), http.StatusConflict, "sso_code_used")
		apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodPost, "/sso/handoff-code", session,
			map[string]any{"app_id": "design", "redirect_uri": "https://evil.example/design/callback"}), http.StatusUnprocessableEntity, "invalid_input")
		// Dot segments (raw or encoded) would leave the entrypoint after the prefix check.
		for _, tricky := range []string{accApps + "/design/../agent/cb", accApps + "/design/%2e%2e/agent/cb", accApps + "/design/x%2f..%2fagent"} {
			apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodPost, "/sso/handoff-code", session,
				map[string]any{"app_id": "design", "redirect_uri": tricky}), http.StatusUnprocessableEntity, "invalid_input")
		}
		// A redirect under the application's own entrypoint: the refusal is
		// about access alone, as the grant below shows.
		foreign := map[string]any{"app_id": foreignApp, "redirect_uri": foreignEntry + "/cb"}
		apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodPost, "/sso/handoff-code", session, foreign), http.StatusForbidden, "permission_denied")
		if _, err := h.Access().GrantService(context.Background(), commands.Meta{OrganizationID: first.OrgID,
			Actor: eventstore.Actor{ID: "test", Type: "system"}}, first.OrgID, foreignApp, domain.AccessGranted); err != nil {
			t.Fatal(err)
		}
		apptest.Must(t, h.Do(t, "identity", http.MethodPost, "/sso/handoff-code", session, foreign), http.StatusOK, "handoff once granted")
		perms := h.Do(t, "identity", http.MethodGet, "/api/users/"+first.UserID+"/permissions", session, nil)
		apptest.Must(t, perms, http.StatusOK, "permissions once granted")
		if !strings.Contains(string(perms.Body), `"`+foreignPerm+`"`) {
			t.Fatalf("the granted application's permission is not effective: %s", perms.Body)
		}
		apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodPost, "/sso/handoff-code", "",
			map[string]any{"app_id": "status", "redirect_uri": accApps + "/status/cb"}), http.StatusForbidden, "permission_denied")
	})

	t.Run("app-switcher preferences", func(t *testing.T) {
		res := h.Do(t, "identity", http.MethodGet, "/api/app-switcher/preferences", session, nil)
		apptest.Must(t, res, http.StatusOK, "defaults")
		if !strings.Contains(string(res.Body), `"tileSize":"medium"`) {
			t.Fatalf("defaults %s", res.Body)
		}
		p := apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodPut, "/api/app-switcher/preferences", session,
			map[string]any{"favorites": []string{"status"}, "hidden": []string{}, "tileSize": "medium", "theme": "blue"}),
			http.StatusUnprocessableEntity, "invalid_input")
		if p.Errors[0].Pointer != "/theme" {
			t.Fatalf("errors %+v", p.Errors)
		}
		apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodPut, "/api/app-switcher/preferences", session,
			map[string]any{"favorites": []string{"status"}, "hidden": []string{"status"}, "tileSize": "large"}),
			http.StatusUnprocessableEntity, "invalid_input")
		res = h.Do(t, "identity", http.MethodPut, "/api/app-switcher/preferences", session,
			map[string]any{"favorites": []string{"design", "status"}, "hidden": []string{"ops"}, "tileSize": "large", "theme": "dark"})
		apptest.Must(t, res, http.StatusOK, "set")
		got := h.Do(t, "identity", http.MethodGet, "/api/app-switcher/preferences", session, nil, "X-Platform-Min-Position", res.Header.Get("X-Platform-Position"))
		apptest.Must(t, got, http.StatusOK, "get")
		var prefs domain.Preferences
		got.JSON(t, &prefs)
		if !slices.Equal(prefs.Favorites, []string{"design", "status"}) || prefs.TileSize != "large" || prefs.Theme == nil || *prefs.Theme != "dark" {
			t.Fatalf("preferences %s", got.Body)
		}
		// The harness organization's key has its own launcher.
		other := h.Do(t, "identity", http.MethodGet, "/api/app-switcher/preferences", "", nil)
		if !strings.Contains(string(other.Body), `"tileSize":"medium"`) {
			t.Fatalf("another principal's preferences leaked: %s", other.Body)
		}
	})
}

// TestDeveloperAppsAndKeySet: registrations come only from the developer
// portal's service token; dapp_ ids stay out of the app id space; the key
// set is published and a key retired by another process stops verifying.
func TestDeveloperAppsAndKeySet(t *testing.T) {
	h, _ := accHarness(t)
	portal := accServiceToken(t, h, "developer_portal")
	reg := map[string]any{"developerAppId": "dapp_crm42", "appId": "acme_crm", "name": "Acme CRM", "organizationId": h.OrgID,
		"scopes": []string{"boards:read", "boards:write"}, "resourceTypes": []string{"board"}, "entrypointUrl": "https://crm.acme.test/app"}

	apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodPost, "/api/internal/developer-app-registrations", accServiceToken(t, h, "payments"), reg),
		http.StatusForbidden, "permission_denied")
	apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodPost, "/api/internal/developer-app-registrations", "", reg),
		http.StatusForbidden, "permission_denied")
	swapped := map[string]any{}
	for k, v := range reg {
		swapped[k] = v
	}
	swapped["appId"] = "dapp_crm42"
	p := apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodPost, "/api/internal/developer-app-registrations", portal, swapped),
		http.StatusUnprocessableEntity, "invalid_input")
	if p.Errors[0].Pointer != "/appId" {
		t.Fatalf("errors %+v", p.Errors)
	}
	// The entrypoint is shown in every member's launcher and receives the
	// SSO codes: credentials in it are refused, and not quoted back.
	withUser := maps.Clone(reg)
	withUser["entrypointUrl"] = "https://crm:s3cret@crm.acme.test/app"
	refused := h.Do(t, "identity", http.MethodPost, "/api/internal/developer-app-registrations", portal, withUser)
	p = apptest.ExpectProblem(t, refused, http.StatusUnprocessableEntity, "invalid_input")
	if len(p.Errors) != 1 || p.Errors[0].Pointer != "/entrypointUrl" || p.Errors[0].Detail != "must be an absolute http(s) URL without credentials" ||
		strings.Contains(string(refused.Body), "s3cret") {
		t.Fatalf("credentials in the entrypoint: %s", refused.Body)
	}

	res := h.Do(t, "identity", http.MethodPost, "/api/internal/developer-app-registrations", portal, reg)
	apptest.Must(t, res, http.StatusCreated, "register")
	if !strings.Contains(string(res.Body), `"surface_kind":"developer_app"`) || !strings.Contains(string(res.Body), `"app_id":"acme_crm"`) ||
		!strings.Contains(string(res.Body), `"launchable":true`) {
		t.Fatalf("registration %s", res.Body)
	}
	again := h.Do(t, "identity", http.MethodPost, "/api/internal/developer-app-registrations", portal, reg)
	apptest.Must(t, again, http.StatusCreated, "the handoff is idempotent")
	if n := accCount(t, h, `SELECT count(*) FROM es_events WHERE event_type=$1`, domain.DeveloperAppRegistered); n != 1 {
		t.Fatalf("%d registrations recorded, want 1", n)
	}
	cat := h.Do(t, "identity", http.MethodGet, "/api/catalog?surfaceKind=developer_app", "", nil, "X-Platform-Min-Position", res.Header.Get("X-Platform-Position"))
	apptest.Must(t, cat, http.StatusOK, "catalog")
	if !strings.Contains(string(cat.Body), `"developer_app_id":"dapp_crm42"`) || strings.Contains(string(cat.Body), `"app_id":"status"`) {
		t.Fatalf("catalog %s", cat.Body)
	}

	// The owning workspace may use its app; a key of it without the app's
	// scopes is offered none.
	opts := h.Do(t, "identity", http.MethodGet, "/api/api-keys/options?appId=acme_crm", "", nil)
	apptest.Must(t, opts, http.StatusOK, "options of a developer app")
	if !strings.Contains(string(opts.Body), `"scopes":[]`) {
		t.Fatalf("options %s", opts.Body)
	}
	apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodGet, "/api/api-keys/options?appId=dapp_crm42", "", nil), http.StatusUnprocessableEntity, "invalid_input")

	jwks := h.Do(t, "identity", http.MethodGet, "/.well-known/jwks.json", "-", nil)
	apptest.Must(t, jwks, http.StatusOK, "jwks")
	var set struct {
		Keys []identitycmd.JWK `json:"keys"`
	}
	jwks.JSON(t, &set)
	header, _ := base64.RawURLEncoding.DecodeString(strings.Split(portal, ".")[0])
	var hdr struct {
		Alg, Kid string
	}
	_ = json.Unmarshal(header, &hdr)
	if len(set.Keys) != 1 || set.Keys[0].Kty != "OKP" || set.Keys[0].Crv != "Ed25519" || set.Keys[0].Kid != hdr.Kid || hdr.Alg != "EdDSA" {
		t.Fatalf("jwks %s, token header %+v", jwks.Body, hdr)
	}
	if strings.Contains(string(jwks.Body), `"d"`) {
		t.Fatal("the key set publishes private material")
	}
	// Retired by another process (its own key set on the same database):
	// the serving process, which verified the key a moment ago, stops at once.
	if err := identitycmd.NewServiceKeys(h.App.Pool, nil).Retire(context.Background(), hdr.Kid); err != nil {
		t.Fatal(err)
	}
	apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodPost, "/api/internal/developer-app-registrations", portal, reg),
		http.StatusUnauthorized, "authentication_required")
}
