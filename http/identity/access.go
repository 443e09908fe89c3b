package identity

import (
	"context"
	"encoding/json"
	"errors"
	"html/template"
	"log/slog"
	"net/http"
	"strings"

	"github.com/gorilla/mux"

	"github.com/platform/backend/commands"
	identitycmd "github.com/platform/backend/commands/identity"
	"github.com/platform/backend/domain/errs"
	domain "github.com/platform/backend/domain/identity"
	"github.com/platform/backend/domain/text"
	"github.com/platform/backend/eventstore"
	httpapi "github.com/platform/backend/http"
	accessview "github.com/platform/backend/projections/access"
)

// AccessDeps are what the access half of the identity service calls.
type AccessDeps struct {
	Access  *identitycmd.Access
	Queries *accessview.Queries
	Web     SessionWeb
	Log     *slog.Logger
	// Attempts limits magic-link consumption per client address (nil: none).
	Attempts *httpapi.Limiter
}

// Caller services of the internal routes.
var (
	developerPortal = []string{"developer_portal"}
)

// Input schemas of the access half; string bounds from domain/text (http/bounds.go).
var (
	appIDSchema   = httpapi.PatternSchema(63, `^[a-z][a-z0-9_]{1,62}$`)
	scopeSchema   = httpapi.PatternSchema(text.MaxID, `^[a-z0-9][a-z0-9_-]*:[a-z0-9][a-z0-9_-]*$`)
	permPattern   = httpapi.PatternSchema(text.MaxPermission, `^(\*|[a-z][a-z0-9_]{1,62})\.(\*|[a-z0-9][a-z0-9_-]*):(\*|[a-z0-9][a-z0-9_-]*)$`)
	bindingSchema = `{"type":"object","additionalProperties":false,"required":["resourceType","resourceId","accessLevel"],"properties":{
		"resourceType":` + httpapi.LineSchema(1, text.MaxID) + `,"resourceId":` + httpapi.LineSchema(1, text.MaxID) + `,
		"accessLevel":{"type":"string","enum":["read","write","admin"]},
		"allowedScopes":{"type":"array","items":` + scopeSchema + `}}}`
	preferencesSchema = `{"type":"object","additionalProperties":false,"required":["favorites","hidden","tileSize"],"properties":{
		"favorites":{"type":"array","maxItems":100,"uniqueItems":true,"items":` + appIDSchema + `},
		"hidden":{"type":"array","maxItems":100,"uniqueItems":true,"items":` + appIDSchema + `},
		"tileSize":{"type":"string","enum":["small","medium","large"]},
		"theme":{"type":"string","enum":["light","dark"]}}}`
	checkoutSchema = `{"type":"object","additionalProperties":false,"required":["email","appId","redirectUri","mode"],
		"anyOf":[{"required":["workspaceName"]},{"required":["company"]}],"properties":{
		"email":` + httpapi.EmailSchema() + `,"workspaceName":` + httpapi.LineSchema(1, text.MaxTitle) + `,
		"company":` + httpapi.LineSchema(1, text.MaxTitle) + `,"appId":` + httpapi.NonEmptyID + `,
		"redirectUri":` + httpapi.URLSchema(httpapi.AnyScheme) + `,"name":` + httpapi.LineSchema(0, text.MaxTitle) + `,
		"mode":{"type":"string","enum":["count","all","free"]},"paidAppCount":{"type":"integer","minimum":0},
		"appSlugs":{"type":"array","items":` + httpapi.NonEmptyID + `}}}`
	provisionedOut = string(httpapi.OutputOf(identitycmd.Provisioned{}, httpapi.FormatOf("loginUrl", "uri")))
)

// requireService admits only service principals (a verified service token);
// allowedServices on the descriptor then names which ones. An API key whose
// target service happens to carry the same name is not a service identity.
func requireService(p domain.Principal) error {
	if p.Type != "service" {
		return errs.PermissionDenied("this internal route accepts only service-to-service tokens")
	}
	return nil
}

// AccessPart is the access half of the identity service: API keys
// and their options, permissions, service access, the catalog, internal
// billing-plane and developer-portal routes, SSO handoff, launcher
// preferences, magic links and the key set.
func AccessPart(d AccessDeps) Part {
	if d.Log == nil {
		d.Log = slog.Default()
	}
	a := d.Access
	actions := []httpapi.Action{
		httpapi.Query(httpapi.Action{
			Name: "app_platform_auth.api_keys.options", Method: http.MethodGet, Path: "/api/api-keys/options", ReadOnly: true,
			AuthorizationMode: httpapi.AuthRuntime,
			Summary: "Scopes and resources the caller may bind on a key of the application in its active organization " +
				"(needs app_platform_auth.api_keys:read or :write); resource-type duplicates collapse into one selector",
			InputSchema: httpapi.Object([]string{"appId"}, map[string]string{"appId": httpapi.NonEmptyID}),
		}, d.keyOptions),
		httpapi.NoStore(httpapi.CommandAs(httpapi.Action{
			Name: "app_platform_auth.api_keys.create", Method: http.MethodPost, Path: "/api/api-keys", Permission: "api_keys:write",
			AuthorizationMode: httpapi.AuthRuntime, SuccessStatus: http.StatusCreated,
			Summary: "Create a key of the caller's organization for one application; scopes and resourceBindings must be what " +
				"api_keys.options offers (422 names each member that is not). The token is shown once",
			InputSchema: httpapi.Object([]string{"name", "scopes"}, map[string]string{
				"name": httpapi.LineSchema(1, text.MaxLabel), "service": appIDSchema,
				"scopes":           `{"type":"array","minItems":1,"items":` + scopeSchema + `}`,
				"resourceBindings": `{"type":"array","maxItems":100,"items":` + bindingSchema + `}`}),
		}, a.CreateAPIKey)),
		httpapi.CommandAs(httpapi.Action{
			Name: "app_platform_auth.api_keys.update", Method: http.MethodPatch, Path: "/api/api-keys/{keyId}", Permission: "api_keys:write",
			AuthorizationMode: httpapi.AuthRuntime,
			Summary:           "Replace a key's scopes and resource bindings (same calculation as api_keys.options); name is optional",
			InputSchema: httpapi.Object([]string{"keyId", "scopes"}, map[string]string{
				"keyId": `{"type":"string","format":"uuid"}`, "name": httpapi.LineSchema(1, text.MaxLabel),
				"scopes":           `{"type":"array","minItems":1,"items":` + scopeSchema + `}`,
				"resourceBindings": `{"type":"array","maxItems":100,"items":` + bindingSchema + `}`}),
		}, a.UpdateAPIKey),
		httpapi.CommandAs(httpapi.Action{
			Name: "app_platform_auth.api_keys.revoke", Method: http.MethodDelete, Path: "/api/api-keys/{keyId}", Permission: "api_keys:write",
			AuthorizationMode: httpapi.AuthRuntime, Destructive: true,
			Summary:     "Revoke a key; it fails validation at once. A suspended or revoked workspace cannot",
			InputSchema: httpapi.Object([]string{"keyId"}, map[string]string{"keyId": `{"type":"string","format":"uuid"}`}),
		}, a.RevokeAPIKey),
		httpapi.Query(httpapi.Action{
			Name: "app_platform_auth.api_keys.list", Method: http.MethodGet, Path: "/api/api-keys", ReadOnly: true,
			AuthorizationMode: httpapi.AuthRuntime, ReadModel: accessview.Name,
			Summary: "The organization's keys, newest first (needs app_platform_auth.api_keys:read or :write); never a secret or hash",
			InputSchema: httpapi.Object(nil, map[string]string{"state": `{"type":"string","enum":["active","revoked","all"]}`,
				"limit": `{"type":"integer","minimum":1,"maximum":200}`}),
		}, d.listAPIKeys),
		httpapi.Query(httpapi.Action{
			Name: "app_platform_auth.permissions.get", Method: http.MethodGet, Path: "/api/users/{userId}/permissions", ReadOnly: true,
			AuthorizationMode: httpapi.AuthRuntime,
			Summary: "Evaluated permissions of a member: effectivePermissions, entries and their sources (role bundle, user overrides, " +
				"organization service access). One's own, or app_platform_auth.permissions:read, or an admin role of the organization",
			InputSchema: httpapi.Object([]string{"userId"}, map[string]string{"userId": uuidString, "organizationId": uuidString}),
		}, d.userPermissions),
		httpapi.CommandAs(httpapi.Action{
			Name: "app_platform_auth.permissions.overrides.set", Method: http.MethodPut, Path: "/api/users/{userId}/permission-overrides",
			AuthorizationMode: httpapi.AuthRuntime,
			Summary: "Replace a member's grants and denials (a deny wins); an organization-scoped admin route. Grants never exceed " +
				"the caller's own permissions",
			InputSchema: httpapi.Object([]string{"userId", "grant", "deny"}, map[string]string{"userId": uuidString, "organizationId": uuidString,
				"grant": `{"type":"array","maxItems":200,"items":` + permPattern + `}`,
				"deny":  `{"type":"array","maxItems":200,"items":` + permPattern + `}`}),
		}, a.SetUserOverrides),
		httpapi.CommandAs(httpapi.Action{
			Name: "app_platform_auth.role_bundles.set", Method: http.MethodPut, Path: "/api/role-bundles/{role}",
			AuthorizationMode: httpapi.AuthRuntime,
			Summary:           "Replace an organization role's permission bundle (the owner's is fixed); an organization-scoped admin route",
			InputSchema: httpapi.Object([]string{"role", "permissions"}, map[string]string{
				"role":        `{"type":"string","enum":["super_admin","admin","member","guest"]}`,
				"permissions": `{"type":"array","maxItems":200,"items":` + permPattern + `}`}),
		}, a.SetRoleBundle),
		httpapi.Query(httpapi.Action{
			Name: "app_platform_auth.service_access.get", Method: http.MethodGet, Path: "/api/organizations/{orgId}/service-access",
			ReadOnly: true, AuthorizationMode: httpapi.AuthRuntime,
			Summary:     "Services the organization may use (and why), its workspace status and settings.appEntitlement",
			InputSchema: httpapi.Object([]string{"orgId"}, map[string]string{"orgId": uuidString}),
		}, d.serviceAccess),
		serviceAccessAction(a, true),
		serviceAccessAction(a, false),
		httpapi.CommandAs(httpapi.Action{
			Name: "app_platform_auth.workspaces.status.set", Method: http.MethodPut, Path: "/api/organizations/{orgId}/workspace-status",
			AuthorizationMode: httpapi.AuthRuntime, Destructive: true,
			Summary: "Suspend, reinstate or revoke (final) a developer workspace; platform roles only. A suspended or revoked " +
				"workspace cannot change its API keys",
			InputSchema: httpapi.Object([]string{"orgId", "status"}, map[string]string{"orgId": uuidString,
				"status": `{"type":"string","enum":["active","suspended","revoked"]}`, "reason": httpapi.LineSchema(0, text.MaxReason)}),
		}, d.setWorkspaceStatus),
		httpapi.Query(httpapi.Action{
			Name: "app_platform_auth.catalog.list", Method: http.MethodGet, Path: "/api/catalog", ReadOnly: true,
			AuthorizationMode: httpapi.AuthRuntime, ReadModel: accessview.Name,
			Summary: "The service catalog (surface_kind, surface_group, launchable, app_id) for any signed-in principal",
			InputSchema: httpapi.Object(nil, map[string]string{"surfaceKind": `{"type":"string","enum":["app","platform","console","developer_app"]}`,
				"surfaceGroup": httpapi.NonEmptyID, "launchable": `{"type":"boolean"}`}),
		}, d.catalog),
		httpapi.CommandAs(httpapi.Action{
			Name: "app_platform_auth.developer_apps.register", Method: http.MethodPost, Path: "/api/internal/developer-app-registrations",
			AuthorizationMode: httpapi.AuthRuntime, AllowedServices: developerPortal, SuccessStatus: http.StatusCreated,
			Summary: "Developer-portal handoff: register an approved developer application (developerAppId dapp_...) as a catalog " +
				"row with its own app id; service-to-service token of the developer portal only",
			InputSchema: json.RawMessage(`{"type":"object","additionalProperties":false,
				"required":["developerAppId","appId","name","organizationId","scopes"],"properties":{
				"developerAppId":{"type":"string","maxLength":69,"pattern":"^dapp_[A-Za-z0-9_-]{1,64}$"},"appId":` + httpapi.NonEmptyID + `,
				"name":` + httpapi.LineSchema(1, text.MaxLabel) + `,"organizationId":` + httpapi.NonEmptyID + `,
				"scopes":{"type":"array","minItems":1,"maxItems":100,"items":` + scopeSchema + `},
				"resourceTypes":{"type":"array","maxItems":20,"items":` + httpapi.PatternSchema(text.MaxID, `^[a-z0-9][a-z0-9_-]*$`) + `},
				"entrypointUrl":` + httpapi.URLSchema(httpapi.AnyScheme) + `,"surfaceGroup":` + httpapi.LineSchema(1, text.MaxGroup) + `}}`),
		}, d.registerDeveloperApp),
		httpapi.NoStore(httpapi.Perform(httpapi.Action{
			Name: "app_platform_auth.organizations.provision_from_checkout", Method: http.MethodPost, Path: "/api/internal/provision-from-checkout",
			AuthorizationMode: httpapi.AuthRuntime, AllowedServices: domain.BillingPlaneServices,
			Summary: "Billing plane: create (once per email) an organization with a passwordless owner, store the entitlement " +
				"snapshot, grant default services plus appId, answer a single-use loginUrl; created is false for an existing owner",
			InputSchema: json.RawMessage(checkoutSchema), OutputSchema: json.RawMessage(provisionedOut),
		}, d.provisionFromCheckout)),
		httpapi.NoStore(httpapi.Perform(httpapi.Action{
			Name: "app_platform_auth.sso.handoff_code.create", Method: http.MethodPost, Path: "/sso/handoff-code",
			AuthorizationMode: httpapi.AuthRuntime,
			Summary: "A signed-in user's one-time code for a catalog application: answers callback_url (redirect_uri + code), " +
				"never a bearer token",
			InputSchema: httpapi.Object([]string{"app_id", "redirect_uri"}, map[string]string{"app_id": httpapi.NonEmptyID,
				"redirect_uri": httpapi.URLSchema(httpapi.AnyScheme)}),
		}, a.HandoffCode)),
		httpapi.Decoded(httpapi.Action{
			Name: "app_platform_auth.sso.code.exchange", Method: http.MethodPost, Path: "/sso/exchange-code",
			Summary: "The destination application exchanges a handoff code (once) with its app_id and redirect_uri for a session",
			InputSchema: httpapi.Object([]string{"code", "app_id", "redirect_uri"}, map[string]string{"code": httpapi.LineSchema(1, text.MaxToken),
				"app_id": httpapi.NonEmptyID, "redirect_uri": httpapi.URLSchema(httpapi.AnyScheme)}),
		}, func(ctx context.Context, c *httpapi.Call, in identitycmd.SSOExchange) (httpapi.Reply, error) {
			c.Meta.Actor = eventstore.Actor{ID: in.AppID, Type: "application"}
			tokens, err := a.ExchangeCode(ctx, c.Meta, in)
			if err != nil {
				return httpapi.Reply{}, err
			}
			return d.Web.sessionReply(c.Request, tokens, true), nil
		}),
		httpapi.Query(httpapi.Action{
			Name: "app_platform_auth.app_switcher.preferences.get", Method: http.MethodGet, Path: "/api/app-switcher/preferences",
			ReadOnly: true, AuthorizationMode: httpapi.AuthRuntime, ReadModel: accessview.Name,
			Summary: "The caller's launcher preferences in its active organization (defaults before the first write)",
		}, d.preferences),
		httpapi.CommandAs(httpapi.Action{
			Name: "app_platform_auth.app_switcher.preferences.set", Method: http.MethodPut, Path: "/api/app-switcher/preferences",
			AuthorizationMode: httpapi.AuthRuntime,
			Summary:           "Replace the caller's launcher preferences: favorites, hidden, tileSize, optional theme (light, dark)",
			InputSchema:       json.RawMessage(preferencesSchema),
		}, a.SetPreferences),
	}
	actions = append(actions, serviceTokenAction(a.Keys()))
	return Part{Actions: actions, Routes: func(r *mux.Router) {
		r.HandleFunc("/magic-link/consume", d.consumeMagicLink(false)).Methods(http.MethodGet)
		// The interstitial page posts an HTML form: the one route that takes one.
		r.Handle("/magic-link/consume", httpapi.AcceptsForms(d.consumeMagicLink(true))).Methods(http.MethodPost)
		r.HandleFunc("/.well-known/jwks.json", func(w http.ResponseWriter, req *http.Request) {
			keys, err := a.Keys().JWKS(req.Context())
			if err != nil {
				httpapi.WriteError(w, req, d.Log, err)
				return
			}
			w.Header().Set("Cache-Control", "public, max-age=300")
			httpapi.WriteJSON(w, http.StatusOK, map[string]any{"keys": keys})
		}).Methods(http.MethodGet)
	}}
}

func serviceAccessAction(a *identitycmd.Access, grant bool) httpapi.Action {
	act := httpapi.Action{
		Name: "app_platform_auth.service_access.grant", Method: http.MethodPut, Path: "/api/organizations/{orgId}/service-access/{appId}",
		AuthorizationMode: httpapi.AuthRuntime, Summary: "Let the organization use an application (platform roles only)",
		InputSchema: httpapi.Object([]string{"orgId", "appId"}, map[string]string{"orgId": uuidString, "appId": httpapi.NonEmptyID}),
	}
	if !grant {
		act.Name, act.Method, act.Destructive = "app_platform_auth.service_access.revoke", http.MethodDelete, true
		act.Summary = "Take an application away from the organization, defaults included (platform roles only)"
	}
	return httpapi.CommandAs(act, func(ctx context.Context, m commands.Meta, p domain.Principal, in ServiceAccessInput) (commands.Result[identitycmd.ServiceAccess], error) {
		return a.SetServiceAccess(ctx, m, p, in.OrganizationID, in.AppID, grant)
	})
}

// WithServiceTokens lets a validator accept the identity service's own
// service-to-service tokens (EdDSA JWTs, verified by kid against the key
// set); every other credential goes to next. A service principal holds no
// scopes: it reaches only actions that name it in allowedServices.
func WithServiceTokens(keys *identitycmd.ServiceKeys, next httpapi.Validator) httpapi.Validator {
	return httpapi.ValidatorFunc(func(ctx context.Context, token string) (domain.Principal, error) {
		if domain.LooksLikeJWT(token) {
			return keys.Verify(ctx, token)
		}
		return next.Validate(ctx, token)
	})
}

// consumeMagicLink serves GET (confirmed=false) and POST (the confirmation)
// of /magic-link/consume through the one completion path. Browsers (Accept:
// text/html) get the interstitial page or a redirect with the session
// cookie; other clients get JSON.
func (d AccessDeps) consumeMagicLink(confirmed bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set("Referrer-Policy", "no-referrer")
		if err := d.Attempts.AllowAttempt(r); err != nil {
			httpapi.WriteError(w, r, d.Log, err)
			return
		}
		token := r.URL.Query().Get("token")
		if confirmed {
			token = ""
			// A JSON body cannot come from a cross-site form (its content type
			// needs a CORS preflight, answered for first-party origins only);
			// a form post must carry the interstitial's CSRF token.
			if strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
				var body struct {
					Token string `json:"token"`
				}
				if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 4096)).Decode(&body); err != nil {
					if !errors.As(err, new(*http.MaxBytesError)) { // past the bound: 413, as everywhere
						err = errs.InvalidField("/token", "the body must be {\"token\": ...}")
					}
					httpapi.WriteError(w, r, d.Log, err)
					return
				}
				token = body.Token
			} else if err := r.ParseForm(); errors.As(err, new(*http.MaxBytesError)) {
				httpapi.WriteError(w, r, d.Log, err)
				return
			} else if err == nil {
				if !validMagicLinkCSRF(r) {
					httpapi.WriteError(w, r, d.Log, errs.PermissionDenied("the confirmation form is not from this site (CSRF check failed); open the link again"))
					return
				}
				token = r.PostForm.Get("token")
			}
		}
		if token == "" {
			httpapi.WriteError(w, r, d.Log, errs.InvalidField("/token", "a magic-link token is required"))
			return
		}
		m := commands.Meta{Actor: eventstore.Actor{ID: "magic-link", Type: "anonymous"}, CorrelationID: httpapi.RequestID(r.Context())}
		out, err := d.Access.ConsumeMagicLink(r.Context(), m, token, confirmed)
		html := strings.Contains(r.Header.Get("Accept"), "text/html")
		switch {
		case err != nil && html:
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.WriteHeader(http.StatusBadRequest)
			_ = magicLinkPage.Execute(w, map[string]any{"Error": "This sign-in link is not valid any more. Ask for a new one."})
		case err != nil:
			httpapi.WriteError(w, r, d.Log, err)
		case out.ConfirmationRequired && html:
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Header().Set("X-Frame-Options", "DENY")
			csrf := newMagicLinkCSRF(w, r)
			_ = magicLinkPage.Execute(w, map[string]any{"Token": token, "CSRF": csrf})
		case out.ConfirmationRequired:
			httpapi.WriteJSON(w, http.StatusOK, map[string]any{"confirmationRequired": true,
				"confirm": map[string]string{"method": http.MethodPost, "path": "/magic-link/consume"}})
		default:
			reply := d.Web.sessionReply(r, *out.Session, false)
			for k, vs := range reply.Header {
				w.Header()[k] = vs
			}
			if html && out.RedirectURI != "" {
				http.Redirect(w, r, out.RedirectURI, http.StatusSeeOther)
				return
			}
			httpapi.WriteJSON(w, http.StatusOK, map[string]any{"confirmationRequired": false, "redirectUri": out.RedirectURI, "session": reply.Body})
		}
	}
}

// magicLinkPage is the confirmation interstitial of email-delivered links:
// opening the link (or a mail scanner prefetching it) uses nothing; the
// button posts the token.
var magicLinkPage = template.Must(template.New("magic").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer"><title>Sign in</title></head><body>
{{if .Error}}<p>{{.Error}}</p>{{else}}<h1>Sign in to your workspace</h1>
<form method="post" action="/magic-link/consume"><input type="hidden" name="token" value="{{.Token}}"><input type="hidden" name="csrf" value="{{.CSRF}}">
<button type="submit">Continue</button></form>{{end}}
</body></html>`))
