package httpapi

import (
	"context"
	"log/slog"
	"net/http"

	"github.com/gorilla/mux"

	identitycmd "github.com/platform/backend/commands/identity"
	"github.com/platform/backend/domain/text"
	identityview "github.com/platform/backend/projections/identity"
)

// IdentityDeps are what the accounts and sessions half of the identity
// service calls.
type IdentityDeps struct {
	Commands *identitycmd.Handlers
	Accounts *identityview.Queries
	Web      SessionWeb
	Log      *slog.Logger
}

// IdentityPart is one half of the identity service: its actions and its
// plain routes. The service is composed from parts so that each half lives
// in its own files (identity_accounts.go, identity_sessions.go here; the
// access half in identity_access.go).
type IdentityPart struct {
	Actions []Action
	Routes  func(r *mux.Router)
}

// IdentityAppID is the identity service's app id (seed 001's prefix).
const IdentityAppID = "app_platform_auth"

// IdentityService is seed 001's identity service: accounts and sessions, the
// health route and /validate (added by the app with the validator), plus the
// parts given (the access half, API keys).
func IdentityService(d IdentityDeps, parts ...IdentityPart) Service {
	if d.Log == nil {
		d.Log = slog.Default()
	}
	all := append([]IdentityPart{accountActions(d), sessionActions(d)}, parts...)
	svc := Service{Name: "identity", AppID: IdentityAppID}
	var routes []func(*mux.Router)
	for _, p := range all {
		svc.Actions = append(svc.Actions, p.Actions...)
		if p.Routes != nil {
			routes = append(routes, p.Routes)
		}
	}
	svc.Actions = withOutputs(svc.Actions, identityOutputs)
	svc.Routes = func(r *mux.Router) {
		r.HandleFunc("/api/health", func(w http.ResponseWriter, _ *http.Request) {
			WriteJSON(w, http.StatusOK, map[string]string{"status": "ok", "service": "identity"})
		}).Methods(http.MethodGet)
		for _, f := range routes {
			f(r)
		}
	}
	return svc
}

// APIKeyActions are the backbone's API key routes (create, revoke). The
// access half may replace them with its own part.
func APIKeyActions(cmds *identitycmd.Handlers) IdentityPart {
	return IdentityPart{Actions: []Action{
		{
			Name: "app_platform_auth.api_keys.create", Method: http.MethodPost, Path: "/api/api-keys", Permission: "api_keys:write",
			SuccessStatus: http.StatusCreated, Summary: "Create an API key of the caller's organization; the token is shown once",
			InputSchema: schemaObject([]string{"name", "scopes"}, map[string]string{
				"name": lineSchema(1, text.MaxLabel), "service": appIDSchema,
				"scopes": `{"type":"array","minItems":1,"items":` + patternSchema(text.MaxID, `^[a-z0-9_.-]+:[a-z0-9_.-]+$`) + `}`}),
			Handle: func(ctx context.Context, c *Call) (Reply, error) {
				var in identitycmd.CreateAPIKey
				if err := c.Decode(&in); err != nil {
					return Reply{}, err
				}
				return noStore(FromResult(cmds.CreateAPIKey(ctx, c.Meta, in)))
			},
		},
		{
			Name: "app_platform_auth.api_keys.revoke", Method: http.MethodDelete, Path: "/api/api-keys/{keyId}", Permission: "api_keys:write",
			Destructive: true, Summary: "Revoke an API key; it fails validation at once",
			InputSchema: schemaObject([]string{"keyId"}, map[string]string{"keyId": `{"type":"string","format":"uuid"}`}),
			Handle: func(ctx context.Context, c *Call) (Reply, error) {
				var in identitycmd.RevokeAPIKey
				if err := c.Decode(&in); err != nil {
					return Reply{}, err
				}
				return FromResult(cmds.RevokeAPIKey(ctx, c.Meta, in))
			},
		},
	}}
}

// ValidateRoute is the identity service's /validate (any method): 200 with
// the principal, 401 for a bad credential, 503 when the store is down.
func ValidateRoute(v Validator, d Deps) func(r *mux.Router) {
	return func(r *mux.Router) {
		r.HandleFunc("/validate", func(w http.ResponseWriter, req *http.Request) {
			token := credential(req)
			if token == "" {
				WriteError(w, req, d.Log, errAuthRequired)
				return
			}
			p, err := v.Validate(req.Context(), token)
			if err != nil {
				WriteError(w, req, d.Log, err)
				return
			}
			w.Header().Set("Cache-Control", "no-store")
			WriteJSON(w, http.StatusOK, p)
		})
	}
}
